"""`watch` looks again at a rollout in progress that no event tells it about (a new Pod
that cannot start changes nothing it watches): after 5, 10, 20 and 40 s, jittered, then
no more until one of the WebApp's objects changes, which starts the looks over
(pipeline.watch.workers, core.watch.backoff). A rollout stuck for good (Pods no node runs)
costs four looks, not two LISTs every 5 s for as long as it is stuck.

The workers' queue and clock, without their threads: each look is told to
`follow_rollouts` as the reconcile it queued would report it.
"""

from __future__ import annotations

import os
import threading

import pytest

from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.source.model import Place
from driftctl.core.watch.backoff import ROLLOUT_LOOKS
from driftctl.core.watch.queue import Urgency
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.setup import Runtime
from driftctl.pipeline.watch.workers import Workers
from driftctl.shell.apply import Progress

SHOP = ObjectKey("WebApp", "web", "shop")
STILL_MOVING = ApplyReport(
    (), rollouts=((SHOP, RolloutState.PROGRESSING),), rolling=frozenset({SHOP})
)
COMPLETE = ApplyReport((), rollouts=((SHOP, RolloutState.COMPLETE),))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def workers(clock: Clock) -> Workers:
    runtime = Runtime(
        os.environ,
        lambda line: None,
        lambda line: None,
        Progress(),
        threading.Event(),
        clock=clock,
        jitter=lambda: 0.999,  # each wait at (almost) its ceiling
    )
    return Workers(lambda place, urgency: COMPLETE, runtime, WatchMetrics())


def looks(pool: Workers, clock: Clock, report: ApplyReport, count: int) -> list[float]:
    """The waits before each of `count` looks, each finding `report` again."""
    waits = []
    for _ in range(count):
        pool.follow_rollouts(report)
        due = pool.promote()
        if due is None:
            break
        waits.append(round(due - clock.now, 1))
        clock.now = due
        assert pool.promote() is None  # the look is handed out; nothing else waits
    return waits


def test_a_rollout_nothing_changes_is_looked_at_four_times_then_left_to_its_deadline() -> None:
    clock = Clock()
    pool = workers(clock)

    assert looks(pool, clock, STILL_MOVING, 10) == [5.0, 10.0, 20.0, 40.0]


def test_news_of_its_objects_starts_the_looks_over() -> None:
    clock = Clock()
    pool = workers(clock)
    assert looks(pool, clock, STILL_MOVING, 3) == [5.0, 10.0, 20.0]

    pool.add(Place("web", "shop"), Urgency.STATUS)  # the Deployment's status moved

    assert looks(pool, clock, STILL_MOVING, 2) == [5.0, 10.0]


def test_a_rollout_that_ended_starts_over_when_the_next_one_begins() -> None:
    clock = Clock()
    pool = workers(clock)
    assert looks(pool, clock, STILL_MOVING, 4) == [5.0, 10.0, 20.0, 40.0]

    pool.follow_rollouts(COMPLETE)

    assert looks(pool, clock, STILL_MOVING, 1) == [5.0]


@pytest.mark.parametrize(("look", "ceiling"), [(1, 5.0), (2, 10.0), (3, 20.0), (4, 40.0)])
def test_the_looks_double_from_five_seconds(look: int, ceiling: float) -> None:
    assert ROLLOUT_LOOKS.ceiling(look - 1) == ceiling  # after look 1, attempt 0


def test_a_rollout_this_watch_begins_is_looked_at_from_the_start_again() -> None:
    clock = Clock()
    pool = workers(clock)
    assert looks(pool, clock, STILL_MOVING, 4) == [5.0, 10.0, 20.0, 40.0]
    deployment = ObjectKey("Deployment", "web", "shop")
    new_image = ApplyReport(
        (ObjectOutcome(deployment, Outcome.CONFIGURED),),
        rollouts=((SHOP, RolloutState.PROGRESSING),),
        rolling=frozenset({SHOP}),
    )  # Git moved: the watch applied a new template, whose Pods it read

    assert looks(pool, clock, new_image, 1) == [5.0]
