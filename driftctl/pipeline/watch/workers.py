"""The workers of `watch`: the work queue, the threads that take from it, and retries.

A change the feed lets through, or a WebApp a full pass found work for, waits in the
queue (core.watch.queue: changes coalesce, a WebApp never has two workers, drift first,
one worker kept free for drift); each of --concurrency threads takes the most urgent
place and hands it to `reconcile`
(pipeline.watch.reconcile), then tells `finished` what came of it. A failure, or an
object that failed, retries the place later (core.watch.backoff: 1 s doubling to 5 min,
reset on success); the seconds from a drift seen to the reconcile that corrected it are
observed. A WebApp whose rollout is still in progress is looked at again, as a status
refresh, 5 s later, then 10, 20 and 40 s after that, unless one of its objects changes
first (which starts the looks over): a new Pod that cannot start changes nothing the watch
sees, and its status must still say so (core.watch.backoff: ROLLOUT_LOOKS); each rollout
seen to end is counted. A stop `drain`s the queue. The locking and the waiting are here;
the rules are the core's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from driftctl.core.planning.outcomes import ApplyReport, Outcome
from driftctl.core.source.model import Place
from driftctl.core.watch.backoff import MAX_ROLLOUT_LOOKS, ROLLOUT_LOOKS, Backoff
from driftctl.core.watch.queue import Urgency, WorkQueue
from driftctl.errors import DriftctlError
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.setup import Runtime

CORRECTING = frozenset({Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED})
Reconcile = Callable[[Place, Urgency], ApplyReport]
Finished = Callable[[Place, ApplyReport | None], None]  # None: the reconcile failed


class Workers:
    """The queue of places waiting, and the threads that reconcile them."""

    def __init__(self, reconcile: Reconcile, runtime: Runtime, metrics: WatchMetrics) -> None:
        self._reconcile, self._runtime, self._metrics = reconcile, runtime, metrics
        self.finished: Finished = lambda place, report: None
        self._cond = threading.Condition()
        self._queue: WorkQueue[Place] = WorkQueue()
        self._backoff = Backoff()
        self._looks = Backoff(ROLLOUT_LOOKS)  # looks in a row at a rollout nothing changed
        self._seen: dict[Place, float] = {}  # when a waiting place's first drift was seen
        self._draining = False
        metrics.gauge_of(
            "watch_queue_depth", "WebApps waiting to be reconciled.", lambda: self._queue.depth
        )
        for urgency in Urgency:
            metrics.gauge_of(
                f"watch_queue_{urgency.name.lower()}",
                f"WebApps waiting to be reconciled for {urgency.name.lower()}, now.",
                lambda urgency=urgency: self._queue.waiting(urgency),  # type: ignore[misc]
            )

    def add(self, place: Place, urgency: Urgency = Urgency.DRIFT) -> None:
        """`place` changed: reconcile it (once, however many changes come first)."""
        with self._cond:
            if urgency is Urgency.DRIFT:
                self._seen.setdefault(place, self._runtime.clock())
            self._looks.succeeded(place)  # news of its objects: its rollout's looks start over
            self._queue.add(place, urgency)
            self._cond.notify()

    def add_all(self, places: list[Place], urgency: Urgency) -> None:
        """Each of `places` has work (a full pass found it)."""
        with self._cond:
            self._queue.add_all(places, urgency)
            self._cond.notify_all()

    def start(self, count: int) -> None:
        """Start `count` threads, each reconciling one place at a time; with two or more,
        one is always kept free for drift (core.watch.queue)."""
        with self._cond:
            self._queue.others_at_most = max(count - 1, 1)
        for n in range(count):
            threading.Thread(target=self._work, name=f"reconcile-{n}", daemon=True).start()

    def promote(self) -> float | None:
        """Hand out the places whose retry time has come; when the next one is due."""
        with self._cond:
            due = self._queue.promote(self._runtime.clock())
            self._cond.notify_all()
        return due

    def retry_later(self, place: Place, urgency: Urgency) -> None:
        """`place` failed: it waits for its backoff."""
        self._metrics.reconciles.labels("failed").inc()
        when = self._backoff.failed(place, self._runtime.clock(), self._runtime.jitter())
        with self._cond:
            self._queue.add_at(place, when, urgency)

    def follow_rollouts(self, report: ApplyReport) -> None:
        """Count the rollouts `report` saw end; look again at those still moving whose Pods
        were read, on the curve of looks (module docstring)."""
        for _, result in report.ended:
            self._metrics.rollouts.labels(str(result)).inc()
        now, jitter = self._runtime.clock(), self._runtime.jitter
        written = {each.key.place for each in report.outcomes if each.outcome in CORRECTING}
        with self._cond:
            for key, _state in report.rollouts:
                if key not in report.rolling or key.place in written:
                    self._looks.succeeded(key.place)  # ended, or begun again by this reconcile
            for key in sorted(report.rolling):
                if self._looks.failures(key.place) < MAX_ROLLOUT_LOOKS:
                    when = self._looks.failed(key.place, now, jitter())
                    self._queue.add_at(key.place, when, Urgency.STATUS)

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
                taken = self._queue.take()
                while taken is None:
                    if self._draining:
                        return
                    self._cond.wait()  # each add, promote, done and drain notifies
                    taken = self._queue.take()
                place, urgency = taken
                seen = self._seen.pop(place, None)
            self._metrics.work.labels(urgency.name.lower()).inc()
            try:
                self._reconcile_one(place, urgency, seen)
            finally:
                with self._cond:
                    self._queue.done(place)
                    self._cond.notify_all()

    def _reconcile_one(self, place: Place, urgency: Urgency, seen: float | None) -> None:
        try:
            report = self._reconcile(place, urgency)
        except DriftctlError as failed:
            self._runtime.notice(f"reconcile {place[0]}/{place[1]}: {failed.message}")
            self.retry_later(place, urgency)
            self.finished(place, None)
            return
        self.finished(place, report)
        if report.count(Outcome.FAILED):
            self.retry_later(place, urgency)
            return
        self._metrics.reconciles.labels("success").inc()
        self._backoff.succeeded(place)
        with self._cond:
            self._queue.forget(place)
        self.follow_rollouts(report)
        if seen is not None and any(each.outcome in CORRECTING for each in report.outcomes):
            self._metrics.corrections.observe(self._runtime.clock() - seen)
