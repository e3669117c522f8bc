"""Sequencing of the cluster commands: desired state, live state, plan; for apply, the lock.

`plan` reads (LIST pages and dry-runs) and never writes to the cluster (`--out` writes
only the saved-plan file). `apply` takes the run lock first, then plans (or, with
`--plan`, checks a saved plan: pipeline.saved_plan) and carries the plan out, and when the
run ends (however it ends) pushes its metrics to the Pushgateway, if one is given.
`unlock` frees the lock. A sharded run does all of this for its own shard: its part of
the plan, its own Lease, its own metrics group. Each function is one command's flow; none
decides anything itself or prints anything.
"""

from __future__ import annotations

import datetime
import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from driftctl import conventions as c
from driftctl.core.cluster.lease import LeaseRef
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.lookups import lookups
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.outcomes import ApplyReport
from driftctl.core.planning.plan import finish, prepare
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState
from driftctl.pipeline import saved_plan
from driftctl.pipeline.offline import load_desired
from driftctl.render.metrics import RunResult, grouping_key, run_registry
from driftctl.settings import WHOLE, Cluster, Drift, Lock, Metrics, Policy, Shard, Source
from driftctl.shell.apply import Applier, Progress, Tick, dry_run, dry_run_removals, no_tick
from driftctl.shell.cleanup import Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.kube import Deadline, Kube, connect, in_cluster_namespace
from driftctl.shell.live_state import read_found, read_live
from driftctl.shell.lock import RunLock, break_lock
from driftctl.shell.pushgateway import push_add

Notice = Callable[[str], None]  # where retries and warnings are reported as they happen


def _ignore(_: object) -> None:
    """A callback nobody listens to."""


@dataclass(frozen=True)
class Planned:
    """A plan and the desired state it was made from."""

    desired: DesiredState
    plan: Plan
    live: LiveState


def open_cluster(cluster: Cluster, notice: Notice) -> Kube:
    api = connect(cluster.kubeconfig, cluster.context, pool_size=cluster.concurrency + 1)
    return Kube(api, Deadline(cluster.timeout), notice=notice)


def in_scope(desired: DesiredState, cluster: Cluster) -> DesiredState:
    """`desired`, unless it names a namespace out of --target-namespaces (InvalidDesiredState)."""
    problems = list(out_of_scope(desired.webapps, cluster.namespaces))
    if problems:
        raise InvalidDesiredState(problems)
    return desired


def make_plan(
    kube: Kube,
    desired: DesiredState,
    cluster: Cluster,
    policy: Policy,
    shard: Shard = WHOLE,
    *,
    drift: Drift | None = None,
    for_apply: bool = False,
    tick: Tick = no_tick,
) -> tuple[Plan, LiveState]:
    """Live state (and what else the plan needs), local decisions, dry-runs of the
    candidates (their applies and removals), exact plan (of one shard).

    For apply, objects absent from the cluster get no dry-run: their create answers for it
    (core.planning.plan).
    """
    manager = cluster.field_manager
    scope = cluster.namespaces
    live = read_live(kube, cluster.instance, tick=tick, namespaces=scope).within(shard)
    needed = lookups(desired.webapps, live, manager, shard)
    live = read_found(kube, live, needed, cluster.instance, namespaces=scope)
    stamp = Stamp.of(desired, cluster.instance)
    preparation = prepare(
        desired.webapps, live, stamp, policy, manager=manager, drift=drift, shard=shard
    )
    checked = preparation.updates if for_apply else preparation.candidates
    concurrency = cluster.concurrency
    results = dry_run(kube, checked, manager, concurrency, tick)
    removed = dry_run_removals(kube, preparation.candidates, manager, concurrency)
    return finish(preparation, results, removed, creates_answer=for_apply), live


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
) -> Planned:
    """The `plan` command: what apply would do, with no write and no lock; with `out`,
    the plan is also saved there for `apply --plan`."""
    desired = in_scope(load_desired(source, environ), cluster)
    if out is not None:
        saved_plan.check_savable(desired)
    kube = open_cluster(cluster, notice)
    made, live = make_plan(kube, desired, cluster, policy, shard, drift=drift, tick=tick)
    if out is not None:
        who = saved_plan.identity(desired, source, cluster, shard)
        saved_plan.save(out, made, live, who, policy=policy, drift=drift or Drift())
    return Planned(desired, made, live)


