"""What `watch` does with one WebApp (a worker's reconcile), and with all of them (a full
pass), both through the engine (pipeline.engine) and carried out under the Lease.

One WebApp: the plan sequence for that WebApp alone (a focus: the prune guards still count
the whole instance), from a live view (the feed's memory) instead of LISTs, one dry-run at
a time, then the same applier as apply, one write at a time. A full pass: the batch run's
plan and apply, exactly (fresh LISTs, --concurrency). Built from a live view, a client and
the lock, so one WebApp's reconcile runs against a cluster without the rest of the process.
The installed CRD is read by each full pass and kept (`crd`) for the reconciles between.
Decides nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from driftctl.core.notify.facts import RunFacts
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.installed_crd import OWN, InstalledCrd
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.outcomes import ApplyReport
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import Place
from driftctl.pipeline.engine import Asking, Goal, applier_for, make_plan, make_plans
from driftctl.pipeline.watch.setup import Setup
from driftctl.shell.apply import Progress
from driftctl.shell.kube import Kube
from driftctl.shell.lock import RunLock

ONE_AT_A_TIME = Asking(for_apply=True, concurrency=1)


class Reconciler:
    """Plans and carries out toward `desired`, under `lock`."""

    def __init__(
        self,
        setup: Setup,
        desired: DesiredState,
        *,
        live: Callable[[], LiveState],
        client: Callable[[], Kube],
        lock: RunLock,
        progress: Progress,
        heard: Callable[[RunFacts], None] = lambda facts: None,
    ) -> None:
        self.desired = desired  # replaced when Git moves (pipeline.watch.passes)
        self._setup, self._live, self._client = setup, live, client
        self._lock, self._progress, self._heard = lock, progress, heard
        self.crd: InstalledCrd = OWN  # as the last full pass read it

    def one(self, place: Place) -> ApplyReport:
        """The plan of the WebApp at `place`, from the live view, carried out as apply does."""
        setup = self._setup
        kube = self._client()
        focused = Goal(self.desired, setup.policy, setup.drift, focus=frozenset({place}))
        live = replace(self._live(), crd=self.crd)
        planned = make_plans(kube, setup.cluster, [focused], live=live, asking=ONE_AT_A_TIME)
        plan = planned.plans[0]
        report = self._carry_out(kube, plan, planned.live, concurrency=1)
        self._heard(RunFacts(plan.revision, plan, report, scope=frozenset({place})))
        return report

    def everything(self) -> ApplyReport:
        """The batch run's plan and apply, from fresh LISTs."""
        setup = self._setup
        kube = self._client()
        plan, live = make_plan(
            kube, self.desired, setup.cluster, setup.policy, drift=setup.drift, for_apply=True
        )
        self.crd = live.crd
        report = self._carry_out(kube, plan, live, concurrency=setup.cluster.concurrency)
        self._heard(RunFacts(plan.revision, plan, report))
        return report

    def _carry_out(self, kube: Kube, plan: Plan, live: LiveState, concurrency: int) -> ApplyReport:
        applier = applier_for(
            kube,
            self._setup.cluster,
            self._lock,
            plan,
            self._progress,
            concurrency=concurrency,
            verified=self.desired.revision.verified,
        )
        return applier.carry_out(plan, live)
