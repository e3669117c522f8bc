"""The `plan` command's flow: desired state, live state, the exact plan; no write, no lock.

It reads (LIST pages, the instance's Lease, dry-runs) and never writes to the cluster;
`--out` writes only the saved-plan file (pipeline.saved_plan). With --verify, a commit
apply would refuse is refused the same way, against the anchor the Lease records (read,
not written). A working tree with changes is planned, and the listener warned that apply
needs --allow-dirty for it. Decides nothing, prints nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from driftctl.core.planning.actions import Plan
from driftctl.core.planning.installed_crd import notice as crd_notice
from driftctl.core.planning.live import LiveState
from driftctl.core.source.desired_state import DesiredState
from driftctl.pipeline import saved_plan, trust
from driftctl.pipeline.engine import Goal, make_plan
from driftctl.pipeline.listener import Listener
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.runs import in_scope, lease_of, open_cluster, situation_read
from driftctl.settings import PlanRequest


@dataclass(frozen=True)
class Planned:
    """A plan and the desired state it was made from."""

    desired: DesiredState
    plan: Plan
    live: LiveState

    @property
    def crd_notice(self) -> str | None:
        """What to say once about the installed CRD (its missing status fields), if anything."""
        return crd_notice(self.live.crd)


def plan(request: PlanRequest, listener: Listener, environ: Mapping[str, str]) -> Planned:
    """The `plan` command (module docstring); with `request.outputs.out`, the plan is also
    saved there for `apply --plan`."""
    source, cluster, out = request.source, request.cluster, request.outputs.out
    desired = in_scope(load_desired(source, environ), cluster)
    if (uncommitted := desired.revision.uncommitted()) is not None:
        listener.warn(f"{uncommitted}: apply needs --allow-dirty for it")
    if out is not None:
        saved_plan.check_savable(desired)
    kube = open_cluster(cluster, listener.notice)
    lease = lease_of(cluster, request.lock, request.shard)
    if request.verify.enabled:
        checking = trust.Checking(source, request.verify, environ)
        desired, _ = trust.verified_against(kube, lease, desired, checking)
    drift = replace(request.drift, show_foreign=request.outputs.show_foreign)
    goal = Goal(desired, request.policy, drift, selection=request.selection)
    said: list[str] = []  # said once there is a plan: a cluster without the CRD says only that
    situation = situation_read(kube, lease, listener.notice, said.append)
    tick = listener.progress.tick
    the_plan, live = make_plan(
        kube, cluster, goal, situation=situation, shard=request.shard, tick=tick
    )
    for line in said:
        listener.warn(line)
    if out is not None:
        who = saved_plan.identity(desired, source, cluster, request.shard)
        saved_plan.save(out, the_plan, live, who, policy=request.policy, drift=request.drift)
    return Planned(desired, the_plan, live)
