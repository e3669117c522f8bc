"""The engine every cluster command composes: a client, the plan sequence, the applier.

The plan sequence is written here once:

1. the live state: this instance's LIST pages (of one shard), or a view already held in
   memory (watch's informers);
2. what the plan needs beyond it, decided by core.planning.extra_reads and read by
   shell.live_state.read_found: other owners' objects where Git declares a name the
   instance lacks, the autoscalers when replicas moved;
3. per goal (a desired state and its policy), the stamp and the local decisions
   (core.planning.plan.prepare), the controls among them, decided against the run's
   `Situation`: the time, read once here, and the instance's suspension, read from its
   run-lock Lease (by the lock itself when the run holds it: no request more);
4. the dry-runs of the candidates' applies, a later goal reusing the first goal's answers
   where it would send the same (core.planning.check.shared_answers);
5. the dry-runs of their reverts of fields set outside Git, each goal its own;
6. the exact plans (core.planning.plan.finish).

`plan` and `apply` (pipeline.batch) hand it one goal and fresh LISTs; saved plans
(pipeline.saved_plan) ask only about the objects that moved; `check` hands it head and base
against one reading; `watch` one WebApp (a focus), its memory of it and the guards' counts
of the whole instance (its lookups then go by name), or all of its memory for a full pass.
Apply dry-runs only objects that exist: a create answers for itself; watch dry-runs none:
nobody reads its plans, and each write's answer tells what it changed. A plan is carried
out by the applier of `applier_for`, held by a run lock (the Lease of `lease_of`). Decides
nothing, prints nothing.
"""

from __future__ import annotations

import datetime
import os
import socket
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field, replace

from driftctl.core.api import requests as r
from driftctl.core.api.lease import LeaseRef
from driftctl.core.planning.actions import Candidate, DryRunResult, Plan, Preparation
from driftctl.core.planning.check import shared_answers
from driftctl.core.planning.controls import Situation
from driftctl.core.planning.extra_reads import extra_reads
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish, prepare
from driftctl.core.planning.removals import PruneCounts
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.planning.selection import selected_places, unknown_names
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import Place, WebApp
from driftctl.errors import InvalidDesiredState, UsageError
from driftctl.settings import EVERYTHING, WHOLE, Cluster, Drift, Lock, Policy, Selection, Shard
from driftctl.shell.apply import Applier, Progress, Tick, dry_run, dry_run_reverts, no_tick
from driftctl.shell.cleanup import Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.kube import ApiError, Deadline, Kube, connect
from driftctl.shell.live_state import read_found, read_live
from driftctl.shell.lock import RunLock, read_lease

Notice = Callable[[str], None]  # where retries and warnings are reported as they happen


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


# -- the plan sequence ---------------------------------------------------------------


@dataclass(frozen=True)
class Goal:
    """One desired state to plan, and the rules its plan follows.

    `focus`: these WebApps alone (watch's one WebApp; the guards count all). `selection`: a
    person's `NAME...` or `-l`, made a focus once the live state is read (`resolved`).
    """

    desired: DesiredState
    policy: Policy
    drift: Drift = field(default_factory=Drift)
    focus: frozenset[Place] | None = None  # watch: these WebApps alone (the guards count all)
    # watch: the guards' counts of the whole instance, when the live view holds the focus only
    counts: PruneCounts | None = None
    selection: Selection = EVERYTHING

    def resolved(self, live: LiveState) -> Goal:
        """This goal with its selection made a focus on the places it picks in Git and in
        `live`; UsageError when a name it gives is in neither."""
        if self.selection.everything:
            return self
        webapps = self.desired.webapps
        if missing := unknown_names(self.selection, webapps, live):
            raise UsageError(
                f"no WebApp {', '.join(missing)} in Git or in the cluster (this instance's)",
                hint="NAME is a WebApp's name, or NAMESPACE/NAME; driftctl status lists them",
            )
        picked = selected_places(self.selection, webapps, live)
        focus = picked if self.focus is None else picked & self.focus
        return replace(self, focus=focus, selection=EVERYTHING)

    @property
    def webapps(self) -> list[WebApp]:
        """The WebApps whose objects this goal plans (its focus, or all of them)."""
        if self.focus is None:
            return list(self.desired.webapps)
        declared = self.desired.by_place
        return [declared[place] for place in sorted(self.focus) if place in declared]


