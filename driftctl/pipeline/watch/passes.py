"""The passes of `watch` over the whole instance, and the Git polls that start them.

A full pass plans the whole instance (shard) as apply would, from the watch's memory
(pipeline.watch.reconcile `survey`: the informers listed everything at the start, and
keep it), sends nothing but the lookups of others' objects, and hands each WebApp with
work to the workers (core.watch.work), behind any correction of drift: the queue is never
paused for a pass, and a person's edit never waits for the rest of one. What it found of
the others (unchanged, drift held back) is told to the notifications as a reconcile's
facts are. A WebApp the last pass found equal to Git, and that did not change since, is
settled (core.watch.census): a resync plans only the others, so over a quiet instance it
costs next to nothing. The pass is done once each WebApp it queued was reconciled
(`PassTally`); the process is ready after its first. It runs at the start, every
--resync seconds, and when the Git ref moved: the ref is looked at every --git-poll
seconds (shell.git_source.head_of), and the commit read, validated and applied only when
it moved; an invalid commit leaves the last valid one in force. With --verify, the commit
is verified against the one in force (pipeline.trust) and recorded on the Lease before it
is applied; one refused leaves the last verified one in force, and is not looked at again
until the ref moves. Decides nothing.
"""

from __future__ import annotations

import datetime
import threading
from dataclasses import replace

from driftctl.core.notify.facts import RunFacts
from driftctl.core.planning.actions import Plan, outcome_of
from driftctl.core.planning.installed_crd import notice as crd_notice
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import Place
from driftctl.core.watch.queue import Urgency
from driftctl.core.watch.work import PassTally, work_of
from driftctl.errors import DriftctlError, UntrustedRevision
from driftctl.pipeline import trust
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.runs import in_scope
from driftctl.pipeline.watch.feed import Feed
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.reconcile import Reconciler
from driftctl.pipeline.watch.setup import Runtime
from driftctl.pipeline.watch.workers import Workers
from driftctl.settings import WatchRequest
from driftctl.shell.git_source import head_of
from driftctl.shell.lock import RunLock


