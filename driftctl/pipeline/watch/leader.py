"""Leadership and the main loop of `watch`: the parts of one process, put together.

The process waits for a Lease (the instance's; with --shard-count, the one asked for or
any free shard's; a standby polls them every STANDBY_POLL seconds), and while it leads:
the feed lists and watches (pipeline.watch.feed), the workers reconcile what it queues
(pipeline.watch.workers), and the loop promotes retries that are due, polls Git and runs
the resyncs (pipeline.watch.passes). With --verify the Lease is taken recording the
revision verified (pipeline.trust); with receivers, the digests of what the shard's
reconciles did go out every --notify-window (pipeline.notify). A stop (SIGTERM) drains
the reconciles in progress and releases the Lease; a lost Lease stops the process (exit
6), to start again as a standby: refused by another holder, or not renewed within the
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
from driftctl.pipeline.notify import Gatherer, Teller
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.runs import Notice, holder_identity, in_scope, lease_of
from driftctl.pipeline.watch.feed import Feed
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.passes import Passes
from driftctl.pipeline.watch.reconcile import Memory, Reconciler
from driftctl.pipeline.watch.setup import Runtime
from driftctl.pipeline.watch.workers import Workers
from driftctl.settings import Shard, WatchRequest
from driftctl.shell import probes
from driftctl.shell.apply import Progress
from driftctl.shell.kube import Deadline, Kube, connect
from driftctl.shell.kube_credentials import Connection
from driftctl.shell.lock import RunLock

STANDBY_POLL = 2.0  # seconds between a standby's looks at the Lease
DRAIN_SECONDS = 30.0  # how long a stop waits for the reconciles in progress


def pool_size(concurrency: int) -> int:
    """The most connections the watch's HTTP pool keeps open to the API server: room for
    `concurrency` workers' requests and the informers' streams and Lease renewals beside
    them."""
    return 2 * concurrency + 8


LOST_HINT = "this process stops; started again, it waits as a standby"


def watch(
    setup: WatchRequest,
    *,
    environ: Mapping[str, str],
    notice: Notice,
    say: Notice,
    progress: Progress,
    stop: threading.Event,
) -> None:
    """The `watch` command, until `stop` is set: Git at the start must be valid (exit 3), and
    with --verify trusted against the last revision verified that the Lease records."""
    runtime = Runtime(environ, notice, say, progress, stop)
    desired = in_scope(load_desired(setup.source, runtime.environ), setup.cluster)
    cluster = setup.cluster
    api = connect(cluster.kubeconfig, cluster.context, pool_size=pool_size(cluster.concurrency))
    kube = Kube(api, Deadline(cluster.timeout), notice=notice)
    lease = lease_of(cluster, setup.lock, setup.pace.shards[0])
    checking = trust.Checking(setup.source, setup.verify, environ)
    desired, anchor = trust.verified_against(kube, lease, desired, checking)
    controller = Controller(setup, api, desired, runtime, anchor=anchor)
    where = (setup.pace.metrics_host, setup.pace.metrics_port)
    server = probes.serve(where, controller.metrics.registry, controller.ready)
    host, port = server.server_address[:2]
    runtime.say(f"serving /healthz, /readyz and /metrics on {host!s}:{port}")
    try:
        controller.run()
    finally:
        server.shutdown()


def _gatherer(setup: WatchRequest, shard: Shard, warn: Notice) -> Gatherer | None:
    """Whom the digests of one shard's watch go to, one per --notify-window (None: nobody)."""
    if not setup.notify.anyone:
        return None
    return Gatherer(Teller(setup.notify, setup.cluster, setup.lock, shard, warn))


