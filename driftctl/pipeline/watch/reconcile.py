"""What `watch` does with one WebApp (a worker's reconcile), and with all of them (the
plan of a full pass), both through the engine (pipeline.engine).

One WebApp: the plan sequence for that WebApp alone (a focus), from its part of the
watch's memory (`view`) and the prune guards' counts of the whole instance (`counts`),
so it reads and plans the same few objects however large the instance; then the same
applier as apply, one write at a time, under the Lease, and what it wrote recorded in the
instance's history (pipeline.history). No dry-run is sent first: nobody
reads this plan before it is carried out, and each write's answer tells what it changed
(an unchanged object is reported unchanged). Others' objects where the WebApp's are
missing are looked for by name, unless the last full pass looked there already
(`Searched`).

All of them (`survey`): apply's plan of the whole instance from the memory (or of those
WebApps not settled since the last pass), sending nothing but the read of the installed
CRD and the lookups of others' objects; the pass hands its WebApps with work to the
workers (pipeline.watch.passes). The CRD each pass read is kept (`crd`) for the reconciles
between. Built from a live view, a client and the lock, so one WebApp's reconcile runs
against a cluster without the rest of the process. Decides nothing.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass

from driftctl.core.notify.facts import RunFacts
from driftctl.core.planning.controls import Situation
from driftctl.core.planning.installed_crd import OWN, InstalledCrd
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj
from driftctl.core.planning.outcomes import ApplyReport
from driftctl.core.planning.removals import PruneCounts
from driftctl.core.planning.shards import owns
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import Place
from driftctl.core.watch.queue import Urgency
from driftctl.pipeline import history
from driftctl.pipeline.engine import Asking, Goal, Plans, make_plans
from driftctl.pipeline.listener import Notice
from driftctl.pipeline.runs import applier_for, lease_of, situation_held
from driftctl.settings import WHOLE, Shard, WatchRequest
from driftctl.shell.apply import Progress
from driftctl.shell.kube import Kube
from driftctl.shell.live_state import read_crd
from driftctl.shell.lock import RunLock

ONE_AT_A_TIME = Asking(for_apply=True, updates_answer=True, concurrency=1)
SURVEY = Asking(for_apply=True, updates_answer=True)


@dataclass(frozen=True)
class Searched:
    """Where a full pass looked for others' objects, and what it found there."""

    places: frozenset[Place] = frozenset()
    webapps: dict[Place, Obj] = dataclasses.field(default_factory=dict)
    deployments: dict[Place, Obj] = dataclasses.field(default_factory=dict)

    def onto(self, view: LiveState, place: Place) -> LiveState:
        """`view` with what the pass found at `place`, if it looked there."""
        if place not in self.places:
            return view
        return dataclasses.replace(
            view,
            unowned_webapps={p: o for p, o in self.webapps.items() if p == place},
            unowned_deployments={p: o for p, o in self.deployments.items() if p == place},
            searched=frozenset({place}),
        )


@dataclass(frozen=True)
class Memory:
    """What a reconcile reads instead of the cluster: one WebApp's view (its objects and
    what the memory holds of others'), the guards' counts of the whole instance (given the
    WebApps Git declares), and a client for what it still sends (the feed's)."""

    view: Callable[[Place], LiveState]
    counts: Callable[[int], PruneCounts]
    client: Callable[[], Kube]


class Reconciler:
    """Plans and carries out toward `desired`, under `lock`."""

    def __init__(
        self,
        setup: WatchRequest,
        desired: DesiredState,
        *,
        memory: Memory,
        lock: RunLock,
        progress: Progress,
        shard: Shard = WHOLE,
        heard: Callable[[RunFacts], None] = lambda facts: None,
        warn: Notice = lambda line: None,
    ) -> None:
        self.desired = desired  # replaced when Git moves (pipeline.watch.passes)
        self.searched = Searched()  # replaced by each full pass
        self.crd: InstalledCrd = OWN  # as the last full pass read it
        self._setup, self._view = setup, memory.view
        self._counts, self._client = memory.counts, memory.client
        self._lock, self._progress, self._shard, self._heard = lock, progress, shard, heard
        self._warn = warn
        self._recording = threading.Lock()  # workers record one at a time: no 409 between them
        self._history = history.keeper(setup.cluster, setup.lock)  # the head it wrote last

    def one(self, place: Place, urgency: Urgency = Urgency.DRIFT) -> ApplyReport:
        """The plan of the WebApp at `place`, from its view, carried out as apply does. A
        WebApp queued by a full pass uses what that pass found of others' objects."""
        setup, desired = self._setup, self.desired
        kube = self._client()
        view = dataclasses.replace(self._view(place), crd=self.crd)
        if urgency is Urgency.PASS:
            view = self.searched.onto(view, place)
        counts = self._counts(len(desired.webapps))
        focused = Goal(desired, setup.policy, setup.drift, focus=frozenset({place}), counts=counts)
        planned = make_plans(
            kube,
            setup.cluster,
            [focused],
            shard=self._shard,
            situation=self._situation(),
            live=view,
            asking=ONE_AT_A_TIME,
        )
        plan = planned.plans[0]
        applier = applier_for(
            kube,
            setup.cluster,
            self._lock,
            plan,
            self._progress,
            concurrency=1,
            verified=desired.revision.verified,
            recording=setup.recording,
        )
        report = applier.carry_out(plan, planned.live)
        carried = applier.as_carried_out(plan)  # unchecked updates, with what they changed
        with self._recording:
            ran = (carried, report)
            history.record(kube, self._history, ran, planned.live.webapps, self._warn)
        self._heard(RunFacts.of_report(plan.revision, carried, report, scope=frozenset({place})))
        return report

    def survey(self, whole: LiveState, focus: frozenset[Place] | None = None) -> Plans:
        """Apply's plan of the whole instance (shard) from `whole`, with no dry-run: only
        others' objects are read, where Git declares a name the instance lacks. With
        `focus`, of those WebApps alone (the guards still count all of `whole`)."""
        setup = self._setup
        goal = Goal(self.desired, setup.policy, setup.drift, focus=focus)
        kube = self._client()
        self.crd = read_crd(kube)
        whole = dataclasses.replace(whole, crd=self.crd)
        planned = make_plans(
            kube,
            setup.cluster,
            [goal],
            shard=self._shard,
            situation=self._situation(),
            live=whole,
            asking=SURVEY,
        )
        live = planned.live
        missing = frozenset(
            app.place
            for app in goal.webapps
            if owns(self._shard, *app.place)
            and (app.place not in whole.webapps or app.place not in whole.deployments)
        )
        self.searched = Searched(missing, live.unowned_webapps, live.unowned_deployments)
        return planned

    def _situation(self) -> Situation:
        """Now, and the instance's suspension as the Lease held read it (renewed every
        third of its term: a suspension set with kubectl is seen within that)."""
        return situation_held(self._lock, lease_of(self._setup.cluster, self._setup.lock))
