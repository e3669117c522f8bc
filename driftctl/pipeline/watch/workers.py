"""The workers of `watch`: the work queue, the threads that take from it, and retries.

A change the feed lets through waits in the queue (core.watch.queue: changes coalesce, a
WebApp never has two workers); each of --concurrency threads takes one place at a time and
hands it to `reconcile` (pipeline.watch.reconcile). A failure, or an object that failed,
retries the place later (core.watch.backoff: 1 s doubling to 5 min, reset on success); the
seconds from a change seen to the reconcile that corrected it are observed. A WebApp whose
rollout is still in progress is looked at again ROLLOUT_RECHECK seconds later: a new Pod
that cannot start changes nothing the watch sees, and its status must still say so; each
rollout seen to end is counted. A full pass
runs with the queue `paused`; a stop `drain`s it. The locking and the waiting are here;
the rules are the core's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from driftctl.core.planning.outcomes import ApplyReport, Outcome
from driftctl.core.source.model import Place
from driftctl.core.watch.backoff import Backoff
from driftctl.core.watch.queue import WorkQueue
from driftctl.errors import DriftctlError
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.setup import Runtime

CORRECTING = frozenset({Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED})
ROLLOUT_RECHECK = 5.0  # seconds between looks at a rollout in progress


class Workers:
    """The queue of places waiting, and the threads that reconcile them."""

    def __init__(
        self,
        reconcile: Callable[[Place], ApplyReport],
        runtime: Runtime,
        metrics: WatchMetrics,
    ) -> None:
        self._reconcile, self._runtime, self._metrics = reconcile, runtime, metrics
        self._cond = threading.Condition()
        self._queue: WorkQueue[Place] = WorkQueue()
        self._backoff = Backoff()
        self._seen: dict[Place, float] = {}  # when a waiting place's first change was seen
        self._draining = False
        metrics.gauge_of(
            "watch_queue_depth", "WebApps waiting to be reconciled.", lambda: self._queue.depth
        )

    def add(self, place: Place) -> None:
        """`place` changed: reconcile it (once, however many changes come first)."""
        with self._cond:
            self._seen.setdefault(place, self._runtime.clock())
            self._queue.add(place)
            self._cond.notify()

    def start(self, count: int) -> None:
        """Start `count` threads, each reconciling one place at a time."""
        for n in range(count):
            threading.Thread(target=self._work, name=f"reconcile-{n}", daemon=True).start()

    def promote(self) -> float | None:
        """Hand out the places whose retry time has come; when the next one is due."""
        with self._cond:
            due = self._queue.promote(self._runtime.clock())
            self._cond.notify_all()
        return due

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing is handed out meanwhile, and what is in progress finishes first."""
        with self._cond:
            self._queue.pause()
            while not self._queue.idle:
                self._cond.wait(0.5)
        try:
            yield
        finally:
            with self._cond:
                self._queue.resume()
                self._cond.notify_all()

    def retry_later(self, place: Place) -> None:
        """`place` failed: it waits for its backoff."""
        self._metrics.reconciles.labels("failed").inc()
        when = self._backoff.failed(place, self._runtime.clock(), self._runtime.jitter())
        with self._cond:
            self._queue.add_at(place, when)

    def follow_rollouts(self, report: ApplyReport) -> None:
        """Count the rollouts `report` saw end; look again, ROLLOUT_RECHECK seconds later, at
        those still moving whose Pods were read (module docstring)."""
        for _, result in report.ended:
            self._metrics.rollouts.labels(str(result)).inc()
        when = self._runtime.clock() + ROLLOUT_RECHECK
        with self._cond:
            for key in sorted(report.rolling):
                self._queue.add_at(key.place, when)

    def drain(self, seconds: float) -> None:
        """Let the reconciles in progress finish (bounded), then let the threads go."""
        clock = self._runtime.clock
        give_up = clock() + seconds
        with self._cond:
            self._queue.pause()
            self._draining = True
            while not self._queue.idle and clock() < give_up:
                self._cond.wait(0.2)
            self._cond.notify_all()

    def _work(self) -> None:
        while True:
            with self._cond:
                place = self._queue.take()
                while place is None:
                    if self._draining:
                        return
                    self._cond.wait(0.5)
                    place = self._queue.take()
                seen = self._seen.pop(place, None)
            try:
                self._reconcile_one(place, seen)
            finally:
                with self._cond:
                    self._queue.done(place)
                    self._cond.notify_all()

    def _reconcile_one(self, place: Place, seen: float | None) -> None:
        try:
            report = self._reconcile(place)
        except DriftctlError as failed:
            self._runtime.notice(f"reconcile {place[0]}/{place[1]}: {failed.message}")
            self.retry_later(place)
            return
        if report.count(Outcome.FAILED):
            self.retry_later(place)
            return
        self._metrics.reconciles.labels("success").inc()
        self._backoff.succeeded(place)
        with self._cond:
            self._queue.forget(place)
        self.follow_rollouts(report)
        if seen is not None and any(each.outcome in CORRECTING for each in report.outcomes):
            self._metrics.corrections.observe(self._runtime.clock() - seen)
