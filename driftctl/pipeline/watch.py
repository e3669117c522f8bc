"""Sequencing of `driftctl watch`: the operator form of the same engine, one process per
instance.

The process waits for the instance's Lease (a standby polls it), and while it leads:
- informers (shell.informer) keep this instance's WebApps and Deployments in memory;
- a change of either queues its WebApp's place in the work queue (core.watch.queue), unless
  it changed only in its own bookkeeping (core.watch.changes) or is the very object
  driftctl itself just wrote (its resourceVersion is the one the write answered with);
- workers (--concurrency) reconcile one place each at a time: the same planner as the batch
  run, for that WebApp alone (core.planning.plan `focus`, the prune guards counting the
  whole instance), from the memory instead of LISTs, then the same Applier. A failure
  retries the place later (core.watch.backoff: 1 s doubling to 5 min, reset on success);
- a full plan and apply, exactly the batch run's (fresh LISTs), runs at the start, when
  the Git ref moved (looked at every --git-poll seconds, fetched only when it moved), and
  every --resync seconds; the queue is paused meanwhile, so no WebApp is worked on twice.
A stop (SIGTERM) finishes the reconciles in progress and releases the Lease; a lost Lease
stops the process (exit 6), to start again as a standby: refused by another holder, or not
renewed within the renew deadline (core.cluster.lease.Term), which ends before the Lease
can expire for the standby, so two leaders never act at once. Nothing is decided here.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from driftctl.core.cluster import requests as r
from driftctl.core.cluster.lease import Standing, Term
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.outcomes import ApplyReport, Outcome
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.watch.backoff import Backoff
from driftctl.core.watch.changes import Place, place_of, worth_reconciling
from driftctl.core.watch.own_writes import Key, OwnWrites
from driftctl.core.watch.queue import WorkQueue
from driftctl.errors import DriftctlError, LockHeld
from driftctl.pipeline.engine import (
    Asking,
    Goal,
    applier_for,
    holder_identity,
    in_scope,
    lease_of,
    make_plan,
    make_plans,
)
from driftctl.pipeline.offline import load_desired
from driftctl.render.watch_metrics import WatchMetrics
from driftctl.settings import Cluster, Drift, Lock, Policy, Source, Watch
from driftctl.shell import probes
from driftctl.shell.apply import Progress
from driftctl.shell.git_source import head_of
from driftctl.shell.informer import Informer
from driftctl.shell.kube import Deadline, Kube, connect
from driftctl.shell.lock import RunLock

Notice = Callable[[str], None]
STANDBY_POLL = 2.0  # seconds between a standby's looks at the Lease
DRAIN_SECONDS = 30.0  # how long a stop waits for the reconciles in progress
CORRECTING = frozenset({Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED})


@dataclass(frozen=True)
class Setup:
    """Everything `watch` was told: the same settings as apply's, and its own pacing."""

    source: Source
    cluster: Cluster
    policy: Policy
    lock: Lock
    pace: Watch
    drift: Drift = field(default_factory=Drift)


def watch(
    setup: Setup,
    *,
    environ: Mapping[str, str],
    notice: Notice,
    say: Notice,
    progress: Progress,
    stop: threading.Event,
) -> None:
    """The `watch` command, until `stop` is set: Git at the start must be valid (exit 3)."""
    desired = in_scope(load_desired(setup.source, environ), setup.cluster)
    cluster = setup.cluster
    api = connect(cluster.kubeconfig, cluster.context, pool_size=2 * cluster.concurrency + 8)
    controller = Controller(
        setup,
        api,
        desired,
        environ=environ,
        notice=notice,
        say=say,
        progress=progress,
        stop=stop,
    )
    where = (setup.pace.metrics_host, setup.pace.metrics_port)
    server = probes.serve(where, controller.metrics.registry, controller.ready)
    host, port = server.server_address[:2]
    say(f"serving /healthz, /readyz and /metrics on {host!s}:{port}")
    try:
        controller.run()
    finally:
        server.shutdown()


