"""The `apply` command's flow (the batch job), and `unlock`.

`apply` takes the run lock first, then plans (or, with `--plan`, checks a saved plan:
pipeline.saved_plan) and carries the plan out, records what it wrote in the instance's
history (pipeline.history), and when the run ends (however it ends)
pushes its metrics to the Pushgateway, if one is given; with receivers to notify
(pipeline.notify), it then tells them what is new, once (a digest, alerts, the commit's
status). With `--wait`, the rollouts of the WebApps it changed are followed to their end
under the same lock (pipeline.waiting). A sharded run does all of this for its own shard:
its part of the plan, its own Lease, its own metrics group. `unlock` frees the lock. Each
is one command's flow over the engine (pipeline.engine, pipeline.runs); none decides
anything itself or prints anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from driftctl import conventions as c
from driftctl.core.api.lease import LeaseRef
from driftctl.core.notify.facts import RunFacts
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.installed_crd import notice as crd_notice
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.outcomes import ApplyReport
from driftctl.core.planning.saved_plan import SavedPlan
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import Declined, DriftctlError, ExitCode, LockHeld, UsageError
from driftctl.pipeline import history, saved_plan, trust
from driftctl.pipeline.engine import Goal, make_plan
from driftctl.pipeline.listener import Listener, Notice
from driftctl.pipeline.notify import Teller
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.runs import (
    applier_for,
    holder_identity,
    in_scope,
    lease_of,
    open_cluster,
    situation_held,
)
from driftctl.pipeline.waiting import Applied, wait_for_rollouts
from driftctl.render.metrics import RunResult, grouping_key, run_registry
from driftctl.settings import ApplyRequest, UnlockRequest
from driftctl.shell.apply import Tick
from driftctl.shell.kube import Kube
from driftctl.shell.lock import RunLock, break_lock
from driftctl.shell.pushgateway import push_add

Verified = tuple[str, str] | None  # the commit verified, and the key that signed it
Push = Callable[[int, ApplyReport | None, Verified], None]


def apply(
    request: ApplyRequest,
    listener: Listener,
    environ: Mapping[str, str],
    wall_clock: Callable[[], float] = time.time,
) -> ApplyReport:
    """The `apply` command: lock, plan, carry out, write status; one outcome per object.

    Metrics are pushed when the run ends, failed or not; a push that fails is a warning,
    never a failed run; so is a notification that fails, sent after that (a run stopped
    by the lock or interrupted tells nobody). The listener hears the plan before it is
    carried out, and its `confirm`, when given, may stop it (Declined, nothing written).
    """
    push = _pusher(request, listener.warn, wall_clock)
    teller = Teller(request.notify, request.cluster, request.lock, request.shard, listener.warn)
    seen: list[Plan] = []

    def heard(plan: Plan) -> None:
        seen.append(plan)
        listener.planned(plan)

    try:
        report, verified = _carry_out(request, replace(listener, planned=heard), environ)
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
    facts = (
        RunFacts(revision, report=report)
        if plan is None
        else RunFacts.of_report(revision, plan, report)
    )
    teller.tell_run(facts)
    return report


def _pusher(request: ApplyRequest, warn: Notice, wall_clock: Callable[[], float]) -> Push:
    """What pushes a run's metrics when it ends (nothing without --pushgateway)."""
    started = time.monotonic()
    gateway, shard = request.metrics.pushgateway, request.shard

    def push(code: int, report: ApplyReport | None, verified: Verified) -> None:
        if gateway is None:
            return
        took = time.monotonic() - started
        result = RunResult(code, wall_clock(), took, shard, report, verified)
        group = grouping_key(request.cluster.instance, shard)
        failed = push_add(gateway, c.METRICS_JOB, group, run_registry(result))
        if failed is not None:
            warn(f"metrics not pushed: {failed}")

    return push


@dataclass(frozen=True)
class _Desired:
    """What a run applies: the desired state, the source it was read from (a saved plan's
    own, when none was given), and the saved plan, if it carries one out."""

    state: DesiredState
    checking: trust.Checking
    saved: SavedPlan | None = None