class Controller:
    """One watch process: its Lease, and the feed, workers and passes it runs while leading."""

    def __init__(
        self,
        setup: WatchRequest,
        api: Connection,
        desired: DesiredState,
        runtime: Runtime,
        *,
        anchor: str | None = None,
    ) -> None:
        self.setup, self._runtime, self._api, self._desired = setup, runtime, api, desired
        self._anchor = anchor  # the last revision verified, as the Lease recorded it (--verify)
        self.metrics = WatchMetrics()
        self._lease_kube = Kube(
            api, Deadline(float("inf")), notice=runtime.notice, answered=self._lease_written
        )
        self._term = Term.of(int(setup.pace.lease_duration))
        self._leading: Leading | None = None
        self._standby = False  # other processes hold the Lease (each shard's)

    def run(self) -> None:
        """Lead (once a Lease is ours) until stopped; raises LockHeld when it is lost."""
        taken = self._lead()
        if taken is None:
            return
        lock, shard = taken
        lease = lock.ref.display
        runtime, gatherer = self._runtime, _gatherer(self.setup, shard, self._runtime.notice)
        if gatherer is not None:
            runtime = dataclasses.replace(runtime, heard=gatherer.heard)
            threading.Thread(
                target=gatherer.run, args=(runtime.stop,), name="notify", daemon=True
            ).start()
        with lock:
            leading = self._leading = Leading(
                self.setup, self._api, self._desired, runtime,
                metrics=self.metrics, lock=lock, shard=shard,
            )  # fmt: skip
            self.metrics.leader.set(1)
            if shard.sharded:
                self.metrics.shard.labels(f"{shard.index}/{shard.count}").set(1)
            runtime.say(f"leading: holds {lease}" + (f" ({shard})" if shard.sharded else ""))
            try:
                leading.work()
            finally:
                leading.workers.drain(DRAIN_SECONDS)
                self.metrics.leader.set(0)
                if gatherer is not None:
                    gatherer.flush()
        runtime.say(f"stopped: released {lease}")

    def ready(self) -> bool:
        """A standby is (it can take over); a leader once it listed everything and its first
        full pass is done."""
        if self._standby:
            return True
        leading = self._leading
        return leading is not None and leading.ready()

    def _lead(self) -> tuple[RunLock, Shard] | None:
        """Take a Lease (of the shard asked for, or of any free one), waiting as a standby
        while other processes hold them all."""
        stop, told = self._runtime.stop, False
        while not stop.is_set():
            refusal = ""
            for shard in self.setup.pace.shards:
                try:
                    lock = self._take(shard)
                except LockHeld as held:
                    refusal = held.message
                    continue
                self._standby = False
                return lock, shard
            if not told:  # said before it reports ready as a standby
                self._runtime.say(f"standby: {refusal}")
                told = True
            self._standby = True
            stop.wait(STANDBY_POLL)
        return None

    def _take(self, shard: Shard) -> RunLock:
        """Take the Lease of `shard` (LockHeld: another process holds it); with --verify,
        recording the revision this process verified, or (when another leader recorded a
        newer one meanwhile) Git's, verified afresh."""
        setup, runtime = self.setup, self._runtime
        ref = lease_of(setup.cluster, setup.lock, shard)
        lock = RunLock(self._lease_kube, ref, holder_identity(), term=self._term)

        def reload() -> DesiredState:
            return in_scope(load_desired(setup.source, runtime.environ), setup.cluster)

        checking = trust.Checking(setup.source, setup.verify, runtime.environ)
        self._desired = trust.take_lock(
            lock,
            self._desired,
            checking,
            timeout=0,
            anchor=self._anchor,
            reload=reload,
        )
        verified = self._desired.revision.verified
        if verified is not None:
            self._anchor = verified[0]
            self.metrics.verified(*verified)
        return lock

    def _lease_written(self, request: r.Request, body: dict[str, Any]) -> None:
        if request.method in ("PUT", "POST"):
            self.metrics.lease_writes.inc()


class Leading:
    """What a process runs while it leads one shard (or the whole instance): the feed, the
    workers and the passes, and the loop that keeps time."""

    def __init__(
        self,
        setup: WatchRequest,
        api: Connection,
        desired: DesiredState,
        runtime: Runtime,
        *,
        metrics: WatchMetrics,
        lock: RunLock,
        shard: Shard,
    ) -> None:
        self._setup, self._runtime, self._lock = setup, runtime, lock
        self.feed = Feed(api, setup.cluster, shard, runtime, metrics)
        self.reconciler = Reconciler(
            setup,
            desired,
            memory=Memory(self.feed.view, self.feed.counts, self.feed.client),
            lock=lock,
            progress=runtime.progress,
            shard=shard,
            heard=runtime.heard,
            warn=runtime.notice,
        )
        self.workers = Workers(self.reconciler.one, runtime, metrics)
        self.passes = Passes(
            setup, runtime, self.reconciler,
            feed=self.feed, workers=self.workers, metrics=metrics, lock=lock,
        )  # fmt: skip

    def ready(self) -> bool:
        return self.passes.first_done.is_set() and self.feed.synced

    def work(self) -> None:
        """Start the feed and the workers, run the first pass, then keep time until stopped."""
        stop, clock, pace = self._runtime.stop, self._runtime.clock, self._setup.pace
        self.feed.start(self.workers.add, self.reconciler.desired.by_place)
        while not self.feed.synced:
            if stop.wait(0.05):
                return
        self.workers.start(self._setup.cluster.concurrency)
        self.passes.start()
        next_poll = clock() + pace.git_poll
        next_resync = clock() + pace.resync
        while not stop.is_set():
            if self._lock.lost:
                raise LockHeld(_why_lost(self._lock), hint=LOST_HINT)
            due = self.workers.promote()
            if clock() >= next_poll:
                self.passes.poll_git()
                next_poll = clock() + pace.git_poll
            if clock() >= next_resync:
                self.passes.full("resync")
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