class Controller:
    """One watch process: leadership, informers, the queue and its workers, Git, resyncs."""

    def __init__(
        self,
        setup: Setup,
        api: Any,
        desired: DesiredState,
        *,
        environ: Mapping[str, str],
        notice: Notice,
        say: Notice,
        progress: Progress,
        stop: threading.Event,
        clock: Callable[[], float] = time.monotonic,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.setup, self._api, self.desired = setup, api, desired
        self._environ, self._notice, self._say, self._progress = environ, notice, say, progress
        self._stop, self._clock, self._jitter = stop, clock, jitter
        self.metrics = WatchMetrics()
        self._head: str | None = None
        self._cond = threading.Condition()
        self._queue: WorkQueue[Place] = WorkQueue()
        self._backoff = Backoff()
        self._seen: dict[Place, float] = {}  # when a waiting place's first change was seen
        self._written = OwnWrites()
        self._written_lock = threading.Lock()
        self._informers: list[Informer] = []
        self._lock: RunLock | None = None
        self._started = False  # the first full pass has run
        self._standby = False  # another process holds the Lease
        self._draining = False
        self.metrics.gauge_of(
            "watch_queue_depth", "WebApps waiting to be reconciled.", lambda: self._queue.depth
        )
        self.metrics.gauge_of(
            "watch_own_writes_pending",
            "Objects written by this process whose watch event has not come back yet.",
            lambda: self.writes_pending,
        )

    # -- leadership -------------------------------------------------------------------

    def run(self) -> None:
        lease_kube = Kube(
            self._api, Deadline(float("inf")), notice=self._notice, answered=self._lease_written
        )
        ref = lease_of(self.setup.cluster, self.setup.lock)
        term = Term.of(self.setup.pace.lease_duration)
        self._lock = RunLock(lease_kube, ref, holder_identity(), term=term)
        if not self._lead(self._lock, ref.display):
            return
        with self._lock:
            self.metrics.leader.set(1)
            self._say(f"leading: holds {ref.display}")
            try:
                self._work(self._lock)
            finally:
                self._drain()
                self.metrics.leader.set(0)
        self._say(f"stopped: released {ref.display}")

    def _lead(self, lock: RunLock, lease: str) -> bool:
        """Take the Lease, waiting as a standby while another process holds it."""
        told = False
        while not self._stop.is_set():
            try:
                lock.acquire(0)
                self._standby = False
                return True
            except LockHeld as held:
                self._standby = True
                if not told:
                    self._say(f"standby: {held.message}")
                    told = True
            self._stop.wait(STANDBY_POLL)
        return False

    def _lease_written(self, request: r.Request, body: dict[str, Any]) -> None:
        if request.method in ("PUT", "POST"):
            self.metrics.lease_writes.inc()

    def ready(self) -> bool:
        """A standby is (it can take over); a leader once it listed everything and its first
        full pass is done."""
        if self._standby:
            return True
        return self._started and all(each.synced.is_set() for each in self._informers)

    # -- the work ---------------------------------------------------------------------

    def _work(self, lock: RunLock) -> None:
        self._start_informers()
        while not all(each.synced.is_set() for each in self._informers):
            if self._stop.wait(0.05):
                return
        workers = [
            threading.Thread(target=self._worker, name=f"reconcile-{n}", daemon=True)
            for n in range(self.setup.cluster.concurrency)
        ]
        for worker in workers:
            worker.start()
        self._head = self._look_at_git()
        self._full_pass("start")
        self._started = True
        pace = self.setup.pace
        next_poll = self._clock() + pace.git_poll
        next_resync = self._clock() + pace.resync
        while not self._stop.is_set():
            if lock.lost:
                raise LockHeld(_why_lost(lock), hint=LOST_HINT)
            with self._cond:
                due = self._queue.promote(self._clock())
                self._cond.notify_all()
            if self._clock() >= next_poll:
                self._poll_git()
                next_poll = self._clock() + pace.git_poll
            if self._clock() >= next_resync:
                self._full_pass("resync")
                next_resync = self._clock() + pace.resync
            soonest = min(next_poll, next_resync, due if due is not None else next_poll)
            self._stop.wait(min(max(soonest - self._clock(), 0.01), 1.0))

    def _start_informers(self) -> None:
        cluster = self.setup.cluster
        scopes: Sequence[str | None] = cluster.namespaces or (None,)
        for kind in (r.WEBAPP, r.DEPLOYMENT):
            for scope in scopes:
                informer = Informer(
                    self._api,
                    kind,
                    cluster.instance,
                    scope,
                    self._changed,
                    stop=self._stop,
                    notice=self._notice,
                    jitter=self._jitter,
                    list_timeout=cluster.timeout,
                )
                self._informers.append(informer)
        for kind in (r.WEBAPP, r.DEPLOYMENT):
            informers = [each for each in self._informers if each.kind is kind]
            self.metrics.gauge_of(
                f"watch_lists_{kind.plural}",
                f"LISTs of {kind.plural} (the first, then one per 410 Gone).",
                lambda these=informers: sum(each.lists for each in these),  # type: ignore[misc]
            )
            self.metrics.gauge_of(
                f"watch_watches_{kind.plural}",
                f"WATCH requests of {kind.plural} started.",
                lambda these=informers: sum(each.watches for each in these),  # type: ignore[misc]
            )
        for informer in self._informers:
            informer.start()

    def _changed(self, before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
        """An informer saw a change: queue its WebApp, unless it is nothing to act on."""
        if not all(each.synced.is_set() for each in self._informers):
            return  # the first lists: the full pass at the start covers them
        obj = after if after is not None else before
        assert obj is not None
        if self._is_own_write(obj, after is not None):
            return
        if not worth_reconciling(before, after):
            return
        place = place_of(obj)
        with self._cond:
            self._seen.setdefault(place, self._clock())
            self._queue.add(place)
            self._cond.notify()

    def _is_own_write(self, obj: dict[str, Any], present: bool) -> bool:
        """Whether this event is one of our writes coming back (core.watch.own_writes)."""
        meta = obj.get("metadata") or {}
        version = str(meta.get("resourceVersion")) if present else None
        with self._written_lock:
            return self._written.seen(_written_key(obj), version)

    def _record_write(self, request: r.Request, body: dict[str, Any]) -> None:
        """Remember the resourceVersion each write of ours answered with, unless its event
        came back already (the informer holds that version)."""
        if request.method != "PATCH" or ("dryRun", "All") in request.query:
            return
        meta = body.get("metadata") or {}
        if "resourceVersion" not in meta:
            return
        key = _written_key(body)
        place = (key[1], key[2])
        with self._written_lock:  # the informer's store is read and the write told at once
            held = next(
                (each.version_of(place) for each in self._informers if each.holds(key[0], key[1])),
                None,
            )
            self._written.wrote(key, str(meta["resourceVersion"]), held)

    @property
    def writes_pending(self) -> int:
        """Objects whose write of ours has not come back as an event yet."""
        with self._written_lock:
            return len(self._written)

    def _kube(self) -> Kube:
        """A client for one reconcile or pass: its retries bounded by --timeout."""
        return Kube(
            self._api,
            Deadline(self.setup.cluster.timeout),
            notice=self._notice,
            answered=self._record_write,
        )

    # -- one WebApp -------------------------------------------------------------------

    def _worker(self) -> None:
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
            self._notice(f"reconcile {place[0]}/{place[1]}: {failed.message}")
            self._retry_later(place)
            return
        if report.count(Outcome.FAILED):
            self._retry_later(place)
            return
        self.metrics.reconciles.labels("success").inc()
        self._backoff.succeeded(place)
        with self._cond:
            self._queue.forget(place)
        if seen is not None and any(each.outcome in CORRECTING for each in report.outcomes):
            self.metrics.corrections.observe(self._clock() - seen)

    def _retry_later(self, place: Place) -> None:
        self.metrics.reconciles.labels("failed").inc()
        when = self._backoff.failed(place, self._clock(), self._jitter())
        with self._cond:
            self._queue.add_at(place, when)

    def _reconcile(self, place: Place) -> ApplyReport:
        """The plan of one WebApp, from memory, carried out as apply does."""
        setup = self.setup
        kube = self._kube()
        focused = Goal(self.desired, setup.policy, setup.drift, focus=frozenset({place}))
        one_at_a_time = Asking(for_apply=True, concurrency=1)
        planned = make_plans(
            kube, setup.cluster, [focused], live=self._live(), asking=one_at_a_time
        )
        return self._carry_out(kube, planned.plans[0], planned.live, concurrency=1)

    def _live(self) -> LiveState:
        webapps = [o for each in self._informers if each.kind is r.WEBAPP for o in each.objects()]
        deployments = [
            o for each in self._informers if each.kind is r.DEPLOYMENT for o in each.objects()
        ]
        return LiveState.of(webapps, deployments)

    def _carry_out(self, kube: Kube, made: Plan, live: LiveState, concurrency: int) -> ApplyReport:
        assert self._lock is not None
        applier = applier_for(
            kube, self.setup.cluster, self._lock, made, self._progress, concurrency=concurrency
        )
        return applier.carry_out(made, live)

    # -- the whole instance -------------------------------------------------------------

    def _full_pass(self, reason: str) -> None:
        """The batch run's plan and apply, alone: the queue waits meanwhile."""
        with self._cond:
            self._queue.pause()
            while not self._queue.idle:
                self._cond.wait(0.5)
        try:
            self.metrics.full_passes.labels(reason).inc()
            kube = self._kube()
            setup = self.setup
            made, live = make_plan(
                kube, self.desired, setup.cluster, setup.policy, drift=setup.drift, for_apply=True
            )
            report = self._carry_out(kube, made, live, setup.cluster.concurrency)
        except DriftctlError as failed:
            self._notice(f"full {reason} pass: {failed.message}; the next one goes on")
            return
        finally:
            with self._cond:
                self._queue.resume()
                self._cond.notify_all()
        for refusal in report.refusals:
            self._notice(f"refused: {refusal}")
        failed_places = {each.key[1:] for each in report.outcomes if each.outcome is Outcome.FAILED}
        for place in sorted(failed_places):
            self._retry_later((place[0], place[1]))
        if not failed_places:
            self.metrics.applied(report.revision)
        self._say(f"full {reason} pass at {report.revision[:12]}: {_summary(report)}")

    def _look_at_git(self) -> str | None:
        self.metrics.git_polls.inc()
        return head_of(self.setup.source, self._environ)

    def _poll_git(self) -> None:
        """Look at the ref; read, validate and apply the commit only when it moved."""
        try:
            head = self._look_at_git()
            if head is not None and head == self._head:
                return
            desired = in_scope(load_desired(self.setup.source, self._environ), self.setup.cluster)
        except DriftctlError as failed:
            self._notice(f"Git: {failed.message}; still at {self.desired.revision.label[:12]}")
            return
        self._head = head
        if desired.revision == self.desired.revision and desired.webapps == self.desired.webapps:
            return
        self._say(f"Git moved to {desired.revision.label[:12]}")
        self.desired = desired
        self._full_pass("git")

    def _drain(self) -> None:
        """Let the reconciles in progress finish (bounded), then let the workers go."""
        give_up = self._clock() + DRAIN_SECONDS
        with self._cond:
            self._queue.pause()
            self._draining = True
            while not self._queue.idle and self._clock() < give_up:
                self._cond.wait(0.2)
            self._cond.notify_all()


LOST_HINT = "this process stops; started again, it waits as a standby"


def _why_lost(lock: RunLock) -> str:
    if lock.standing is Standing.OVERDUE:
        return (
            f"could not renew the Lease within its renew deadline ({lock.term.renew_deadline:g}s, "
            f"before it can expire for others at {lock.term.duration}s): stopped leading"
        )
    return "lost the Lease: another process leads now"


def _written_key(obj: dict[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return str(obj.get("kind")), str(meta.get("namespace")), str(meta.get("name"))


def _summary(report: ApplyReport) -> str:
    counts = {outcome: report.count(outcome) for outcome in Outcome}
    return (
        ", ".join(f"{count} {outcome}" for outcome, count in counts.items() if count) or "nothing"
    )
