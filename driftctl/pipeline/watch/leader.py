"""Leadership and the main loop of `watch`: the parts of one process, put together.

The process waits for the instance's Lease (a standby polls it every STANDBY_POLL
seconds), and while it leads: the feed lists and watches (pipeline.watch.feed), the
workers reconcile what it queues (pipeline.watch.workers), and the loop promotes retries
that are due, polls Git and runs the resyncs (pipeline.watch.passes). A stop (SIGTERM)
drains the reconciles in progress and releases the Lease; a lost Lease stops the process
(exit 6), to start again as a standby: refused by another holder, or not renewed within the
renew deadline (core.api.lease.Term), which ends before the Lease can expire for the
standby, so two leaders never act at once. Serves /healthz, /readyz and /metrics
(shell.probes). Decides nothing.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from typing import Any

from driftctl.core.api import requests as r
from driftctl.core.api.lease import Standing, Term
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import LockHeld
from driftctl.pipeline import trust
from driftctl.pipeline.engine import Notice, holder_identity, in_scope, lease_of
from driftctl.pipeline.notify import Gatherer, Teller
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.watch.feed import Feed
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.passes import Passes
from driftctl.pipeline.watch.reconcile import Reconciler
from driftctl.pipeline.watch.setup import Runtime, Setup
from driftctl.pipeline.watch.workers import Workers
from driftctl.settings import WHOLE
from driftctl.shell import probes
from driftctl.shell.apply import Progress
from driftctl.shell.kube import Deadline, Kube, connect
from driftctl.shell.lock import RunLock

STANDBY_POLL = 2.0  # seconds between a standby's looks at the Lease
DRAIN_SECONDS = 30.0  # how long a stop waits for the reconciles in progress
LOST_HINT = "this process stops; started again, it waits as a standby"


def watch(
    setup: Setup,
    *,
    environ: Mapping[str, str],
    notice: Notice,
    say: Notice,
    progress: Progress,
    stop: threading.Event,
) -> None:
    """The `watch` command, until `stop` is set: Git at the start must be valid (exit 3), and
    with --verify trusted against the last revision verified that the Lease records."""
    gatherer = _gatherer(setup, notice)
    runtime = Runtime(environ, notice, say, progress, stop)
    if gatherer is not None:
        runtime = dataclasses.replace(runtime, heard=gatherer.heard)
    desired = in_scope(load_desired(setup.source, runtime.environ), setup.cluster)
    cluster = setup.cluster
    api = connect(cluster.kubeconfig, cluster.context, pool_size=2 * cluster.concurrency + 8)
    kube = Kube(api, Deadline(cluster.timeout), notice=notice)
    lease = lease_of(cluster, setup.lock)
    desired, anchor = trust.verified_against(
        kube, lease, desired, setup.source, setup.verify, environ=environ
    )
    controller = Controller(setup, api, desired, runtime, anchor=anchor)
    where = (setup.pace.metrics_host, setup.pace.metrics_port)
    server = probes.serve(where, controller.metrics.registry, controller.ready)
    host, port = server.server_address[:2]
    runtime.say(f"serving /healthz, /readyz and /metrics on {host!s}:{port}")
    if gatherer is not None:
        threading.Thread(target=gatherer.run, args=(stop,), name="notify", daemon=True).start()
    try:
        controller.run()
    finally:
        server.shutdown()
        if gatherer is not None:
            gatherer.flush()


def _gatherer(setup: Setup, warn: Notice) -> Gatherer | None:
    """Whom watch's digests go to, one per --notify-window (None: nobody)."""
    if not setup.notify.anyone:
        return None
    return Gatherer(Teller(setup.notify, setup.cluster, setup.lock, WHOLE, warn))