def _carry_out(
    request: ApplyRequest, listener: Listener, environ: Mapping[str, str]
) -> tuple[ApplyReport, Verified]:
    """The run under the lock: its report, and the commit verified with its signer."""
    desired = _desired(request, environ)
    cluster, lock = request.cluster, request.lock
    kube = open_cluster(cluster, listener.notice)
    lease = lease_of(cluster, lock, request.shard)
    # A commit --verify refuses is refused before the lock: nothing is written.
    state, anchor = trust.verified_against(kube, lease, desired.state, desired.checking)
    run_lock = RunLock(kube, lease, holder_identity())
    state = trust.take_lock(
        run_lock,
        state,
        desired.checking,
        timeout=lock.timeout,
        anchor=anchor,
        waiting=listener.notice,
    )
    with run_lock:
        held = _Held(kube, run_lock, lease)
        return _under_lock(request, listener, held, replace(desired, state=state))


def _desired(request: ApplyRequest, environ: Mapping[str, str]) -> _Desired:
    """Git's desired state, in scope (bad input: no request sent), or the saved plan's."""
    source, cluster, path = request.source, request.cluster, request.saved.path
    if path is None:
        desired = in_scope(load_desired(source, environ), cluster)
        checking = trust.Checking(source, request.verify, environ)
        return _Desired(_committed(desired, request.run.allow_dirty), checking)
    given = request.source_given
    saved, desired, source = saved_plan.load(
        path, source, cluster, request.shard, environ, source_given=given
    )
    desired = in_scope(desired, cluster)
    source = source.at(desired.revision.revision)
    return _Desired(desired, trust.Checking(source, request.verify, environ), saved)


@dataclass(frozen=True)
class _Held:
    """The cluster as a run holding its lock sees it: the client, the lock, its Lease."""

    kube: Kube
    lock: RunLock
    lease: LeaseRef


def _under_lock(
    request: ApplyRequest, listener: Listener, held: _Held, desired: _Desired
) -> tuple[ApplyReport, Verified]:
    """Plan (or recheck the saved plan), carry it out, and wait if asked."""
    kube, run_lock = held.kube, held.lock
    the_plan, live = _plan(request, held, desired, listener.progress.tick)
    if (said := crd_notice(live.crd)) is not None:
        listener.warn(said)
    listener.planned(the_plan)
    if listener.confirm is not None and not listener.confirm(the_plan):
        raise Declined("nothing was applied: the answer was no")
    verified = desired.state.revision.verified
    applier = applier_for(
        kube,
        request.cluster,
        run_lock,
        the_plan,
        listener.progress,
        verified=verified,
        recording=request.recording,
    )
    report = applier.carry_out(the_plan, live)
    keeping = history.keeper(request.cluster, request.lock)
    history.record(kube, keeping, (the_plan, report), live.webapps, listener.warn)
    if not request.wait.enabled:
        return report, verified

    def lost() -> str | None:
        return "the run lost its lock" if run_lock.lost else None

    applied = Applied(the_plan, report, live.crd)
    waited = wait_for_rollouts(
        kube, request, applied, progress=listener.progress, stop_requested=lost
    )
    return waited, verified


def _plan(
    request: ApplyRequest, held: _Held, desired: _Desired, tick: Tick
) -> tuple[Plan, LiveState]:
    """The plan to carry out: made now, or the saved one checked again where it moved."""
    situation = situation_held(held.lock, held.lease)
    shard = request.shard
    if desired.saved is None:
        goal = Goal(desired.state, request.policy, request.drift, selection=request.selection)
        return make_plan(
            held.kube,
            request.cluster,
            goal,
            situation=situation,
            shard=shard,
            for_apply=True,
            tick=tick,
        )
    return saved_plan.replan(
        held.kube,
        desired.saved,
        desired.state,
        request.cluster,
        request.shard,
        situation=situation,
        path=request.saved.path,
    )


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


def unlock(request: UnlockRequest, *, notice: Notice) -> Unlocked:
    """The `unlock` command: free this instance's (or shard's) Lease."""
    ref = lease_of(request.cluster, request.lock, request.shard)
    return Unlocked(ref, break_lock(open_cluster(request.cluster, notice), ref))
