"""A bounded command runs with Python's cyclic garbage collector paused (cli.collector).

While it runs, the collector is off; afterwards it is on again, and what the command made
and still holds is in the oldest generation, where the young generation's next pass does
not walk it; a cycle the command left is still collected by a full pass. A long-lived
command (`watch`) leaves the collector as it is.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from driftctl.cli.collector import paused_for


class Node:
    """Something a cycle can be made of (and a weak reference can follow)."""

    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def held_in(generation: int, thing: object) -> bool:
    return any(each is thing for each in gc.get_objects(generation=generation))


def test_the_collector_is_paused_while_a_bounded_command_runs() -> None:
    with paused_for(long_lived=False):
        assert not gc.isenabled()

    assert gc.isenabled()


def test_what_a_command_still_holds_is_old_afterwards() -> None:
    with paused_for(long_lived=False):
        held = [{"page": number} for number in range(1000)]
        assert held_in(0, held)

    assert held_in(2, held)
    assert not held_in(0, held)


def test_a_cycle_a_command_left_is_collected_by_the_next_full_pass() -> None:
    with paused_for(long_lived=False):
        first, second = Node(), Node()
        first.other, second.other = second, first
        gone = weakref.ref(first)
        del first, second

    gc.collect()

    assert gone() is None


def test_a_long_lived_command_leaves_the_collector_as_it_is() -> None:
    with paused_for(long_lived=True):
        assert gc.isenabled()

    assert gc.isenabled()
