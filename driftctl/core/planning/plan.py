"""The plan: per object, one action from a fixed set, decided as data in two pure steps.

1. `prepare` pairs desired and live objects by (kind, namespace, name): a missing live
   side means create, a missing desired side means prune (as gitops-engine's reconcile
   does). It applies the finalizer table (core.planning.finalizers), the prune guards
   (core.planning.guards) and the local prefilter (core.planning.prefilter), and lists
   the candidates that need a server-side dry-run, each with the manifest to send.
2. `finish` turns the dry-run answers into exact actions (core.planning.from_dry_runs): a
   candidate whose normalized dry-run result equals the normalized live object, with the
   same fields owned, is unchanged.

A sharded run plans only its shard (core.planning.shards): the desired WebApps and the
live state are narrowed to it before pairing, so another shard's object is never planned,
counted by a prune guard or pruned, and a WebApp that moved to another shard (the shard
count changed) is simply no longer seen by its old one. Only the empty-desired-set guard
looks at the whole of Git: a shard without WebApps is normal, an empty Git is not.

Creates in apply: a dry-run of an object that does not exist can only answer "it would
be created" or refuse it, and the create itself gives the same answer. So `plan`
dry-runs every candidate, and `apply` only those that exist (`Preparation.updates`):
`finish(..., creates_answer=True)` makes the others `Create(unchecked=True)`, and when
the server refuses such a create, `after_refusal` gives the chain exactly the actions a
plan with that refused dry-run has (the object Refused, what waits for it skipped).

Nothing here talks to the cluster; the shell sends the dry-runs and carries out the plan.
The plan lists deletions and pending cleanups first, then each WebApp before its
Deployment; `Plan.stages` is the order the shell acts in. Every choice of what apply will
do is made here, from the flags in `settings.Policy` (`--recreate` included), so `plan`
and `apply` given the same flags say the same thing.

Deployments and their owner: a Deployment's ownerReference needs its WebApp's uid. When
the WebApp does not exist yet (or is cleaned up and created again in this run), the
Deployment is planned as create without a dry-run; the action's `owner` names the WebApp
and the shell fills the uid in with `bind_owner` once the WebApp is applied.

Deployments without a desired WebApp: one owned by a live WebApp goes with its owner's
prune or cleanup (listed in that action's `owned`), never separately. One whose owner is
not live at all (orphaned, e.g. a finalizer removed by hand while the garbage collector
was not running) is pruned on its own, under the same guards as WebApps.

One WebApp at a time (`driftctl watch`): with `focus`, only the WebApps at those places
(namespace, name) and their Deployments are planned, but the prune guards still count the
whole desired set and the whole live state, so a prune that `apply` would refuse (an
empty Git, more than --max-prune going) is refused one WebApp at a time too. Watch keeps
those counts as objects change and hands them in (`counts`, with the desired WebApps by
place, `by_place`): then the live state need hold only the focus's objects, and a plan of
one WebApp costs the same in an instance of ten thousand as in one of ten.

Controls (core.planning.controls, against the run's `Situation`: its time, the instance's
suspension): before anything else, each WebApp's controls are decided. Git's changes held:
it is planned as Git last declared it; drift held or off: its drift is followed as ignored
fields are; a suspension: it is planned as usual, and in `finish` every write of it becomes
`Held` (core.planning.holding). A WebApp Git no longer declares goes as its prune policy
says (core.planning.pending), unless a suspension or a window holds it.

Drift (settings.Drift): before the prefilter, each object's ignored fields are followed
(core.planning.ignoring) and its fields set outside Git found (core.planning.outside_git);
those become a guarded revert that is dry-run beside the apply. Objects of another owner
are conflicts (core.planning.owners); a change that corrects drift already corrected in
earlier runs, by the same manager, is counted as a fight (core.planning.fights).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace

from driftctl import conventions as c
from driftctl.core.planning import field_access, fights, ignoring, owners
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import (
    Action,
    Candidate,
    Chain,
    Conflict,
    Create,
    DryRunResult,
    Entry,
    FieldNotes,
    FieldRevert,
    Plan,
    Preparation,
    Refused,
    Replace,
    Skip,
    Step,
    Unchanged,
    Update,
    WriteStatus,
    is_changing,
)
from driftctl.core.planning.changes import Kept, field_changes, patch_between
from driftctl.core.planning.controls import (
    TIMELESS,
    AppControls,
    Hold,
    Situation,
    instance_hold,
    of_declared,
)
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step
from driftctl.core.planning.from_dry_runs import RevertAnswer, annotated, exact_action
from driftctl.core.planning.guards import delete_body, is_ours
from driftctl.core.planning.holding import (
    HeldChanges,
    Leave,
    controlled,
    drift_hold,
    drift_left,
    held_declaration,
    held_stamp,
    last_applied,
    marked,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import (
    Stamp,
    build_deployment,
    keeping_selector,
    selector_text,
    webapp_manifest,
)
from driftctl.core.planning.normalize import equal
from driftctl.core.planning.objects import (
    Obj,
    ObjectKey,
    annotations_of,
    is_terminating,
    key_of,
    uid,
)
from driftctl.core.planning.outside_git import OutsideGit, outside_git, revert_patch
from driftctl.core.planning.prefilter import needs_server_check, overlay
from driftctl.core.planning.removals import Going, PruneCounts, cleanup, plan_removals
from driftctl.core.planning.shards import owns
from driftctl.core.source.model import Place, WebApp
from driftctl.settings import WHOLE, Drift, Policy, Shard

ADOPTED = "made without an instance label, declared in Git"


@dataclass(frozen=True)
class _Run:
    """What every decision of one plan reads: the stamp, the flags, the field manager, and
    what the controls are decided against (the time, the instance's suspension)."""

    stamp: Stamp
    policy: Policy
    drift: Drift
    manager: str
    situation: Situation = TIMELESS


@dataclass
class _Planned:
    """One WebApp's entries: its removals (a pending cleanup) and applies, and what the
    controls hold whatever the entries turn out to be."""

    removals: list[Entry]
    applies: list[Entry]
    holds: dict[ObjectKey, Hold] = field(default_factory=dict)
    lifted: str = ""


def prepare(
    desired: Sequence[WebApp],
    live: LiveState,
    stamp: Stamp,
    policy: Policy | None = None,
    *,
    manager: str = c.FIELD_MANAGER,
    drift: Drift | None = None,
    shard: Shard = WHOLE,
    focus: frozenset[Place] | None = None,
    situation: Situation = TIMELESS,
    by_place: Mapping[Place, WebApp] | None = None,
    counts: PruneCounts | None = None,
) -> Preparation:
    """Pair desired and live objects of `shard` and decide all that can be decided without
    the server; with `focus`, only for the WebApps at those places (module docstring).

    `by_place`: `desired` by place, to look the focus up rather than walk them all;
    `counts`: the guards' counts of the whole instance, when `live` holds only the focus.
    """
    run = _Run(stamp, policy or Policy(), drift or Drift(), manager, situation)
    if focus is not None and by_place is not None:
        chosen: Iterable[WebApp] = (by_place[place] for place in focus if place in by_place)
    else:
        chosen = (app for app in desired if focus is None or app.place in focus)
    mine = sorted((app for app in chosen if owns(shard, *app.place)), key=lambda app: app.place)
    view = live.within(shard)
    removals: list[Entry] = []
    applies: list[Entry] = []
    holds: dict[ObjectKey, Hold] = {}
    lifted: dict[Place, str] = {}
    for app in mine:
        planned = _plan_app(app, view, run)
        removals += planned.removals
        applies += planned.applies
        holds |= planned.holds
        if planned.lifted:
            lifted[app.place] = planned.lifted
    # The whole desired set: the live view holds only this shard, and the empty-set guard
    # is about Git, not about this shard's share of it.
    going = Going(stamp.instance, run.policy, manager, stamp.revision, situation)
    wanted: Collection[Place] = by_place if by_place is not None else {a.place for a in desired}
    pruned = plan_removals(wanted, view, going, focus, counts=counts)
    lifted |= pruned.lifted
    conflicts = {entry.key for entry in applies if isinstance(entry, Conflict)}
    declared = tuple(
        key for key in (ObjectKey(c.KIND, *app.place) for app in mine) if key not in conflicts
    )
    suspended = instance_hold(situation)
    if suspended is not None:
        declared = ()  # a suspended instance writes nothing at all, statuses included
    return Preparation(
        tuple(_ordered([*removals, *pruned.actions]) + applies),
        declared,
        pruned.refusals,
        stamp.revision,
        manager,
        holds,
        lifted,
        suspended.reason if suspended is not None else "",
    )


def _ordered(entries: list[Entry]) -> list[Entry]:
    # Deletions and pending cleanups by namespace/name, WebApps before orphaned Deployments.
    return sorted(
        entries, key=lambda entry: (entry.key.namespace, entry.key.name, entry.key.kind != c.KIND)
    )


def _plan_app(app: WebApp, state: LiveState, run: _Run) -> _Planned:
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
    planned.lifted = controls.lifted
    return planned


def _plan_controlled(
    app: WebApp,
    live: Obj | None,
    state: LiveState,
    run: _Run,
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
        recreate = _create_locally(manifest, "created again after its cleanup")
        # Once cleaned up, the WebApp is absent like a new entry, and the next run creates
        # it whatever the drift policy: its creation again waits only for what holds Git's.
        created = controls.changes
        return _Planned(
            [cleanup(live, state, again, run.policy.propagation)],
            [recreate, _awaiting_owner(app, None, run)],
            dict.fromkeys(keys, created) if created else {},
        )
    leave = Leave.of(controls)
    webapp = _webapp_entry(manifest, live, app, run, adopted=adopted, leave=leave, held=held.webapp)
    deployment = _deployment_entry(
        app, live, live_dep, state, run, leave=leave, held=held.deployment
    )
    holds = {}
    if drifted is not None and (_is_create(deployment) or isinstance(deployment, Replace | Skip)):
        holds[keys[1]] = drifted  # deleted, or its selector changed, in the cluster: drift
    return _Planned([], [webapp, deployment], holds)


def _is_create(entry: Entry) -> bool:
    return isinstance(entry, Candidate) and entry.live is None


def _deployment_key(app: WebApp) -> ObjectKey:
    return ObjectKey(c.DEPLOYMENT_KIND, app.namespace, app.name)


def _webapp_entry(
    manifest: Obj,
    live: Obj,
    app: WebApp,
    run: _Run,
    *,
    adopted: bool,
    leave: Leave | None,
    held: tuple[Kept, ...],
) -> Entry:
    rules = (*run.drift.ignore, *app.ignore)
    ignored = ignoring.ignored_fields(live, manifest, rules, run.drift, run.manager)
    reason = ADOPTED if adopted else _restored(live)
    record = fights.record_of(live)
    previous = manifest  # the WebApp is Git's declaration: what it keeps is never Git's change
    if leave is not None:  # but drift left as it is: Git as last applied tells Git's changes
        applied = last_applied(live, app, run.manager)
        previous = webapp_manifest(applied, held_stamp(run.stamp, live))
    return _apply_entry(
        manifest,
        live,
        run,
        ignored=ignored,
        previous=previous,
        record=record,
        reason=reason,
        leave=leave,
        held=held,
        adopting=adopted,
    )


def _restored(live: Obj) -> str:
    """Why a WebApp whose removal was pending (confirm, quarantine) changes: it is back."""
    if c.REMOVED_IN_ANNOTATION in annotations_of(live):
        return "back in Git: its pending removal is dropped"
    return ""


def _deployment_entry(
    app: WebApp,
    owner: Obj,
    live: Obj | None,
    state: LiveState,
    run: _Run,
    *,
    leave: Leave | None,
    held: tuple[Kept, ...],
) -> Entry:
    manifest = build_deployment(app, run.stamp.instance, uid(owner))
    key = key_of(manifest)
    if live is None:
        return Candidate(key, manifest, None)
    conflict = owners.deployment_conflict(
        live, app.name, uid(owner), run.stamp.instance, run.manager
    )
    if conflict is not None:
        return Conflict(key, conflict)
    if is_terminating(live):
        return Skip(key, "being deleted; the next run creates it again")
    reason, adopting = "", False
    if not equal(_selector(live), _selector(manifest)):
        if run.policy.recreate:
            return _replace(manifest, live, run.manager)
        manifest = keeping_selector(manifest, live)
        adopting = not is_ours(live, run.stamp.instance)
        reason = _kept_selector(live) if adopting else ""
    rules = (*run.drift.ignore, *app.ignore)
    scaler = state.autoscalers.get(app.place)
    ignored = ignoring.ignored_fields(
        live, manifest, rules, run.drift, run.manager, autoscaler=scaler
    )
    before = manifest
    if ignored or leave is not None:  # Git as last applied tells whether Git changed a field
        previous = ignoring.previous_declaration(owner, app, run.manager)
        before = build_deployment(previous, run.stamp.instance, uid(owner))
        if not equal(_selector(live), _selector(before)):
            before = keeping_selector(before, live)
    record = fights.record_of(owner)
    reason = reason or _restored(owner)
    return _apply_entry(
        manifest,
        live,
        run,
        ignored=ignored,
        previous=before,
        record=record,
        reason=reason,
        leave=leave,
        held=held,
        adopting=adopting,
    )


def _kept_selector(live: Obj) -> str:
    """Why a Deployment is adopted with its own selector."""
    return (
        f"its WebApp controls it; its selector {selector_text(_selector(live) or {})} and "
        "Pod template are "
        "kept, so no Pod restarts (--recreate moves it to driftctl's selector)"
    )


def _apply_entry(
    manifest: Obj,
    live: Obj,
    run: _Run,
    *,
    ignored: ignoring.Ignored,
    previous: Obj,
    record: fights.Record,
    reason: str = "",
    leave: Leave | None = None,
    held: tuple[Kept, ...] = (),
    adopting: bool = False,
) -> Entry:
    """Unchanged when nothing can change; else a candidate for the server's dry-runs (an
    adoption's, when `adopting`: the object is not this instance's yet).

    `leave`: drift stays as the cluster has it (core.planning.holding.drift_left); `held`:
    Git's changes a hold keeps out, reported beside what the object keeps.
    """
    followed_fields, outside_fields = ignored, ignored
    if leave is not None:
        followed_fields = (*ignored, *drift_left(manifest, ignored, leave.reason))
        outside_fields = (*ignored, ((), leave.reason))
    followed = ignoring.follow(manifest, live, followed_fields, previous, run.manager)
    outside = outside_git(live, followed.manifest, run.drift, run.manager, outside_fields)
    revert = _revert(live, outside)
    check = needs_server_check(followed.manifest, live, run.manager)
    followed_paths = {each.path for each in followed.kept}  # a field is kept once
    kept = followed.kept + tuple(k for k in outside.kept if k.path not in followed_paths)
    if leave is not None:
        kept = marked(kept, leave.reason, leave.control)
    kept += held
    key = key_of(manifest)
    if not check and revert is None:
        return Unchanged(key, kept=kept, foreign=outside.foreign)
    kind = key.kind
    corrections = {name: entry for (of, name), entry in record.items() if of == kind}
    applied = followed.applied
    if leave is not None:  # a field Git changed is simply applied, drift left or not
        applied = tuple(each for each in applied if not each[1].startswith(leave.reason))
    notes = FieldNotes(kept, outside.foreign, applied, corrections, reason)
    return Candidate(key, followed.manifest, live, revert, check, notes, adopting)


def _revert(live: Obj, outside: OutsideGit) -> FieldRevert | None:
    if not outside.reverted:
        return None
    paths = tuple(each.path for each in outside.reverted)
    return FieldRevert(paths, revert_patch(live, outside.reverted))


def _selector(obj: Obj) -> Obj | None:
    selector: Obj | None = (obj.get("spec") or {}).get("selector")
    return selector


IMMUTABLE_SELECTOR = "spec.selector is immutable: the Deployment must be deleted and created again"


def _replace(manifest: Obj, live: Obj, manager: str) -> Replace:
    """A selector other than driftctl's, moved to driftctl's with --recreate: the server
    would refuse the apply (an immutable field), so predict locally.

    Without --recreate the live selector is kept instead (`keeping_selector`). The object
    made again holds what `manifest` sets and the server's defaults, nothing any manager set
    before (the old manager's labels go): so the prediction starts from the live object
    without every field a manager owns.
    """
    after = overlay(_defaults_only(live), manifest)
    patch = patch_between(live, after)
    changes = tuple(field_changes(live, after, patch, manager))
    key = key_of(manifest)
    return Replace(key, IMMUTABLE_SELECTOR, manifest, tuple(patch), changes, delete_body(live))


def _defaults_only(live: Obj) -> Obj:
    """The live object without the fields its managers set: what the server filled in (the
    key of a keyed list item stays, so the defaults under it stay with their item)."""
    out = live
    for entry in fs.managed_entries(live):
        if entry.get("subresource"):
            continue
        for path in sorted(fs.tree_paths(entry.get("fieldsV1") or {}), key=len, reverse=True):
            if not _is_item_key(path):
                out = field_access.without(out, path)
    return out


def _is_item_key(path: fs.FieldPath) -> bool:
    """Whether `path` is a key field of its keyed list item (`containers[name=app].name`)."""
    if len(path) < 2 or not path[-2].startswith("k:") or not path[-1].startswith("f:"):
        return False
    return path[-1][2:] in json.loads(path[-2][2:])


def _awaiting_owner(app: WebApp, live: Obj | None, run: _Run) -> Create | Update | Conflict:
    """The Deployment of a WebApp created in this run: no uid yet, so no dry-run."""
    manifest = build_deployment(app, run.stamp.instance, owner_uid="")
    owner = ObjectKey(c.KIND, app.namespace, app.name)
    why = "created with its WebApp"
    if live is None:
        patch = patch_between(None, manifest)
        return Create(key_of(manifest), why, manifest, tuple(patch), owner=owner)
    conflict = owners.deployment_conflict(live, app.name, None, run.stamp.instance, run.manager)
    if conflict is not None:
        return Conflict(key_of(manifest), conflict)
    outside = outside_git(live, manifest, run.drift, run.manager)
    revert = _revert(live, outside)
    after = overlay(live, manifest)
    for each in outside.reverted:  # predicted locally, like the rest of this update
        after = field_access.without(after, each.path)
    patch = patch_between(live, after)
    changes = annotated(
        field_changes(live, after, patch, run.manager), revert, FieldNotes(), c.DEPLOYMENT_KIND
    )
    return Update(
        key_of(manifest), why, manifest, tuple(patch), changes, owner=owner, revert=revert
    )


def _create_locally(manifest: Obj, reason: str) -> Create:
    patch = tuple(patch_between(None, manifest))
    return Create(key_of(manifest), reason, manifest, patch)


def finish(
    preparation: Preparation,
    results: Mapping[ObjectKey, DryRunResult],
    reverted: Mapping[ObjectKey, RevertAnswer] | None = None,
    *,
    creates_answer: bool = False,
    updates_answer: bool = False,
) -> Plan:
    """The exact plan, from the dry-run answers for every candidate (keyed by object): of
    its apply, and of its revert of fields set outside Git when it has one.

    `creates_answer`: apply sent no dry-run for candidates absent from the cluster; their
    create's own answer decides (module docstring). `updates_answer` (watch): nor for
    those that exist; their writes' answers decide (core.planning.from_dry_runs.answered).
    """
    actions = tuple(
        exact_action(
            entry,
            results,
            reverted or {},
            preparation.manager,
            creates_answer=creates_answer,
            updates_answer=updates_answer,
        )
        if isinstance(entry, Candidate)
        else entry
        for entry in preparation.entries
    )
    held = tuple(
        controlled(action, preparation.holds) for action in _without_refused_owners(actions)
    )
    writing = {action.key.place for action in held if is_changing(action)}
    return Plan(
        held,
        preparation.declared,
        preparation.refusals,
        preparation.revision,
        {place: note for place, note in preparation.lifted.items() if place in writing},
        preparation.suspended,
        preparation.holds,
    )


def _without_refused_owners(actions: tuple[Action, ...]) -> tuple[Action, ...]:
    """A Deployment waiting for a WebApp the server refused cannot be created either."""
    refused = {action.key for action in actions if isinstance(action, Refused)}
    return tuple(unless_owner_refused(action, refused) for action in actions)


def unless_owner_refused(action: Action, refused: AbstractSet[ObjectKey]) -> Action:
    """`action`, or a Skip when it waits for a WebApp in `refused` (its uid would never come).

    One rule wherever an owner is refused: by the server's dry-run (`finish`), by the
    server's create (`after_refusal`), or because it moved since a saved plan was made
    (core.planning.saved_plan). The Deployment itself is not refused: nothing is sent for
    it, apply reports it skipped, and the failure is counted once, on the WebApp.
    """
    if isinstance(action, Create | Update) and action.owner is not None and action.owner in refused:
        return Skip(
            action.key, f"its WebApp cannot be applied ({action.owner.display} was refused)"
        )
    return action


def after_refusal(chain: Chain, refused: Create, message: str) -> Chain:
    """A chain whose unchecked create the API server refused, as plan would have planned it.

    The create becomes Refused with the server's message, and each step waiting for it
    (a Deployment that needs its uid) a Skip, as `finish` makes them from a refused dry-run.
    """
    out: list[Step] = []
    for step in chain:
        if step == refused:
            out.append(
                Refused(refused.key, f"the API server refused the create: {message}", message)
            )
        elif isinstance(step, WriteStatus):
            out.append(step)
        else:
            out.append(unless_owner_refused(step, {refused.key}))
    return tuple(out)
