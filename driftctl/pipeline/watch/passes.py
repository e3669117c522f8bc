"""The passes of `watch` over the whole instance, and the Git polls that start them.

A full pass is the batch run's plan and apply (pipeline.watch.reconcile), alone: the
workers' queue is paused meanwhile, so no WebApp is worked on twice. It runs at the start,
every --resync seconds, and when the Git ref moved: the ref is looked at every --git-poll
seconds (shell.git_source.head_of), and the commit read, validated and applied only when
it moved; an invalid commit leaves the last valid one in force. A WebApp that failed in a
pass is retried by the workers, after its backoff. Decides nothing.
"""

from __future__ import annotations

from driftctl.core.planning.installed_crd import notice as crd_notice
from driftctl.core.planning.outcomes import ApplyReport, Outcome
from driftctl.errors import DriftctlError
from driftctl.pipeline.engine import in_scope
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.reconcile import Reconciler
from driftctl.pipeline.watch.setup import Runtime, Setup
from driftctl.pipeline.watch.workers import Workers
from driftctl.shell.git_source import head_of


class Passes:
    """Full passes and Git polls of one leading process."""

    def __init__(
        self,
        setup: Setup,
        runtime: Runtime,
        reconciler: Reconciler,
        workers: Workers,
        metrics: WatchMetrics,
    ) -> None:
        self._setup, self._runtime, self._metrics = setup, runtime, metrics
        self._reconciler, self._workers = reconciler, workers
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
            return
        self._head = head
        if desired.revision == current.revision and desired.webapps == current.webapps:
            return
        runtime.say(f"Git moved to {desired.revision.label[:12]}")
        self._reconciler.desired = desired
        self.full("git")

    def _look_at_git(self) -> str | None:
        self._metrics.git_polls.inc()
        return head_of(self._setup.source, self._runtime.environ)


def _summary(report: ApplyReport) -> str:
    counts = {outcome: report.count(outcome) for outcome in Outcome}
    return (
        ", ".join(f"{count} {outcome}" for outcome, count in counts.items() if count) or "nothing"
    )
