"""The batch job's flows: plan and apply (desired state, live state, plan; the lock), unlock.

`plan` reads (LIST pages and dry-runs) and never writes to the cluster (`--out` writes
only the saved-plan file). `apply` takes the run lock first, then plans (or, with
`--plan`, checks a saved plan: pipeline.saved_plan) and carries the plan out, and when the
run ends (however it ends) pushes its metrics to the Pushgateway, if one is given; with
receivers to notify (pipeline.notify), it then tells them what is new, once (a digest,
alerts, the commit's status). `unlock` frees the lock. A sharded run does all of this for
its own shard: its part of the plan, its own Lease, its own metrics group. Each function
is one command's flow over the engine (pipeline.engine: the plan sequence, the applier
under the run lock); none decides anything itself or prints anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from driftctl import conventions as c
from driftctl.core.api.lease import LeaseRef
from driftctl.core.notify.facts import RunFacts
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.installed_crd import notice as crd_notice
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.outcomes import ApplyReport
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import Declined, DriftctlError, ExitCode, LockHeld, UsageError
from driftctl.pipeline import saved_plan, trust
from driftctl.pipeline.engine import (
    Notice,
    applier_for,
    holder_identity,
    in_scope,
    lease_of,
    make_plan,
    open_cluster,
    situation_held,
    situation_read,
)
from driftctl.pipeline.notify import Teller
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.waiting import wait_for_rollouts
from driftctl.render.metrics import RunResult, grouping_key, run_registry
from driftctl.settings import (
    EVERYTHING,
    NO_VERIFY,
    NO_WAIT,
    WHOLE,
    Cluster,
    Drift,
    Lock,
    Metrics,
    Notify,
    Policy,
    Selection,
    Shard,
    Source,
    Verify,
    Wait,
)
from driftctl.shell.apply import Progress, Tick, no_tick
from driftctl.shell.lock import RunLock, break_lock
from driftctl.shell.pushgateway import push_add


def _ignore(_: object) -> None:
    """A callback nobody listens to."""


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


def plan(
    source: Source,
    cluster: Cluster,
    policy: Policy,
    *,
    drift: Drift | None = None,
    shard: Shard = WHOLE,
    environ: Mapping[str, str],
    notice: Notice,
    out: Path | None = None,
    tick: Tick = no_tick,
    verify: Verify = NO_VERIFY,
    lock: Lock | None = None,
    warn: Notice = _ignore,
    selection: Selection = EVERYTHING,
) -> Planned:
    """The `plan` command: what apply would do, with no write and no lock (its Lease is
    read: it may suspend the instance); with `out`, the plan is also saved there for
    `apply --plan`. With `verify`, a commit apply would refuse is refused the same way (the
    anchor read from `lock`'s Lease, not written). A working tree with changes is planned,
    and `warn` told that apply needs --allow-dirty for it. With `selection`, only the
    WebApps it picks (pipeline.engine.Goal)."""
    desired = in_scope(load_desired(source, environ), cluster)
    if (uncommitted := desired.revision.uncommitted()) is not None:
        warn(f"{uncommitted}: apply needs --allow-dirty for it")
    if out is not None:
        saved_plan.check_savable(desired)
    kube = open_cluster(cluster, notice)
    lease = lease_of(cluster, lock or Lock(), shard)
    if verify.enabled:
        desired, _ = trust.verified_against(kube, lease, desired, source, verify, environ=environ)
    said: list[str] = []  # said once there is a plan: a cluster without the CRD says only that
    situation = situation_read(kube, lease, notice, said.append)
    the_plan, live = make_plan(
        kube,
        desired,
        cluster,
        policy,
        shard,
        situation=situation,
        drift=drift,
        tick=tick,
        selection=selection,
    )
    for line in said:
        warn(line)
    if out is not None:
        who = saved_plan.identity(desired, source, cluster, shard)
        saved_plan.save(out, the_plan, live, who, policy=policy, drift=drift or Drift())
    return Planned(desired, the_plan, live)


def apply(
    source: Source,
    cluster: Cluster,
    policy: Policy,
    lock: Lock,
    *,
    drift: Drift | None = None,
    shard: Shard = WHOLE,
    metrics: Metrics | None = None,
    notify: Notify | None = None,
    environ: Mapping[str, str],
    notice: Notice,
    progress: Progress,
    warn: Notice = _ignore,
    planned: Callable[[Plan], None] = _ignore,
    wall_clock: Callable[[], float] = time.time,
    plan_file: Path | None = None,
    verify: Verify = NO_VERIFY,
    wait: Wait = NO_WAIT,
    source_given: bool = True,
    allow_dirty: bool = False,
    selection: Selection = EVERYTHING,
    confirm: Callable[[Plan], bool] | None = None,
) -> ApplyReport:
    """The `apply` command: lock, plan, carry out, write status; one outcome per object.

    Metrics are pushed when the run ends, failed or not; a push that fails is a warning
    (`warn`), never a failed run; so is a notification (`notify`) that fails, sent after
    that (a run stopped by the lock or interrupted tells nobody). `planned` hears the plan
    before it is carried out, and `confirm`, when given, may stop it (Declined, nothing
    written). With `plan_file`, the saved plan is carried out instead (pipeline.saved_plan),
    read from the source it records unless `source_given`. With `verify`, its commit is
    verified before anything is planned (pipeline.trust). A working tree with changes is
    refused unless `allow_dirty`; `selection` limits the run to the WebApps it picks. With
    `wait`, the rollouts of the WebApps it changed are then followed to their end, under the
    same lock (pipeline.waiting).
    """
    push = _pusher(cluster, shard, metrics, warn, wall_clock)
    teller = Teller(notify or Notify(), cluster, lock, shard, warn)
    seen: list[Plan] = []

    def heard(plan: Plan) -> None:
        seen.append(plan)
        planned(plan)

    try:
        report, verified = _carry_out(
            source,
            cluster,
            policy,
            lock,
            drift=drift,
            shard=shard,
            environ=environ,
            notice=notice,
            warn=warn,
            progress=progress,
            planned=heard,
            plan_file=plan_file,
            verify=verify,
            wait=wait,
            source_given=source_given,
            allow_dirty=allow_dirty,
            selection=selection,
            confirm=confirm,
        )
    except LockHeld as held:
        push(held.exit_code, None, None)
        raise
    except DriftctlError as error:
        push(error.exit_code, None, None)
        plan = seen[0] if seen else None
        teller.tell_run(RunFacts(plan.revision if plan else "", plan, error=error))
        raise
    except KeyboardInterrupt:
        push(ExitCode.INTERRUPTED, None, None)
        raise
    push(report.exit_code, report, verified)
    plan = seen[0] if seen else None
    revision = report.revision or (plan.revision if plan else "")
    if plan is None:
        teller.tell_run(RunFacts(revision, report=report))
    else:
        teller.tell_run(RunFacts.of_report(revision, plan, report))
    return report


def _pusher(
    cluster: Cluster,
    shard: Shard,
    metrics: Metrics | None,
    warn: Notice,
    wall_clock: Callable[[], float],
) -> Callable[[int, ApplyReport | None, tuple[str, str] | None], None]:
    """What pushes a run's metrics when it ends (nothing without --pushgateway)."""
    started = time.monotonic()

    def push(code: int, report: ApplyReport | None, verified: tuple[str, str] | None) -> None:
        if metrics is None or metrics.pushgateway is None:
            return
        took = time.monotonic() - started
        result = RunResult(code, wall_clock(), took, shard, report, verified)
        group = grouping_key(cluster.instance, shard)
        failed = push_add(metrics.pushgateway, c.METRICS_JOB, group, run_registry(result))
        if failed is not None:
            warn(f"metrics not pushed: {failed}")

    return push


def _carry_out(
    source: Source,
    cluster: Cluster,
    policy: Policy,
    lock: Lock,
    *,
    drift: Drift | None,
    shard: Shard,
    environ: Mapping[str, str],
    notice: Notice,
    warn: Notice,
    progress: Progress,
    planned: Callable[[Plan], None],
    plan_file: Path | None,
    verify: Verify,
    wait: Wait,
    source_given: bool,
    allow_dirty: bool,
    selection: Selection,
    confirm: Callable[[Plan], bool] | None,
) -> tuple[ApplyReport, tuple[str, str] | None]:
    """The run under the lock: its report, and the commit verified with its signer."""
    saved = None
    if plan_file is None:
        desired = in_scope(load_desired(source, environ), cluster)  # bad input: no request
        desired = _committed(desired, allow_dirty)
    else:
        saved, desired, source = saved_plan.load(
            plan_file, source, cluster, shard, environ, source_given=source_given
        )
        desired = in_scope(desired, cluster)
        source = source.at(desired.revision.revision)
    kube = open_cluster(cluster, notice)
    lease = lease_of(cluster, lock, shard)
    # A commit --verify refuses is refused before the lock: nothing is written.
    desired, anchor = trust.verified_against(kube, lease, desired, source, verify, environ=environ)
    run_lock = RunLock(kube, lease, holder_identity())
    desired = trust.take_lock(
        run_lock,
        desired,
        source,
        verify,
        timeout=lock.timeout,
        anchor=anchor,
        environ=environ,
        waiting=notice,
    )
    with run_lock:
        situation = situation_held(run_lock, lease)
        if saved is None:
            the_plan, live = make_plan(
                kube,
                desired,
                cluster,
                policy,
                shard,
                situation=situation,
                drift=drift,
                for_apply=True,
                tick=progress.tick,
                selection=selection,
            )
        else:
            the_plan, live = saved_plan.replan(
                kube, saved, desired, cluster, shard, situation=situation, path=plan_file
            )
        said = crd_notice(live.crd)
        if said is not None:
            warn(said)
        planned(the_plan)
        if confirm is not None and not confirm(the_plan):
            raise Declined("nothing was applied: the answer was no")
        verified = desired.revision.verified
        applier = applier_for(kube, cluster, run_lock, the_plan, progress, verified=verified)
        report = applier.carry_out(the_plan, live)
        if not wait.enabled:
            return report, verified

        def lost() -> str | None:
            return "the run lost its lock" if run_lock.lost else None

        waited = wait_for_rollouts(
            kube,
            cluster,
            the_plan,
            report,
            wait=wait,
            progress=progress,
            stop_requested=lost,
            crd=live.crd,
        )
        return waited, verified


def _committed(desired: DesiredState, allow_dirty: bool) -> DesiredState:
    """`desired`, unless it is a working tree with changes and --allow-dirty was not given."""
    uncommitted = desired.revision.uncommitted()
    if uncommitted is not None and not allow_dirty:
        raise UsageError(
            f"{uncommitted}; apply applies commits",
            hint="commit them (or pass --ref to apply a commit), or pass --allow-dirty to "
            "apply the working tree as it is",
        )
    return desired


@dataclass(frozen=True)
class Unlocked:
    """What `unlock` did: which Lease, and who held it (None: nobody)."""

    lease: LeaseRef
    holder: str | None


def unlock(cluster: Cluster, lock: Lock, *, shard: Shard = WHOLE, notice: Notice) -> Unlocked:
    """The `unlock` command: free this instance's (or shard's) Lease."""
    ref = lease_of(cluster, lock, shard)
    return Unlocked(ref, break_lock(open_cluster(cluster, notice), ref))
