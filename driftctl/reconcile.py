"""Sequencing of the cluster commands: desired state, live state, plan; for apply, the lock.

`plan` reads (LIST pages and dry-runs) and never writes. `apply` takes the run lock
first, then plans and carries the plan out. Each function is one command's flow; none
decides anything itself or prints anything.
"""

from __future__ import annotations

import datetime
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from driftctl.core.entries import Plan, PlanOptions
from driftctl.core.guards import PruneOptions
from driftctl.core.outcomes import ApplyReport
from driftctl.core.plan import finish, prepare
from driftctl.core.reports import Desired
from driftctl.core.validate import Options
from driftctl.pipeline import load_desired
from driftctl.shell.apply import Applier, Progress, dry_run
from driftctl.shell.cleanup import Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.git_source import SourceRequest
from driftctl.shell.kube import Deadline, Kube, connect
from driftctl.shell.live_state import Live, read_live
from driftctl.shell.lock import RunLock, break_lock


@dataclass(frozen=True)
class ClusterOptions:
    """How to reach the cluster and which objects are ours."""

    kubeconfig: str | None
    context: str | None
    instance: str
    manager: str
    timeout: float
    concurrency: int
    notice: Callable[[str], None] = lambda line: None  # where retries are reported


@dataclass(frozen=True)
class ApplyOptions:
    """What only `apply` needs: prune flags, recreate, and the run lock."""

    prune: PruneOptions
    recreate: bool
    lock_namespace: str
    lock_timeout: float


@dataclass(frozen=True)
class Planned:
    """A plan and the desired state it was made from."""

    desired: Desired
    plan: Plan


def open_cluster(options: ClusterOptions) -> Kube:
    api = connect(options.kubeconfig, options.context, pool_size=options.concurrency + 1)
    return Kube(api, Deadline(options.timeout), notice=options.notice)


def make_plan(
    kube: Kube, desired: Desired, options: ClusterOptions, prune: PruneOptions
) -> tuple[Plan, Live]:
    """Live state, local decisions, dry-runs of the candidates, exact plan."""
    live = read_live(kube, options.instance)
    preparation = prepare(
        desired.webapps,
        live.webapps,
        live.deployments,
        desired.stamp(options.instance),
        PlanOptions(options.manager, prune),
    )
    results = dry_run(kube, preparation.candidates, options.manager, options.concurrency)
    return finish(preparation, results), live


def plan(
    source: SourceRequest,
    validation: Options,
    environ: Mapping[str, str],
    options: ClusterOptions,
    prune: PruneOptions,
) -> Planned:
    """The `plan` command: what apply would do, with no write and no lock."""
    desired = load_desired(source, validation, environ)
    made, _ = make_plan(open_cluster(options), desired, options, prune)
    return Planned(desired, made)


def apply(
    source: SourceRequest,
    validation: Options,
    environ: Mapping[str, str],
    *,
    options: ClusterOptions,
    applying: ApplyOptions,
    progress: Progress,
) -> ApplyReport:
    """The `apply` command: lock, plan, carry out, write status; one outcome per object."""
    desired = load_desired(source, validation, environ)  # bad input stops before any request
    kube = open_cluster(options)
    lock = RunLock(kube, applying.lock_namespace, options.instance, holder_identity())
    lock.acquire(applying.lock_timeout)
    with lock:
        made, live = make_plan(kube, desired, options, applying.prune)
        now = datetime.datetime.now(datetime.UTC)
        applier = Applier(
            kube,
            Deleter(kube, options.manager),
            Recorder(kube, now),
            now,
            options.manager,
            applying.recreate,
            options.concurrency,
            progress=progress,
            stop_requested=lambda: stop_reason(kube, lock),
        )
        return applier.carry_out(made, live)


def stop_reason(kube: Kube, lock: RunLock) -> str | None:
    """Why the rest of a run must not write: its lock was lost, or its --timeout ran out."""
    if lock.lost:
        return "the run lost its lock; the next run goes on"
    if kube.deadline.remaining() <= 0:
        return f"the run's --timeout ({kube.deadline.seconds:g}s) ran out; the next run goes on"
    return None


def unlock(options: ClusterOptions, lock_namespace: str) -> str | None:
    """The `unlock` command: free this instance's Lease; the holder it had, if any."""
    return break_lock(open_cluster(options), lock_namespace, options.instance)


def holder_identity() -> str:
    """Who holds the lock: the host (the Pod's name in a CronJob) and the process."""
    return f"{socket.gethostname()}/{os.getpid()}"
