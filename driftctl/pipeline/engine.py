"""The engine every cluster command composes: a client, the plan sequence, the applier.

The plan sequence is written here once:

1. the live state: this instance's LIST pages (of one shard), or a view already held in
   memory (watch's informers);
2. what the plan needs beyond it, decided by core.planning.extra_reads and read by
   shell.live_state.read_found: other owners' objects where Git declares a name the
   instance lacks, the autoscalers when replicas moved;
3. per goal (a desired state and its policy), the stamp and the local decisions
   (core.planning.plan.prepare);
4. the dry-runs of the candidates' applies, a later goal reusing the first goal's answers
   where it would send the same (core.planning.check.shared_answers);
5. the dry-runs of their reverts of fields set outside Git, each goal its own;
6. the exact plans (core.planning.plan.finish).

`plan` and `apply` (pipeline.batch) hand it one goal and fresh LISTs; saved plans
(pipeline.saved_plan) ask only about the objects that moved; `check` hands it head and base
against one reading; `watch` one WebApp (a focus) and its memory. Apply dry-runs only
objects that exist: a create answers for itself. A plan is carried out by the applier of
`applier_for`, held by a run lock (the Lease of `lease_of`). Decides nothing, prints nothing.
"""

from __future__ import annotations

import datetime
import os
import socket
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field

from driftctl.core.api.lease import LeaseRef
from driftctl.core.planning.actions import Candidate, DryRunResult, Plan, Preparation
from driftctl.core.planning.check import shared_answers
from driftctl.core.planning.extra_reads import extra_reads
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish, prepare
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import Place, WebApp
from driftctl.errors import InvalidDesiredState
from driftctl.settings import WHOLE, Cluster, Drift, Lock, Policy, Shard
from driftctl.shell.apply import Applier, Progress, Tick, dry_run, dry_run_reverts, no_tick
from driftctl.shell.cleanup import Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.kube import Deadline, Kube, connect, in_cluster_namespace
from driftctl.shell.live_state import read_found, read_live
from driftctl.shell.lock import RunLock

Notice = Callable[[str], None]  # where retries and warnings are reported as they happen


def open_cluster(cluster: Cluster, notice: Notice) -> Kube:
    """A client of the cluster, its retries bounded by --timeout."""
    api = connect(cluster.kubeconfig, cluster.context, pool_size=cluster.concurrency + 1)
    return Kube(api, Deadline(cluster.timeout), notice=notice)


def in_scope(desired: DesiredState, cluster: Cluster) -> DesiredState:
    """`desired`, unless it names a namespace out of --target-namespaces (InvalidDesiredState)."""
    problems = list(out_of_scope(desired.webapps, cluster.namespaces))
    if problems:
        raise InvalidDesiredState(problems)
    return desired


# -- the plan sequence ---------------------------------------------------------------


@dataclass(frozen=True)
class Goal:
    """One desired state to plan, and the rules its plan follows."""

    desired: DesiredState
    policy: Policy
    drift: Drift = field(default_factory=Drift)
    focus: frozenset[Place] | None = None  # watch: these WebApps alone (the guards count all)

    @property
    def webapps(self) -> list[WebApp]:
        """The WebApps whose objects this goal plans (its focus, or all of them)."""
        apps = self.desired.webapps
        return list(apps) if self.focus is None else [a for a in apps if a.place in self.focus]


@dataclass(frozen=True)
class Asking:
    """Which dry-runs the plans send, and how many at once."""

    for_apply: bool = False  # objects absent from the cluster get none: their create answers
    # A saved plan: only the objects that moved since it was made (of the live state).
    only: Callable[[LiveState], Container[ObjectKey]] | None = None
    concurrency: int | None = None  # None: the cluster's --concurrency


@dataclass(frozen=True)
class Plans:
    """One plan per goal, in the goals' order, and the live state they were made against
    (other owners' objects and the autoscalers included)."""

    plans: tuple[Plan, ...]
    live: LiveState