@dataclass(frozen=True)
class Asking:
    """Which dry-runs the plans send, and how many at once."""

    for_apply: bool = False  # objects absent from the cluster get none: their create answers
    updates_answer: bool = False  # nor those that exist (watch): their writes' answers tell
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
    situation: Situation | None = None,
    shard: Shard = WHOLE,
    live: LiveState | None = None,
    asking: Asking = Asking(),
    tick: Tick = no_tick,
) -> Plans:
    """The plan of each goal against one reading of the cluster (module docstring).

    `situation`: the time and the instance's suspension the controls are decided against
    (None: now, and no suspension of the instance).
    `live`: a view already held (watch's memory); None: this instance's LIST pages, of
    `shard`. The extra reads cover every goal at once, so a second goal reads nothing more.
    """
    if live is None:
        live = read_live(kube, cluster.instance, tick=tick, namespaces=cluster.namespaces)
        live = live.within(shard)
    goals = [goal.resolved(live) for goal in goals]
    manager = cluster.field_manager
    focused = any(goal.focus is not None for goal in goals)
    apps = [app for goal in goals for app in goal.webapps]
    needed = extra_reads(apps, live, manager, shard, by_name=focused)
    live = read_found(kube, live, needed, cluster.instance, namespaces=cluster.namespaces)
    situation = situation or Situation(utc_now())
    preparations = [_prepare(goal, live, cluster, shard, situation) for goal in goals]
    only = asking.only(live) if asking.only is not None else None
    asked = [_asked(each, asking, only) for each in preparations]
    reverting = [
        () if asking.updates_answer else _asked(each, Asking(), only) for each in preparations
    ]
    concurrency = cluster.concurrency if asking.concurrency is None else asking.concurrency
    answers = _dry_run_applies(kube, asked, manager, concurrency, tick)
    reverted = [dry_run_reverts(kube, each, manager, concurrency) for each in reverting]
    plans = tuple(
        finish(
            preparation,
            answered,
            revert,
            creates_answer=asking.for_apply,
            updates_answer=asking.updates_answer,
        )
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
    situation: Situation | None = None,
    drift: Drift | None = None,
    for_apply: bool = False,
    tick: Tick = no_tick,
    selection: Selection = EVERYTHING,
) -> tuple[Plan, LiveState]:
    """The exact plan of one desired state (of one shard, of the WebApps `selection`
    picks), from fresh LISTs: `plan`'s, and with `for_apply` the batch run's (apply, and
    watch's full passes)."""
    goal = Goal(desired, policy, drift or Drift(), selection=selection)
    planned = make_plans(
        kube,
        cluster,
        [goal],
        situation=situation,
        shard=shard,
        asking=Asking(for_apply=for_apply),
        tick=tick,
    )
    return planned.plans[0], planned.live


def _prepare(
    goal: Goal, live: LiveState, cluster: Cluster, shard: Shard, situation: Situation
) -> Preparation:
    return prepare(
        goal.desired.webapps,
        live,
        Stamp.of(goal.desired, cluster.instance),
        goal.policy,
        manager=cluster.field_manager,
        drift=goal.drift,
        shard=shard,
        focus=goal.focus,
        situation=situation,
        by_place=goal.desired.by_place if goal.counts is not None else None,
        counts=goal.counts,
    )


# -- the situation: the time, and whether the instance is suspended ---------------------


def utc_now() -> datetime.datetime:
    """The run's time: read once, here, and handed to the core."""
    return datetime.datetime.now(datetime.UTC)


def situation_read(
    kube: Kube, lease: LeaseRef, notice: Notice, warn: Notice | None = None
) -> Situation:
    """The situation of a run that takes no lock (plan, check): the instance's Lease read
    once. A Lease no run took yet suspends nothing; one this account may not read leaves the
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
    if found is None and not lock_namespace_exists(kube, lease):
        (warn or notice)(
            f"the run lock's namespace {lease.namespace} does not exist, so a suspension of "
            "the instance (set on its Lease there) cannot be read: planned as if there is "
            "none; apply would stop before taking its lock. Create it (`kubectl create "
            f"namespace {lease.namespace}`; `driftctl install` does), or name the one every "
            "run of this instance uses with --lock-namespace"
        )
    return Situation.of(utc_now(), found, lease.display)


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
    """The situation of a run holding the lock: the Lease as its last write returned it."""
    return Situation.of(utc_now(), lock.lease, lease.display)


FORBIDDEN = 403


def _asked(
    preparation: Preparation, asking: Asking, only: Container[ObjectKey] | None
) -> tuple[Candidate, ...]:
    """The candidates to dry-run: those that exist, for apply (none, when their writes
    answer); only those moved, if told."""
    if asking.updates_answer:
        return ()
    candidates = preparation.updates if asking.for_apply else preparation.candidates
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
    now = utc_now()
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
