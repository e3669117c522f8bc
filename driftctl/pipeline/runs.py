"""What every cluster run has beside its plans: a client bounded by --timeout, its
desired state kept in scope, its Lease and the situation it plans against (the time, and
whether the instance is suspended), and the applier of a plan under the run lock.

plan, apply, check, saved plans, status and watch compose these with the plan sequence
(pipeline.engine). Decides nothing, prints nothing.
"""

from __future__ import annotations

import datetime
import os
import socket
from collections.abc import Callable

from driftctl.core.api import requests as r
from driftctl.core.api.lease import LeaseRef
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.controls import Situation
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import InvalidDesiredState
from driftctl.settings import WHOLE, Cluster, Lock, Recording, Shard
from driftctl.shell.apply import Applier, Progress
from driftctl.shell.cleanup import Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.kube import ApiError, Deadline, Kube, connect
from driftctl.shell.lock import RunLock, read_lease

Notice = Callable[[str], None]  # where retries and warnings are reported as they happen
RECORDING = Recording()  # the default --max-events


def open_cluster(cluster: Cluster, notice: Notice) -> Kube:
    """A client of the cluster, its retries bounded by --timeout."""
    api = connect(cluster.kubeconfig, cluster.context, pool_size=cluster.concurrency + 1)
    return Kube(api, Deadline(cluster.timeout), notice=notice)


def in_scope(desired: DesiredState, cluster: Cluster) -> DesiredState:
    """`desired`, unless it names a namespace out of --target-namespaces (InvalidDesiredState)
    or was read from a file rather than a folder (UsageError: a run prunes what it lacks)."""
    problems = list(out_of_scope(desired.webapps, cluster.namespaces))
    if problems:
        raise InvalidDesiredState(problems)
    return desired.of_a_whole_folder()


# -- the situation: the time, and whether the instance is suspended ---------------------


def utc_now() -> datetime.datetime:
    """The run's time: read once, here, and handed to the core."""
    return datetime.datetime.now(datetime.UTC)


def situation_read(
    kube: Kube, lease: LeaseRef, notice: Notice, warn: Notice | None = None
) -> Situation:
    """The situation of a run that takes no lock (plan, check): the instance's Lease read
    once (a shard's: its own, and the instance's own, whose suspension holds every shard).
    A Lease no run took yet suspends nothing; one this account may not read leaves the
    suspension unknown, which is said (`notice`), and the plan is made as if there were none.
    A Lease not found, its namespace is read once: a lock namespace that does not exist is
    a warning (`warn`; `notice` without one), since a suspension set where this instance's
    runs keep their lock cannot be seen from here.
    """
    try:
        found = read_lease(kube, lease)
    except ApiError as refused:
        if refused.status != FORBIDDEN:
            raise
        notice(
            f"cannot read {lease.display} ({refused.short}): whether the instance is "
            "suspended is not known; planned as if it is not"
        )
        return Situation.of(utc_now(), None, lease.display)
    situation = Situation.of(utc_now(), found, lease.display)
    if lease.shard.sharded and situation.instance is None:  # the instance's holds every shard
        situation = situation.or_instance(read_lease(kube, lease.whole), lease.whole.display)
    if found is None and not lock_namespace_exists(kube, lease):
        (warn or notice)(
            f"the run lock's namespace {lease.namespace} does not exist, so a suspension of "
            "the instance (set on its Lease there) cannot be read: planned as if there is "
            "none; apply would stop before taking its lock. Create it (`kubectl create "
            f"namespace {lease.namespace}`; `driftctl install` does), or name the one every "
            "run of this instance uses with --lock-namespace"
        )
    return situation


def lock_namespace_exists(kube: Kube, lease: LeaseRef) -> bool:
    """Whether the Lease's namespace exists (True when this account may not read it: then
    nothing is known, and nothing is said)."""
    try:
        there = kube.send_unless_missing(r.get_object("Namespace", None, lease.namespace))
    except ApiError as refused:
        if refused.status != FORBIDDEN:
            raise
        return True
    return there is not None


def situation_held(lock: RunLock, lease: LeaseRef) -> Situation:
    """The situation of a run holding the lock: the Lease as its last write returned it (a
    shard's: or the instance's own Lease, as the lock last read it)."""
    situation = Situation.of(utc_now(), lock.lease, lease.display)
    return situation.or_instance(lock.instance_lease, lease.whole.display)


FORBIDDEN = 403


# -- carrying a plan out under the run lock ----------------------------------------------


def applier_for(
    kube: Kube,
    cluster: Cluster,
    lock: RunLock,
    plan: Plan,
    progress: Progress,
    *,
    concurrency: int | None = None,
    verified: tuple[str, str] | None = None,
    recording: Recording = RECORDING,
) -> Applier:
    """The applier of one plan, held by `lock`: its Events capped (`recording`) and summed
    up on the lock's Lease, stopping when the Lease is lost; `verified` (the commit and the
    key that signed it, --verify) goes into the status of the WebApps written at that
    commit."""
    now = utc_now()
    cap = recording.max_events
    recorder = Recorder(kube, now, cap=cap, run=lock.lease, revision=plan.revision)
    return Applier(
        kube,
        Deleter(kube, cluster.field_manager),
        recorder,
        now,
        cluster.field_manager,
        cluster.concurrency if concurrency is None else concurrency,
        progress=progress,
        stop_requested=lambda: stop_reason(kube, lock),
        verified=verified,
    )


def lease_of(cluster: Cluster, lock: Lock, shard: Shard = WHOLE) -> LeaseRef:
    """The Lease of this instance's (or shard's) run lock, the same wherever the run runs."""
    return LeaseRef(lock.namespace, cluster.instance, shard)


def stop_reason(kube: Kube, lock: RunLock) -> str | None:
    """Why the rest of a run must not write: its lock was lost, or its --timeout ran out."""
    if lock.lost:
        return "the run lost its lock; the next run goes on"
    if kube.deadline.remaining() <= 0:
        return f"the run's --timeout ({kube.deadline.seconds:g}s) ran out; the next run goes on"
    return None


def holder_identity() -> str:
    """Who holds the lock: the host (the Pod's name in a CronJob) and the process."""
    return f"{socket.gethostname()}/{os.getpid()}"