def apply(
    source: Source,
    cluster: Cluster,
    policy: Policy,
    lock: Lock,
    *,
    drift: Drift | None = None,
    shard: Shard = WHOLE,
    metrics: Metrics | None = None,
    environ: Mapping[str, str],
    notice: Notice,
    progress: Progress,
    warn: Notice = _ignore,
    planned: Callable[[Plan], None] = _ignore,
    wall_clock: Callable[[], float] = time.time,
    plan_file: Path | None = None,
) -> ApplyReport:
    """The `apply` command: lock, plan, carry out, write status; one outcome per object.

    Metrics are pushed when the run ends, failed or not; a push that fails is a warning
    (`warn`), never a failed run. `planned` hears the plan before it is carried out. With
    `plan_file`, the saved plan is carried out instead (pipeline.saved_plan).
    """
    started = time.monotonic()

    def push(code: int, report: ApplyReport | None = None) -> None:
        if metrics is None or metrics.pushgateway is None:
            return
        result = RunResult(code, wall_clock(), time.monotonic() - started, shard, report)
        group = grouping_key(cluster.instance, shard)
        failed = push_add(metrics.pushgateway, c.METRICS_JOB, group, run_registry(result))
        if failed is not None:
            warn(f"metrics not pushed: {failed}")

    try:
        report = _carry_out(
            source,
            cluster,
            policy,
            lock,
            drift=drift,
            shard=shard,
            environ=environ,
            notice=notice,
            progress=progress,
            planned=planned,
            plan_file=plan_file,
        )
    except DriftctlError as error:
        push(error.exit_code)
        raise
    except KeyboardInterrupt:
        push(ExitCode.INTERRUPTED)
        raise
    push(report.exit_code, report)
    return report


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
    progress: Progress,
    planned: Callable[[Plan], None],
    plan_file: Path | None,
) -> ApplyReport:
    saved = None
    if plan_file is None:
        desired = in_scope(load_desired(source, environ), cluster)  # bad input: no request
    else:
        saved, desired = saved_plan.load(plan_file, source, cluster, shard, environ)
        desired = in_scope(desired, cluster)
    kube = open_cluster(cluster, notice)
    run_lock = RunLock(kube, lease_of(cluster, lock, shard), holder_identity())
    run_lock.acquire(lock.timeout)
    with run_lock:
        if saved is None:
            made, live = make_plan(
                kube,
                desired,
                cluster,
                policy,
                shard,
                drift=drift,
                for_apply=True,
                tick=progress.tick,
            )
        else:
            made, live = saved_plan.replan(kube, saved, desired, cluster, shard)
        planned(made)
        return applier_for(kube, cluster, run_lock, made, progress).carry_out(made, live)


def applier_for(
    kube: Kube,
    cluster: Cluster,
    lock: RunLock,
    made: Plan,
    progress: Progress,
    *,
    concurrency: int | None = None,
) -> Applier:
    """The applier of one plan, held by `lock`: its Events capped and summed up on the
    lock's Lease, stopping when the Lease is lost."""
    now = datetime.datetime.now(datetime.UTC)
    recorder = Recorder(kube, now, cap=cluster.max_events, run=lock.lease, revision=made.revision)
    return Applier(
        kube,
        Deleter(kube, cluster.field_manager),
        recorder,
        now,
        cluster.field_manager,
        cluster.concurrency if concurrency is None else concurrency,
        progress=progress,
        stop_requested=lambda: stop_reason(kube, lock),
    )


def lease_of(cluster: Cluster, lock: Lock, shard: Shard = WHOLE) -> LeaseRef:
    """The Lease of this instance's (or shard's) run lock (its namespace: the Pod's by default)."""
    return LeaseRef(lock.namespace or in_cluster_namespace(), cluster.instance, shard)


def stop_reason(kube: Kube, lock: RunLock) -> str | None:
    """Why the rest of a run must not write: its lock was lost, or its --timeout ran out."""
    if lock.lost:
        return "the run lost its lock; the next run goes on"
    if kube.deadline.remaining() <= 0:
        return f"the run's --timeout ({kube.deadline.seconds:g}s) ran out; the next run goes on"
    return None


@dataclass(frozen=True)
class Unlocked:
    """What `unlock` did: which Lease, and who held it (None: nobody)."""

    lease: LeaseRef
    holder: str | None


def unlock(cluster: Cluster, lock: Lock, *, shard: Shard = WHOLE, notice: Notice) -> Unlocked:
    """The `unlock` command: free this instance's (or shard's) Lease."""
    ref = lease_of(cluster, lock, shard)
    return Unlocked(ref, break_lock(open_cluster(cluster, notice), ref))


def holder_identity() -> str:
    """Who holds the lock: the host (the Pod's name in a CronJob) and the process."""
    return f"{socket.gethostname()}/{os.getpid()}"
