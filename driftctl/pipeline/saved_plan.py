"""Sequencing of saved plans: `plan --out FILE` writes one, `apply --plan FILE` reads it.

Applying reads the plan, refuses it as a whole when it was made for another instance,
field manager, source or CRD (before any request), reads Git at the plan's commit, lists
the live state, dry-runs only the objects that moved since the plan (the engine's plan
sequence, pipeline.engine), and hands the core's rechecked plan to the applier
(pipeline.batch.apply). Decides nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from driftctl.core.planning.actions import Plan
from driftctl.core.planning.controls import Situation
from driftctl.core.planning.holding import holds_now
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.saved_plan import (
    CrdIdentity,
    PlanIdentity,
    SavedPlan,
    SavedPlanError,
    moved,
    parse_saved_plan,
    recheck,
    refusal,
    saved_plan_json,
    source_of,
    stale,
    unsavable,
)
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import UsageError
from driftctl.pipeline.engine import Asking, Goal, make_plans
from driftctl.pipeline.offline import load_desired
from driftctl.settings import Cluster, Drift, Policy, Shard, Source
from driftctl.shell.kube import Kube
from driftctl.shell.plan_file import read_plan_file, write_plan_file


def identity(desired: DesiredState, source: Source, cluster: Cluster, shard: Shard) -> PlanIdentity:
    """What a plan of `desired` is made for."""
    revision = desired.revision
    return PlanIdentity(
        cluster.instance,
        cluster.field_manager,
        revision.source,
        revision.revision or revision.label,
        source.namespace,
        CrdIdentity.current(),
        str(shard),
    )


def check_savable(desired: DesiredState) -> None:
    """A plan is saved only for one commit (not a dirty or uncommitted working tree)."""
    problem = unsavable(desired.revision.label, desired.revision.revision)
    if problem is not None:
        raise UsageError(f"--out: {problem}")


def save(
    path: Path, plan: Plan, live: LiveState, who: PlanIdentity, *, policy: Policy, drift: Drift
) -> None:
    """Write the plan (and the live uid/resourceVersion of each object) to `path`."""
    write_plan_file(path, saved_plan_json(plan, live, who, policy, drift))


def load(
    path: Path,
    source: Source,
    cluster: Cluster,
    shard: Shard,
    environ: Mapping[str, str],
    *,
    source_given: bool = True,
) -> tuple[SavedPlan, DesiredState, Source]:
    """The saved plan, Git at its commit, and the source it was read from; SavedPlanError
    when the plan does not belong here.

    Without `source_given` (no --repo, --path or --namespace on the command line), Git is
    read from the source the plan records, and its WebApps' default namespace is the plan's.
    """
    saved = parse_saved_plan(read_plan_file(path), str(path))
    if not source_given:
        repository, folder = source_of(saved.identity)
        source = replace(source, repo=repository, path=folder, namespace=saved.identity.namespace)
    before_git = replace(
        saved.identity,
        instance=cluster.instance,
        field_manager=cluster.field_manager,
        namespace=source.namespace,
        crd=CrdIdentity.current(),
        shard=str(shard),
    )  # all but the source, which needs Git
    _refuse_unless(path, saved.identity, before_git)
    desired = load_desired(source.at(saved.identity.commit), environ)
    _refuse_unless(path, saved.identity, identity(desired, source, cluster, shard))
    return saved, desired, source


def _refuse_unless(path: Path, saved: PlanIdentity, here: PlanIdentity) -> None:
    reason = refusal(saved, here)
    if reason is not None:
        raise SavedPlanError(str(path), reason, hint="make a new plan for this instance and source")


def replan(
    kube: Kube,
    saved: SavedPlan,
    desired: DesiredState,
    cluster: Cluster,
    shard: Shard,
    *,
    situation: Situation,
    path: Path | None = None,
) -> tuple[Plan, LiveState]:
    """The saved plan, each object that moved since checked again (its dry-runs), and each
    write a control holds now (a suspension, a closed window) held; SavedPlanError, once,
    when none of its changes can still be made (`stale`)."""
    goal = Goal(desired, saved.policy, saved.drift)
    asking = Asking(only=lambda live: moved(saved, live))
    fresh = make_plans(kube, cluster, [goal], situation=situation, shard=shard, asking=asking)
    now = holds_now(desired.webapps, fresh.live, saved.policy, situation, cluster.field_manager)
    rechecked = recheck(saved, fresh.plans[0], fresh.live, now)
    if changes := stale(saved, rechecked):
        raise SavedPlanError(
            str(path or "the plan"),
            f"this plan is stale: each of its {changes} changes was made or overtaken since it "
            "was made (applied already?); nothing was applied",
            hint="make a new plan (driftctl plan --out FILE)",
        )
    return rechecked, fresh.live