def make_plans(
    kube: Kube,
    cluster: Cluster,
    goals: Sequence[Goal],
    *,
    shard: Shard = WHOLE,
    live: LiveState | None = None,
    asking: Asking = Asking(),
    tick: Tick = no_tick,
) -> Plans:
    """The plan of each goal against one reading of the cluster (module docstring).

    `live`: a view already held (watch's memory); None: this instance's LIST pages, of
    `shard`. The extra reads cover every goal at once, so a second goal reads nothing more.
    """
    if live is None:
        live = read_live(kube, cluster.instance, tick=tick, namespaces=cluster.namespaces)
        live = live.within(shard)
    manager = cluster.field_manager
    needed = extra_reads([app for goal in goals for app in goal.webapps], live, manager, shard)
    live = read_found(kube, live, needed, cluster.instance, namespaces=cluster.namespaces)
    preparations = [_prepare(goal, live, cluster, shard) for goal in goals]
    only = asking.only(live) if asking.only is not None else None
    asked = [_asked(each, asking.for_apply, only) for each in preparations]
    reverting = [_asked(each, False, only) for each in preparations]
    concurrency = cluster.concurrency if asking.concurrency is None else asking.concurrency
    answers = _dry_run_applies(kube, asked, manager, concurrency, tick)
    reverted = [dry_run_reverts(kube, each, manager, concurrency) for each in reverting]
    plans = tuple(
        finish(preparation, answered, revert, creates_answer=asking.for_apply)
        for preparation, answered, revert in zip(preparations, answers, reverted, strict=True)
    )
    return Plans(plans, live)


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
    """The exact plan of one desired state (of one shard), from fresh LISTs: `plan`'s, and
    with `for_apply` the batch run's (apply, and watch's full passes)."""
    goal = Goal(desired, policy, drift or Drift())
    planned = make_plans(
        kube, cluster, [goal], shard=shard, asking=Asking(for_apply=for_apply), tick=tick
    )
    return planned.plans[0], planned.live


def _prepare(goal: Goal, live: LiveState, cluster: Cluster, shard: Shard) -> Preparation:
    return prepare(
        goal.desired.webapps,
        live,
        Stamp.of(goal.desired, cluster.instance),
        goal.policy,
        manager=cluster.field_manager,
        drift=goal.drift,
        shard=shard,
        focus=goal.focus,
    )


def _asked(
    preparation: Preparation, for_apply: bool, only: Container[ObjectKey] | None
) -> tuple[Candidate, ...]:
    """The candidates to dry-run: those that exist, for apply; only those moved, if told."""
    candidates = preparation.updates if for_apply else preparation.candidates
    return candidates if only is None else tuple(c for c in candidates if c.key in only)


def _dry_run_applies(
    kube: Kube,
    asked: Sequence[Sequence[Candidate]],
    manager: str,
    concurrency: int,
    tick: Tick,
) -> list[dict[ObjectKey, DryRunResult]]:
    """Each goal's answers; a later goal reuses the first's where it sends the same."""
    if not asked:
        return []
    first = dry_run(kube, asked[0], manager, concurrency, tick)
    answers = [first]
    for later in asked[1:]:
        reused, remaining = shared_answers(later, asked[0], first)
        answers.append({**reused, **dry_run(kube, remaining, manager, concurrency, tick)})
    return answers


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
) -> Applier:
    """The applier of one plan, held by `lock`: its Events capped and summed up on the
    lock's Lease, stopping when the Lease is lost; `verified` (the commit and the key that
    signed it, --verify) goes into the status of the WebApps written at that commit."""
    now = datetime.datetime.now(datetime.UTC)
    recorder = Recorder(kube, now, cap=cluster.max_events, run=lock.lease, revision=plan.revision)
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
    """The Lease of this instance's (or shard's) run lock (its namespace: the Pod's by default)."""
    return LeaseRef(lock.namespace or in_cluster_namespace(), cluster.instance, shard)


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
