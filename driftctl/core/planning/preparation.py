"""The plan's first step, `prepare`: pair desired and live objects and decide all that can
be decided without the server (core.planning.plan: the two steps).

Pure. Desired and live objects are paired by (kind, namespace, name): a missing live side
means create, a missing desired side means prune (as gitops-engine's reconcile does). Each
WebApp's live copy goes through the finalizer table (core.planning.finalizers); what the
cluster holds becomes an entry (core.planning.entries); what Git no longer declares goes
through the prune guards (core.planning.removals). The result lists the candidates that
need a server-side dry-run, each with the manifest to send.

A sharded run plans only its shard (core.planning.shards): the desired WebApps and the
live state are narrowed to it before pairing, so another shard's object is never planned,
counted by a prune guard or pruned, and a WebApp that moved to another shard (the shard
count changed) is simply no longer seen by its old one. Only the empty-desired-set guard
looks at the whole of Git: a shard without WebApps is normal, an empty Git is not.

Deployments and their owner: a Deployment's ownerReference needs its WebApp's uid. When
the WebApp does not exist yet (or is cleaned up and created again in this run), the
Deployment is planned as create without a dry-run (core.planning.predicted).

Deployments without a desired WebApp: one owned by a live WebApp goes with its owner's
prune or cleanup (listed in that action's `owned`), never separately. One whose owner is
not live at all (orphaned, e.g. a finalizer removed by hand while the garbage collector
was not running) is pruned on its own, under the same guards as WebApps.

One WebApp at a time (`driftctl watch`): with a `Reach` of a focus, only the WebApps at
those places (namespace, name) and their Deployments are planned, but the prune guards
still count the whole desired set and the whole live state, so a prune that `apply` would
refuse (an empty Git, more than --max-prune going) is refused one WebApp at a time too.
Watch keeps those counts as objects change and hands them in (`counts`, with the desired
WebApps by place, `by_place`): then the live state need hold only the focus's objects,
and a plan of one WebApp costs the same in an instance of ten thousand as in one of ten.

Controls (core.planning.controls, against the run's `Situation`: its time, the instance's
suspension): before anything else, each WebApp's controls are decided. Git's changes held:
it is planned as Git last declared it; drift held or off: its drift is followed as ignored
fields are; a suspension: it is planned as usual, and in `finish` every write of it becomes
`Held` (core.planning.holding). A WebApp Git no longer declares goes as its prune policy
says (core.planning.pending), unless a suspension or a window holds it.

Must not talk to the cluster, nor turn dry-run answers into actions (core.planning.plan).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from driftctl import conventions as c
from driftctl.core.planning import owners
from driftctl.core.planning.actions import Conflict, Replace, Skip
from driftctl.core.planning.candidates import Candidate, Entry, Preparation
from driftctl.core.planning.controls import (
    TIMELESS,
    AppControls,
    Hold,
    Situation,
    instance_hold,
    of_declared,
)
from driftctl.core.planning.entries import Holding, Run, deployment_entry, webapp_entry
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step
from driftctl.core.planning.holding import (
    HeldChanges,
    Leave,
    drift_hold,
    held_declaration,
    held_stamp,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, webapp_manifest
from driftctl.core.planning.objects import Obj, ObjectKey, key_of, uid
from driftctl.core.planning.predicted import awaiting_owner, create_locally
from driftctl.core.planning.removals import Going, PruneCounts, cleanup, plan_removals
from driftctl.core.planning.shards import owns
from driftctl.core.source.model import Place, WebApp
from driftctl.settings import WHOLE, Drift, Policy, Shard


@dataclass(frozen=True)
class Reach:
    """What of the instance one plan covers: one shard of it (`shard`) and, with `focus`,
    only the WebApps at those places (watch's one WebApp; the prune guards count all).

    `by_place`: the desired WebApps by place, to look the focus up rather than walk them
    all; `counts`: the guards' counts of the whole instance, when the live state holds
    only the focus's objects.
    """

    shard: Shard = WHOLE
    focus: frozenset[Place] | None = None
    by_place: Mapping[Place, WebApp] | None = None
    counts: PruneCounts | None = None


EVERYWHERE = Reach()


@dataclass
class _Planned:
    """WebApps' entries: their removals (a pending cleanup) and applies, what the controls
    hold whatever the entries turn out to be, and the windows gone through, per WebApp."""

    removals: list[Entry] = field(default_factory=list)
    applies: list[Entry] = field(default_factory=list)
    holds: dict[ObjectKey, Hold] = field(default_factory=dict)
    lifted: dict[Place, str] = field(default_factory=dict)

    def add(self, other: _Planned) -> None:
        self.removals += other.removals
        self.applies += other.applies
        self.holds |= other.holds
        self.lifted |= other.lifted


def prepare(
    desired: Sequence[WebApp],
    live: LiveState,
    stamp: Stamp,
    policy: Policy | None = None,
    *,
    manager: str = c.FIELD_MANAGER,
    drift: Drift | None = None,
    situation: Situation = TIMELESS,
    reach: Reach = EVERYWHERE,
) -> Preparation:
    """Pair desired and live objects of the reach's shard and decide all that can be
    decided without the server; with a focus, only for the WebApps at those places
    (module docstring)."""
    run = Run(stamp, policy or Policy(), drift or Drift(), manager, situation)
    mine = _chosen(desired, reach)
    view = live.within(reach.shard)
    planned = _Planned()
    for app in mine:
        planned.add(_plan_app(app, view, run))
    # The whole desired set: the live view holds only this shard, and the empty-set guard
    # is about Git, not about this shard's share of it.
    going = Going(stamp.instance, run.policy, manager, stamp.revision, situation)
    by_place = reach.by_place
    wanted: Collection[Place] = by_place if by_place is not None else {a.place for a in desired}
    pruned = plan_removals(wanted, view, going, reach.focus, counts=reach.counts)
    conflicts = {entry.key for entry in planned.applies if isinstance(entry, Conflict)}
    declared = tuple(
        key for key in (ObjectKey(c.KIND, *app.place) for app in mine) if key not in conflicts
    )
    suspended = instance_hold(situation)
    if suspended is not None:
        declared = ()  # a suspended instance writes nothing at all, statuses included
    return Preparation(
        tuple(_ordered([*planned.removals, *pruned.actions]) + planned.applies),
        declared,
        pruned.refusals,
        stamp.revision,
        manager,
        planned.holds,
        planned.lifted | pruned.lifted,
        suspended.reason if suspended is not None else "",
    )


def _chosen(desired: Sequence[WebApp], reach: Reach) -> list[WebApp]:
    """The desired WebApps of the reach's shard (of its focus, when it has one), in order."""
    focus, by_place = reach.focus, reach.by_place
    if focus is not None and by_place is not None:
        chosen: Iterable[WebApp] = (by_place[place] for place in focus if place in by_place)
    else:
        chosen = (app for app in desired if focus is None or app.place in focus)
    mine = (app for app in chosen if owns(reach.shard, *app.place))
    return sorted(mine, key=lambda app: app.place)


def _ordered(entries: list[Entry]) -> list[Entry]:
    # Deletions and pending cleanups by namespace/name, WebApps before orphaned Deployments.
    return sorted(
        entries, key=lambda entry: (entry.key.namespace, entry.key.name, entry.key.kind != c.KIND)
    )


def _plan_app(app: WebApp, state: LiveState, run: Run) -> _Planned:
    """One desired WebApp's entries, by the finalizer table of its live copy, and what its
    controls hold (core.planning.controls, core.planning.holding)."""
    live = state.webapps.get(app.place)
    found = state.unowned_webapps.get(app.place) if live is None else None
    keys = (ObjectKey(c.KIND, *app.place), _deployment_key(app))
    if found is not None:
        conflict = owners.webapp_conflict(found, run.stamp.instance)
        if conflict is not None:
            theirs = f"its WebApp {c.object_ref(c.KIND, *app.place)} is another instance's"
            return _Planned([], [Conflict(keys[0], conflict), Skip(keys[1], theirs)])
        live = found
    controls = of_declared(app, live, run.policy, run.situation)
    planned = _plan_controlled(app, live, state, run, controls, adopted=found is not None)
    whole = controls.whole
    if whole is not None:
        planned.holds |= dict.fromkeys(keys, whole)
    if controls.lifted:
        planned.lifted = {app.place: controls.lifted}
    return planned


def _plan_controlled(
    app: WebApp,
    live: Obj | None,
    state: LiveState,
    run: Run,
    controls: AppControls,
    *,
    adopted: bool,
) -> _Planned:
    """The entries of one desired WebApp whose live WebApp (if any) is `live`."""
    keys = (ObjectKey(c.KIND, *app.place), _deployment_key(app))
    live_dep = state.deployments.get(app.place) or state.unowned_deployments.get(app.place)
    drifted = drift_hold(controls)
    if live is None:
        manifest = webapp_manifest(app, run.stamp)
        entries: list[Entry] = [
            Candidate(key_of(manifest), manifest, None),
            _awaiting_owner(app, live_dep, run),
        ]
        created = controls.changes
        return _Planned([], entries, dict.fromkeys(keys, created) if created else {})
    step = finalizer_step(live)
    if step is FinalizerStep.NOTHING:
        why = "being deleted without driftctl's finalizer; the next run creates it again"
        return _Planned([], [Skip(keys[0], why), Skip(keys[1], "its WebApp is being deleted")])
    held = HeldChanges()
    if controls.changes is not None:  # planned as Git last declared it (core.planning.holding)
        git = app
        app = held_declaration(live, app, run.manager)
        run = replace(run, stamp=held_stamp(run.stamp, live))
        held = HeldChanges.of(git, app, uid(live), run.stamp, controls.changes)
    manifest = webapp_manifest(app, run.stamp)
    if step is FinalizerStep.CLEANUP:
        again = "deleted in the cluster, still declared in Git: created again after cleanup"
        recreate = create_locally(manifest, "created again after its cleanup")
        # Once cleaned up, the WebApp is absent like a new entry, and the next run creates
        # it whatever the drift policy: its creation again waits only for what holds Git's.
        created = controls.changes
        return _Planned(
            [cleanup(live, state, again, run.policy.propagation)],
            [recreate, _awaiting_owner(app, None, run)],
            dict.fromkeys(keys, created) if created else {},
        )
    leave = Leave.of(controls)
    webapp = webapp_entry(manifest, live, app, run, Holding(leave, held.webapp), adopted=adopted)
    deployment = deployment_entry(
        app, live, live_dep, state, run, holding=Holding(leave, held.deployment)
    )
    holds = {}
    if drifted is not None and (_is_create(deployment) or isinstance(deployment, Replace | Skip)):
        holds[keys[1]] = drifted  # deleted, or its selector changed, in the cluster: drift
    return _Planned([], [webapp, deployment], holds)


def _awaiting_owner(app: WebApp, live: Obj | None, run: Run) -> Entry:
    return awaiting_owner(app, live, run.stamp.instance, manager=run.manager, drift=run.drift)


def _is_create(entry: Entry) -> bool:
    return isinstance(entry, Candidate) and entry.live is None


def _deployment_key(app: WebApp) -> ObjectKey:
    return ObjectKey(c.DEPLOYMENT_KIND, app.namespace, app.name)
