"""The passes of `watch` over the whole instance, and the Git polls that start them.

A full pass is the batch run's plan and apply (pipeline.watch.reconcile), alone: the
workers' queue is paused meanwhile, so no WebApp is worked on twice. It runs at the start,
every --resync seconds, and when the Git ref moved: the ref is looked at every --git-poll
seconds (shell.git_source.head_of), and the commit read, validated and applied only when
it moved; an invalid commit leaves the last valid one in force. With --verify, the commit
is verified against the one in force (pipeline.trust) and recorded on the Lease before it
is applied; one refused leaves the last verified one in force, and is not looked at again
until the ref moves. A WebApp that failed in a pass is retried by the workers, after its
backoff. Decides nothing.
"""

from __future__ import annotations

from dataclasses import replace

from driftctl.core.notify.facts import RunFacts
from driftctl.core.planning.installed_crd import notice as crd_notice
from driftctl.core.planning.outcomes import ApplyReport, Outcome
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import DriftctlError, UntrustedRevision
from driftctl.pipeline import trust
from driftctl.pipeline.engine import in_scope
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.reconcile import Reconciler
from driftctl.pipeline.watch.setup import Runtime, Setup
from driftctl.pipeline.watch.workers import Workers
from driftctl.shell.git_source import head_of
from driftctl.shell.lock import RunLock


class Passes:
    """Full passes and Git polls of one leading process."""

    def __init__(
        self,
        setup: Setup,
        runtime: Runtime,
        reconciler: Reconciler,
        workers: Workers,
        metrics: WatchMetrics,
        *,
        lock: RunLock,
    ) -> None:
        self._setup, self._runtime, self._metrics = setup, runtime, metrics
        self._reconciler, self._workers, self._lock = reconciler, workers, lock
        self._head: str | None = None  # the commit the ref pointed at when last looked at
        self._crd_said: str | None = None  # said once, and again only when it changes

    def start(self) -> None:
        """The first look at Git, and the first full pass."""
        self._head = self._look_at_git()
        self.full("start")

    def full(self, reason: str) -> None:
        """The batch run's plan and apply, alone: the queue waits meanwhile."""
        with self._workers.paused():
            try:
                self._metrics.full_passes.labels(reason).inc()
                report = self._reconciler.everything()
            except DriftctlError as failed:
                self._runtime.notice(f"full {reason} pass: {failed.message}; the next one goes on")
                self._runtime.heard(RunFacts(error=failed, scope=frozenset()))
                return
        said = crd_notice(self._reconciler.crd)
        if said is not None and said != self._crd_said:
            self._runtime.notice(said)
        self._crd_said = said
        for refusal in report.refusals:
            self._runtime.notice(f"refused: {refusal}")
        failed_places = {
            each.key.place for each in report.outcomes if each.outcome is Outcome.FAILED
        }
        for place in sorted(failed_places):
            self._workers.retry_later(place)
        if not failed_places:
            self._metrics.applied(report.revision)
        self._runtime.say(f"full {reason} pass at {report.revision[:12]}: {_summary(report)}")

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
        self.full("git")

    def _admit(self, desired: DesiredState) -> DesiredState:
        """`desired` verified against the revision in force, and recorded on the Lease."""
        verify = self._setup.verify
        if not verify.enabled:
            return desired
        anchor = self._reconciler.desired.revision.revision
        verified = trust.verify(desired, self._setup.source, verify, anchor, self._runtime.environ)
        record = trust.recorded(verified.revision)
        if record is not None:
            self._lock.record(record)
            self._metrics.verified(record.revision, record.key)
        return verified

    def _look_at_git(self) -> str | None:
        self._metrics.git_polls.inc()
        return head_of(self._setup.source, self._runtime.environ)


def _summary(report: ApplyReport) -> str:
    counts = {outcome: report.count(outcome) for outcome in Outcome}
    return (
        ", ".join(f"{count} {outcome}" for outcome, count in counts.items() if count) or "nothing"
    )