class Passes:
    """Full passes and Git polls of one leading process."""

    def __init__(
        self,
        setup: WatchRequest,
        runtime: Runtime,
        reconciler: Reconciler,
        *,
        feed: Feed,
        workers: Workers,
        metrics: WatchMetrics,
        lock: RunLock,
    ) -> None:
        self._setup, self._runtime, self._metrics = setup, runtime, metrics
        self._reconciler, self._feed, self._workers = reconciler, feed, workers
        self._lock = lock
        self._head: str | None = None  # the commit the ref pointed at when last looked at
        self._tally: PassTally | None = None
        self._guard = threading.Lock()  # the tally
        self.first_done = threading.Event()  # the first pass's WebApps were all reconciled
        workers.finished = self.reconciled
        self._crd_said: str | None = None  # said once, and again only when it changes

    def start(self) -> None:
        """The first full pass. Git is not looked at here: the desired state was read when
        the process started, and a commit made since must still count as a move, so the
        first poll reads Git whole once and compares what it declares."""
        self.full("start")

    def full(self, reason: str) -> None:
        """Plan the instance from memory (the WebApps not settled); queue each with work."""
        self._metrics.full_passes.labels(reason).inc()
        whole = self._feed.whole()
        unsettled = self._feed.unsettled(whole)
        everything = {*whole.webapps, *whole.deployments, *self._reconciler.desired.by_place}
        focus = None if unsettled >= everything else unsettled
        try:
            planned = self._reconciler.survey(whole, focus)
        except DriftctlError as failed:
            self._runtime.notice(f"full {reason} pass: {failed.message}; the next one goes on")
            self._runtime.heard(RunFacts(error=failed, scope=frozenset()))
            return
        said = crd_notice(self._reconciler.crd)
        if said is not None and said != self._crd_said:
            self._runtime.notice(said)
        self._crd_said = said
        [plan] = planned.plans
        for refusal in plan.refusals:
            self._runtime.notice(f"refused: {refusal}")
        work = work_of(plan, planned.live, datetime.datetime.now(datetime.UTC))
        self._feed.settle(work.settled, whole)
        queued = list(work.busy)
        self._runtime.heard(_quiet_facts(plan, set(queued)))
        tally = PassTally.of(reason, plan, queued)
        with self._guard:
            self._tally = tally
        count = f"{len(queued)} WebApp{'' if len(queued) == 1 else 's'}"
        self._runtime.say(f"full {reason} pass at {plan.revision[:12]}: {count} to reconcile")
        self._workers.add_all(queued, Urgency.PASS)
        if not queued:
            self._finish(tally)

    def reconciled(self, place: Place, report: ApplyReport | None) -> None:
        """A worker reconciled `place`: the pass is done after its last WebApp."""
        with self._guard:
            tally = self._tally
            if tally is None or not tally.reconciled(place, report):
                return
        self._finish(tally)

    def _finish(self, tally: PassTally) -> None:
        if not tally.failed:
            self._metrics.applied(tally.revision)
        self._runtime.say(f"full {tally.reason} pass at {tally.revision[:12]}: {tally.summary()}")
        self.first_done.set()

    def poll_git(self) -> None:
        """Look at the ref; read, validate and apply the commit only when it moved."""
        setup, runtime = self._setup, self._runtime
        current = self._reconciler.desired
        try:
            head = self._look_at_git()
            if head is not None and head == self._head:
                return
            desired = in_scope(load_desired(setup.source, runtime.environ), setup.cluster)
        except DriftctlError as failed:
            runtime.notice(f"Git: {failed.message}; still at {current.revision.label[:12]}")
            runtime.heard(RunFacts(current.revision.label, error=failed, scope=frozenset()))
            return
        unverified = replace(current.revision, verified_by=None)
        if desired.revision == unverified and desired.webapps == current.webapps:
            self._head = head
            return
        try:
            desired = self._admit(desired)
        except UntrustedRevision as refused:
            runtime.notice(f"refused: {refused.message}")
            runtime.heard(RunFacts(current.revision.label, error=refused, scope=frozenset()))
            self._head = head  # looked at again once the ref moves
            return
        except DriftctlError as failed:
            runtime.notice(f"Git: {failed.message}; still at {current.revision.label[:12]}")
            runtime.heard(RunFacts(current.revision.label, error=failed, scope=frozenset()))
            return
        self._head = head
        runtime.say(f"Git moved to {desired.revision.label[:12]}")
        self._reconciler.desired = desired
        self._feed.want(desired.by_place)
        self.full("git")

    def _admit(self, desired: DesiredState) -> DesiredState:
        """`desired` verified against the revision in force, and recorded on the Lease."""
        verify = self._setup.verify
        if not verify.enabled:
            return desired
        anchor = self._reconciler.desired.revision.revision
        checking = trust.Checking(self._setup.source, verify, self._runtime.environ)
        verified = trust.verify(desired, checking, anchor)
        record = trust.recorded(verified.revision)
        if record is not None:
            self._lock.record(record)
            self._metrics.verified(record.revision, record.key)
        return verified

    def _look_at_git(self) -> str | None:
        self._metrics.git_polls.inc()
        return head_of(self._setup.source, self._runtime.environ)


def _quiet_facts(plan: Plan, queued: set[Place]) -> RunFacts:
    """What the pass found of the WebApps it queued nothing for, as their reconcile would
    report it (nothing sent: unchanged, or drift held back), and the guards' refusals."""
    actions = tuple(action for action in plan.actions if action.key.place not in queued)
    outcomes = tuple(ObjectOutcome(a.key, outcome_of(a), a.reason) for a in actions)
    report = ApplyReport(outcomes, plan.revision, plan.refusals)
    scope = frozenset(action.key.place for action in actions)
    return RunFacts(plan.revision, Plan(actions, revision=plan.revision), report, scope=scope)
