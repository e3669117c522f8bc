"""The plan: per object, one action from a fixed set, decided as data in two pure steps.

1. `prepare` pairs desired and live objects by (kind, namespace, name): a missing live
   side means create, a missing desired side means prune (as gitops-engine's reconcile
   does). It applies the finalizer table (core.planning.finalizers), the prune guards
   (core.planning.guards) and the local prefilter (core.planning.prefilter), and lists
   the candidates that need a server-side dry-run, each with the manifest to send.
2. `finish` turns the dry-run answers into exact entries: a candidate whose normalized
   dry-run result equals the normalized live object, with the same fields owned, is
   unchanged.

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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import (
    Action,
    Candidate,
    Chain,
    Create,
    DryRunError,
    DryRunResult,
    Plan,
    Preparation,
    Refused,
    Replace,
    Skip,
    Step,
    Unchanged,
    Update,
    WriteStatus,
)
from driftctl.core.planning.changes import field_changes, managers_of, patch_between
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step
from driftctl.core.planning.guards import delete_body
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.normalize import comparable, equal
from driftctl.core.planning.objects import Obj, ObjectKey, is_terminating, key_of, uid
from driftctl.core.planning.prefilter import needs_server_check, overlay
from driftctl.core.planning.removals import cleanup, plan_removals
from driftctl.core.planning.shards import owns
from driftctl.core.source.model import WebApp
from driftctl.settings import WHOLE, Policy, Shard

Slot = Action | Candidate


def prepare(
    desired: Sequence[WebApp],
    live: LiveState,
    stamp: Stamp,
    policy: Policy | None = None,
    manager: str = c.FIELD_MANAGER,
    *,
    shard: Shard = WHOLE,
) -> Preparation:
    """Pair desired and live objects of `shard` and decide all that can be decided without
    the server."""
    policy = policy or Policy()
    mine = sorted((app for app in desired if owns(shard, *app.key)), key=lambda app: app.key)
    view = live.within(shard)
    removals: list[Slot] = []
    applies: list[Slot] = []
    for app in mine:
        before, during = _plan_app(app, view, stamp, policy, manager)
        removals += before
        applies += during
    # The whole desired set: the live view holds only this shard, and the empty-set guard
    # is about Git, not about this shard's share of it.
    pruned, refusals = plan_removals(desired, view, stamp.instance, policy)
    declared = tuple(ObjectKey(c.KIND, *app.key) for app in mine)
    return Preparation(
        tuple(_ordered([*removals, *pruned]) + applies),
        declared,
        refusals,
        stamp.revision,
        manager,
    )


def _ordered(slots: list[Slot]) -> list[Slot]:
    # Deletions and pending cleanups by namespace/name, WebApps before orphaned Deployments.
    return sorted(
        slots, key=lambda slot: (slot.key.namespace, slot.key.name, slot.key.kind != c.KIND)
    )


def _plan_app(
    app: WebApp, state: LiveState, stamp: Stamp, policy: Policy, manager: str
) -> tuple[list[Slot], list[Slot]]:
    """(removals, applies) for one desired WebApp, by the finalizer table of its live copy."""
    manifest = webapp_manifest(app, stamp)
    live = state.webapps.get(app.key)
    live_dep = state.deployments.get(app.key)
    if live is None:
        return [], [
            Candidate(key_of(manifest), manifest, None),
            _awaiting_owner(app, stamp, live_dep, manager),
        ]
    step = finalizer_step(live)
    if step is FinalizerStep.CLEANUP:
        again = "deleted in the cluster, still declared in Git: created again after cleanup"
        recreate = _create_locally(manifest, "created again after its cleanup")
        return [cleanup(live, state, again)], [recreate, _awaiting_owner(app, stamp, None, manager)]
    if step is FinalizerStep.NOTHING:
        why = "being deleted without driftctl's finalizer; the next run creates it again"
        return [], [
            Skip(key_of(manifest), why),
            Skip(_deployment_key(app), "its WebApp is being deleted"),
        ]
    dep = build_deployment(app, stamp.instance, uid(live))
    return [], [
        _apply_slot(manifest, live, manager),
        _deployment_slot(dep, live_dep, policy, manager),
    ]


def _deployment_key(app: WebApp) -> ObjectKey:
    return ObjectKey(c.DEPLOYMENT_KIND, app.namespace, app.name)


def _apply_slot(manifest: Obj, live: Obj, manager: str) -> Slot:
    if needs_server_check(manifest, live, manager):
        return Candidate(key_of(manifest), manifest, live)
    return Unchanged(key_of(manifest))


def _deployment_slot(manifest: Obj, live: Obj | None, policy: Policy, manager: str) -> Slot:
    key = key_of(manifest)
    if live is None:
        return Candidate(key, manifest, None)
    if is_terminating(live):
        return Skip(key, "being deleted; the next run creates it again")
    if not equal(_selector(live), _selector(manifest)):
        return _replace(manifest, live, policy, manager)
    return _apply_slot(manifest, live, manager)


def _selector(obj: Obj) -> object:
    return (obj.get("spec") or {}).get("selector")


IMMUTABLE_SELECTOR = "spec.selector is immutable: the Deployment must be deleted and created again"


def _replace(manifest: Obj, live: Obj, policy: Policy, manager: str) -> Replace | Skip:
    """An immutable field differs: the server would refuse the apply, so predict locally.

    Without --recreate the replacement is not carried out, and the plan says so.
    """
    after = overlay(live, manifest)
    patch = patch_between(live, after)
    changes = tuple(field_changes(live, after, patch, manager))
    key = key_of(manifest)
    if not policy.recreate:
        return Skip(key, f"{IMMUTABLE_SELECTOR} (run with --recreate to do it)", changes)
    return Replace(key, IMMUTABLE_SELECTOR, manifest, tuple(patch), changes, delete_body(live))


def _awaiting_owner(app: WebApp, stamp: Stamp, live: Obj | None, manager: str) -> Create | Update:
    """The Deployment of a WebApp created in this run: no uid yet, so no dry-run."""
    manifest = build_deployment(app, stamp.instance, owner_uid="")
    owner = ObjectKey(c.KIND, app.namespace, app.name)
    why = "created with its WebApp"
    if live is None:
        patch = patch_between(None, manifest)
        return Create(key_of(manifest), why, manifest, tuple(patch), owner=owner)
    after = overlay(live, manifest)
    patch = patch_between(live, after)
    changes = tuple(field_changes(live, after, patch, manager))
    return Update(key_of(manifest), why, manifest, tuple(patch), changes, owner=owner)


def _create_locally(manifest: Obj, reason: str) -> Create:
    patch = tuple(patch_between(None, manifest))
    return Create(key_of(manifest), reason, manifest, patch)


def finish(
    preparation: Preparation,
    results: Mapping[ObjectKey, DryRunResult],
    *,
    creates_answer: bool = False,
) -> Plan:
    """The exact plan, from the dry-run answer for every candidate (keyed by object).

    `creates_answer`: apply sent no dry-run for candidates absent from the cluster; their
    create's own answer decides (module docstring).
    """
    manager = preparation.manager
    actions = tuple(
        _decide(slot, results, manager, creates_answer) if isinstance(slot, Candidate) else slot
        for slot in preparation.slots
    )
    return Plan(
        _without_refused_owners(actions),
        preparation.declared,
        preparation.refusals,
        preparation.revision,
    )


def _without_refused_owners(actions: tuple[Action, ...]) -> tuple[Action, ...]:
    """A Deployment waiting for a WebApp the server refused cannot be created either."""
    refused = {action.key for action in actions if isinstance(action, Refused)}
    return tuple(_unless_owner_refused(action, refused) for action in actions)


def _unless_owner_refused(action: Action, refused: set[ObjectKey]) -> Action:
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
            out.append(_unless_owner_refused(step, {refused.key}))
    return tuple(out)


def _decide(
    candidate: Candidate,
    results: Mapping[ObjectKey, DryRunResult],
    manager: str,
    creates_answer: bool,
) -> Action:
    if candidate.live is None and creates_answer and candidate.key not in results:
        patch = tuple(patch_between(None, candidate.manifest))
        return Create(candidate.key, _ABSENT, candidate.manifest, patch, unchecked=True)
    if candidate.key not in results:
        return _refused(candidate, "no dry-run result was given for this object")
    result = results[candidate.key]
    if isinstance(result, DryRunError):
        return _refused(candidate, result.message)
    after = candidate.manifest if result is None else result
    if candidate.live is None:
        patch = tuple(patch_between(None, after))
        return Create(candidate.key, _ABSENT, candidate.manifest, patch)
    if _same(candidate.live, after, manager):
        return Unchanged(candidate.key)
    return _update(candidate, candidate.live, after, manager)


_ABSENT = "declared in Git, absent from the cluster"


def _refused(candidate: Candidate, message: str) -> Refused:
    return Refused(candidate.key, f"the API server refused the dry-run: {message}", message)


def _same(live: Obj, after: Obj, manager: str) -> bool:
    """Nothing to write: equal content (stamp values aside) and the same fields owned."""
    api_version = str(after.get("apiVersion", ""))
    owned = fs.owned_fields(live, manager, api_version)
    return equal(comparable(live), comparable(after)) and owned == fs.owned_fields(
        after, manager, api_version
    )


def _update(candidate: Candidate, live: Obj, after: Obj, manager: str) -> Update:
    patch = patch_between(live, after)
    changes = tuple(field_changes(live, after, patch, manager))
    reason = (
        _update_reason(managers_of(changes)) if patch else _ownership_reason(live, after, manager)
    )
    return Update(candidate.key, reason, candidate.manifest, tuple(patch), changes)


def _update_reason(managers: tuple[str, ...]) -> str:
    if managers:
        return "differs from Git; changed in the cluster by " + ", ".join(managers)
    return "differs from Git"


def _ownership_reason(live: Obj, after: Obj, manager: str) -> str:
    api_version = str(after.get("apiVersion", ""))
    gained = fs.owned_fields(after, manager, api_version) - fs.owned_fields(
        live, manager, api_version
    )
    shown = (
        ", ".join(sorted(fs.display_path(path) for path in gained)[:3])
        or "fields it no longer sets"
    )
    return f"values equal Git; driftctl takes back ownership of {shown}"