class Controller:
    """One watch process: its Lease, and the feed, workers and passes it runs while leading."""

    def __init__(
        self,
        setup: Setup,
        api: Any,
        desired: DesiredState,
        runtime: Runtime,
        *,
        anchor: str | None = None,
    ) -> None:
        self.setup, self._runtime = setup, runtime
        self._anchor = anchor  # the last revision verified, as the Lease recorded it (--verify)
        self.metrics = WatchMetrics()
        lease_kube = Kube(
            api, Deadline(float("inf")), notice=runtime.notice, answered=self._lease_written
        )
        self._lease = lease_of(setup.cluster, setup.lock)
        term = Term.of(setup.pace.lease_duration)
        self._lock = RunLock(lease_kube, self._lease, holder_identity(), term=term)
        self._feed = Feed(api, setup.cluster, runtime, self.metrics)
        self._reconciler = reconciler = Reconciler(
            setup,
            desired,
            live=self._feed.live,
            client=self._feed.client,
            lock=self._lock,
            progress=runtime.progress,
            heard=runtime.heard,
        )
        self._workers = Workers(reconciler.one, runtime, self.metrics)
        self._passes = Passes(
            setup, runtime, reconciler, self._workers, self.metrics, lock=self._lock
        )
        self._started = False  # the first full pass has run
        self._standby = False  # another process holds the Lease

    def run(self) -> None:
        """Lead (once the Lease is ours) until stopped; raises LockHeld when it is lost."""
        lease = self._lease.display
        if not self._lead():
            return
        with self._lock:
            self.metrics.leader.set(1)
            self._runtime.say(f"leading: holds {lease}")
            try:
                self._work()
            finally:
                self._workers.drain(DRAIN_SECONDS)
                self.metrics.leader.set(0)
        self._runtime.say(f"stopped: released {lease}")

    def ready(self) -> bool:
        """A standby is (it can take over); a leader once it listed everything and its first
        full pass is done."""
        if self._standby:
            return True
        return self._started and self._feed.synced

    def _lead(self) -> bool:
        """Take the Lease, waiting as a standby while another process holds it."""
        stop, told = self._runtime.stop, False
        while not stop.is_set():
            try:
                self._take()
                self._standby = False
                return True
            except LockHeld as held:
                self._standby = True
                if not told:
                    self._runtime.say(f"standby: {held.message}")
                    told = True
            stop.wait(STANDBY_POLL)
        return False

    def _take(self) -> None:
        """Take the Lease; with --verify, recording the revision this process verified,
        or (when another leader recorded a newer one meanwhile) Git's, verified afresh."""
        setup, runtime, reconciler = self.setup, self._runtime, self._reconciler

        def reload() -> DesiredState:
            return in_scope(load_desired(setup.source, runtime.environ), setup.cluster)

        reconciler.desired = trust.take_lock(
            self._lock,
            reconciler.desired,
            setup.source,
            setup.verify,
            timeout=0,
            anchor=self._anchor,
            environ=runtime.environ,
            reload=reload,
        )
        verified = reconciler.desired.revision.verified
        if verified is not None:
            self._anchor = verified[0]
            self.metrics.verified(*verified)

    def _lease_written(self, request: r.Request, body: dict[str, Any]) -> None:
        if request.method in ("PUT", "POST"):
            self.metrics.lease_writes.inc()

    def _work(self) -> None:
        """Start the feed and the workers, run the first pass, then keep time until stopped."""
        stop, clock, pace = self._runtime.stop, self._runtime.clock, self.setup.pace
        self._feed.start(self._workers.add)
        while not self._feed.synced:
            if stop.wait(0.05):
                return
        self._workers.start(self.setup.cluster.concurrency)
        self._passes.start()
        self._started = True
        next_poll = clock() + pace.git_poll
        next_resync = clock() + pace.resync
        while not stop.is_set():
            if self._lock.lost:
                raise LockHeld(_why_lost(self._lock), hint=LOST_HINT)
            due = self._workers.promote()
            if clock() >= next_poll:
                self._passes.poll_git()
                next_poll = clock() + pace.git_poll
            if clock() >= next_resync:
                self._passes.full("resync")
                next_resync = clock() + pace.resync
            soonest = min(next_poll, next_resync, due if due is not None else next_poll)
            stop.wait(min(max(soonest - clock(), 0.01), 1.0))


def _why_lost(lock: RunLock) -> str:
    if lock.standing is Standing.OVERDUE:
        return (
            f"could not renew the Lease within its renew deadline ({lock.term.renew_deadline:g}s, "
            f"before it can expire for others at {lock.term.duration}s): stopped leading"
        )
    return "lost the Lease: another process leads now"
