"""The watch's work queue (core.watch.queue): changes before a reconcile starts are one
reconcile; a WebApp in progress is never handed to a second worker; a change meanwhile
makes it wait for the first to finish; timed retries come back when due; a pause holds
everything (a stop drains the workers); drift goes first, however much else waits."""

from __future__ import annotations

from driftctl.core.watch.queue import Urgency, WorkQueue

SHOP, BLOG, DOCS = ("web", "shop"), ("web", "blog"), ("web", "docs")
Key = tuple[str, str]


def taken(queue: WorkQueue[Key]) -> Key | None:
    """The key `take` hands out (its urgency aside)."""
    got = queue.take()
    return None if got is None else got[0]


def test_changes_before_the_reconcile_starts_are_coalesced() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    for _ in range(5):
        queue.add(SHOP)
    queue.add(BLOG)
    assert queue.depth == 2
    assert [taken(queue), taken(queue), taken(queue)] == [SHOP, BLOG, None]


def test_a_webapp_in_progress_is_not_handed_out_again_until_done() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add(SHOP)
    assert taken(queue) == SHOP
    queue.add(SHOP)  # changed while a worker reconciles it
    queue.add(SHOP)
    assert taken(queue) is None  # no second worker on it
    queue.done(SHOP)
    assert taken(queue) == SHOP  # once, for both changes
    queue.done(SHOP)
    assert taken(queue) is None
    assert queue.idle


def test_a_timed_retry_comes_back_when_due_at_the_earliest_time_asked() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add_at(SHOP, 10.0)
    queue.add_at(SHOP, 4.0)
    assert queue.promote(3.9) == 4.0
    assert taken(queue) is None
    assert queue.promote(4.0) is None
    assert taken(queue) == SHOP


def test_a_success_forgets_the_timed_retry() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add_at(SHOP, 4.0)
    queue.forget(SHOP)
    assert queue.promote(100.0) is None
    assert taken(queue) is None


def test_a_pause_holds_every_webapp_until_resumed() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add(SHOP)
    queue.pause()
    queue.add(SHOP)
    assert taken(queue) is None
    queue.resume()
    assert taken(queue) == SHOP
    assert taken(queue) is None


def test_drift_is_handed_out_before_a_pass_and_a_pass_before_status_refreshes() -> None:
    queue: WorkQueue[Key] = WorkQueue()
    queue.add_all([("web", f"app-{n}") for n in range(1000)], Urgency.STATUS)
    queue.add(BLOG, Urgency.PASS)
    queue.add(SHOP, Urgency.DRIFT)  # a person's edit, after a thousand refreshes
    assert queue.take() == (SHOP, Urgency.DRIFT)
    assert queue.take() == (BLOG, Urgency.PASS)
    assert queue.take() == (("web", "app-0"), Urgency.STATUS)
    assert queue.waiting(Urgency.STATUS) == 999


def test_a_waiting_webapp_moves_up_to_the_most_urgent_reason_and_never_down() -> None:
    queue: WorkQueue[Key] = WorkQueue()
    queue.add(BLOG, Urgency.STATUS)
    queue.add(SHOP, Urgency.STATUS)
    queue.add(SHOP, Urgency.DRIFT)  # its Deployment's status moved, then a person scaled it
    queue.add(BLOG, Urgency.PASS)
    queue.add(BLOG, Urgency.STATUS)  # a later, lesser reason keeps its place
    assert queue.depth == 2
    assert [queue.take(), queue.take(), queue.take()] == [
        (SHOP, Urgency.DRIFT),
        (BLOG, Urgency.PASS),
        None,
    ]


def test_drift_of_a_webapp_in_progress_is_handed_out_first_once_it_is_done() -> None:
    queue: WorkQueue[Key] = WorkQueue()
    queue.add(SHOP, Urgency.STATUS)
    assert queue.take() == (SHOP, Urgency.STATUS)
    queue.add(DOCS, Urgency.STATUS)
    queue.add(SHOP, Urgency.DRIFT)  # changed by a person while a worker refreshes its status
    queue.done(SHOP)
    assert queue.take() == (SHOP, Urgency.DRIFT)
    assert queue.take() == (DOCS, Urgency.STATUS)


def test_a_timed_retry_comes_back_at_its_urgency() -> None:
    queue: WorkQueue[Key] = WorkQueue()
    queue.add(BLOG, Urgency.STATUS)
    queue.add_at(SHOP, 4.0, Urgency.PASS)
    queue.promote(4.0)
    assert queue.take() == (SHOP, Urgency.PASS)


def test_a_worker_is_kept_for_drift_while_others_refresh_statuses() -> None:
    queue: WorkQueue[Key] = WorkQueue(others_at_most=2)
    queue.add_all([("web", f"app-{n}") for n in range(10)], Urgency.STATUS)
    assert queue.take() == (("web", "app-0"), Urgency.STATUS)
    assert queue.take() == (("web", "app-1"), Urgency.STATUS)
    assert queue.take() is None  # the third worker waits for drift
    queue.add(SHOP, Urgency.DRIFT)
    assert queue.take() == (SHOP, Urgency.DRIFT)
    queue.done(("web", "app-0"))
    assert queue.take() == (("web", "app-2"), Urgency.STATUS)
