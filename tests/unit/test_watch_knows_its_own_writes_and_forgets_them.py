"""driftctl's own writes coming back as watch events (core.watch.own_writes): filtered,
never someone else's change, and nothing remembered past the object's next event.

The first three cases are the leak of the first `watch`, which dropped a remembered
version only when an event at exactly that version came: an event faster than the
write's answer, a write that changed nothing (no event at all), and a deletion each left
an entry behind for good.
"""

from __future__ import annotations

from driftctl.core.planning.objects import ObjectKey
from driftctl.core.watch.own_writes import MAX_PENDING, OwnWrites, newer_than_held

SHOP = ObjectKey("Deployment", "web", "shop")
BLOG = ObjectKey("WebApp", "web", "blog")


def test_an_event_faster_than_the_answer_leaves_nothing_behind() -> None:
    writes = OwnWrites()
    assert not writes.seen(SHOP, "11")  # the event of our write, before its answer: reconciled
    writes.wrote(SHOP, "11", held="11")  # the answer, the informer holding "11" already

    assert len(writes) == 0
    assert not writes.seen(SHOP, "12"), "the next change is someone else's"


def test_a_write_that_changed_nothing_is_not_waited_for() -> None:
    writes = OwnWrites()
    writes.wrote(SHOP, "10", held="10")  # no new version, so no event will ever follow

    assert len(writes) == 0


def test_a_deletion_forgets_what_was_remembered() -> None:
    writes = OwnWrites()
    writes.wrote(SHOP, "11", held="10")
    assert not writes.seen(SHOP, None)

    assert len(writes) == 0


def test_our_write_coming_back_is_ours_once() -> None:
    writes = OwnWrites()
    writes.wrote(SHOP, "11", held="10")

    assert writes.seen(SHOP, "11")
    assert len(writes) == 0
    assert not writes.seen(SHOP, "11"), "a version told again is not filtered twice"


def test_another_change_drops_what_was_remembered_and_is_never_hidden() -> None:
    writes = OwnWrites()
    writes.wrote(SHOP, "11", held="10")

    assert not writes.seen(SHOP, "13")  # our "11" went by before the answer was recorded
    assert len(writes) == 0


def test_two_writes_of_one_object_come_back_in_order() -> None:
    writes = OwnWrites()
    writes.wrote(BLOG, "21", held="20")  # the spec
    writes.wrote(BLOG, "22", held="20")  # then the status

    assert writes.seen(BLOG, "21")
    assert len(writes) == 1
    assert writes.seen(BLOG, "22")
    assert len(writes) == 0


def test_a_later_write_seen_first_drops_the_earlier_one_too() -> None:
    writes = OwnWrites()
    writes.wrote(BLOG, "21", held="20")
    writes.wrote(BLOG, "22", held="20")

    assert writes.seen(BLOG, "22")
    assert len(writes) == 0


def test_objects_are_apart_and_each_is_bounded() -> None:
    writes = OwnWrites()
    for n in range(3 * MAX_PENDING):
        writes.wrote(SHOP, str(100 + n), held="99")
    writes.wrote(BLOG, "5", held="4")

    assert len(writes) == 2
    assert not writes.seen(SHOP, "100"), "only the last MAX_PENDING versions are kept"
    assert writes.seen(BLOG, "5")


def test_many_objects_written_and_seen_in_any_interleaving_leave_the_map_empty() -> None:
    writes = OwnWrites()
    keys = [ObjectKey("Deployment", "web", f"app-{n}") for n in range(200)]
    for n, key in enumerate(keys):
        if n % 3 == 0:  # the event first, then the answer
            writes.seen(key, "2")
            writes.wrote(key, "2", held="2")
        elif n % 3 == 1:  # the answer first, then the event
            writes.wrote(key, "2", held="1")
            assert writes.seen(key, "2")
        else:  # the answer, then someone else's later change
            writes.wrote(key, "2", held="1")
            writes.seen(key, "3")

    assert len(writes) == 0


def test_a_write_that_changed_nothing_before_the_last_came_back_is_not_remembered_twice() -> None:
    written = OwnWrites()
    written.wrote(SHOP, "2", "1")  # a create, its event still to come
    written.wrote(SHOP, "2", "1")  # an apply that changed nothing: the same version
    assert written.seen(SHOP, "2")
    assert len(written) == 0  # nothing left waiting for an event that will never come


def test_only_an_answer_newer_than_the_version_held_goes_to_memory() -> None:
    assert newer_than_held("12", held="11")
    assert not newer_than_held("11", held="11"), "a write that changed nothing"
    assert not newer_than_held("11", held="12"), "someone's later change came first"
    assert not newer_than_held("12", held=None), "not held: created, or gone already"
    assert not newer_than_held("12", held="a1"), "not a number: left to its event"
