"""The engine every cluster command composes: a client, the plan sequence, the applier.

The plan sequence is written here once:

1. the live state: this instance's LIST pages (of one shard), or a view already held in
   memory (watch's informers);
2. what the plan needs beyond it, decided by core.planning.extra_reads and read by
   shell.live_state.read_found: other owners' objects where Git declares a name the
   instance lacks, the autoscalers when replicas moved;
3. per goal (a desired state and its policy), the stamp and the local decisions
   (core.planning.preparation.prepare), the controls among them, decided against the run's
   `Situation`: the time, read once here, and the instance's suspension, read from its
   run-lock Lease (by the lock itself when the run holds it: no request more);
4. the dry-runs of the candidates' applies, a later goal reusing the first goal's answers
   where it would send the same (core.planning.check.shared_answers);
5. the dry-runs of their reverts of fields set outside Git, each goal its own;
6. the exact plans (core.planning.plan.finish).

`plan` and `apply` (pipeline.plan, pipeline.apply) hand it one goal and fresh LISTs; saved plans
(pipeline.saved_plan) ask only about the objects that moved; `check` hands it head and base
against one reading; `watch` one WebApp (a focus), its memory of it and the guards' counts
of the whole instance (its lookups then go by name), or all of its memory for a full pass.
Apply dry-runs only objects that exist: a create answers for itself; watch dry-runs none:
nobody reads its plans, and each write's answer tells what it changed. The client, the
Lease, the situation and the applier under the run lock are pipeline.runs'. Decides
nothing, prints nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field, replace

from driftctl.core.planning.actions import Plan
from driftctl.core.planning.candidates import Candidate, DryRunResult, Preparation
from driftctl.core.planning.check import shared_answers
from driftctl.core.planning.controls import Situation
from driftctl.core.planning.extra_reads import extra_reads
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import Reach, prepare
from driftctl.core.planning.removals import PruneCounts
from driftctl.core.planning.selection import selected_places, unknown_names
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import Place, WebApp
from driftctl.errors import UsageError
from driftctl.pipeline.runs import utc_now
from driftctl.settings import EVERYTHING, WHOLE, Cluster, Drift, Policy, Selection, Shard
from driftctl.shell.apply import Tick, dry_run, dry_run_reverts, no_tick
from driftctl.shell.kube import Kube
from driftctl.shell.live_state import read_found, read_live

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
    cluster: Cluster,
    goal: Goal,
    *,
    situation: Situation | None = None,
    shard: Shard = WHOLE,
    for_apply: bool = False,
    tick: Tick = no_tick,
) -> tuple[Plan, LiveState]:
    """The exact plan of one goal (of one shard), from fresh LISTs: `plan`'s, and with
    `for_apply` the batch run's (apply, and watch's full passes)."""
    asking = Asking(for_apply=for_apply)
    planned = make_plans(
        kube, cluster, [goal], situation=situation, shard=shard, asking=asking, tick=tick
    )
    return planned.plans[0], planned.live


def _prepare(
    goal: Goal, live: LiveState, cluster: Cluster, shard: Shard, situation: Situation
) -> Preparation:
    by_place = goal.desired.by_place if goal.counts is not None else None
    return prepare(
        goal.desired.webapps,
        live,
        Stamp.of(goal.desired, cluster.instance),
        goal.policy,
        manager=cluster.field_manager,
        drift=goal.drift,
        situation=situation,
        reach=Reach(shard, goal.focus, by_place, goal.counts),
    )


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
