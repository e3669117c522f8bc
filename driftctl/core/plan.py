"""The plan: per object, one action from a fixed set, decided as data in two pure steps.

1. `prepare` pairs desired and live objects by (kind, namespace, name): a missing live
   side means create, a missing desired side means prune (as gitops-engine's reconcile
   does). It applies the finalizer table (core.finalizers), the prune guards
   (core.guards) and the local prefilter (core.compare), and lists the candidates that
   need a server-side dry-run, each with the manifest to send.
2. `finish` turns the dry-run answers into exact entries: a candidate whose normalized
   dry-run result equals the normalized live object, with the same fields owned, is
   unchanged.

Nothing here talks to the cluster; the shell sends the dry-runs and carries out the plan.
Entry order is the order to act in: deletions and pending cleanups first, then each
WebApp before its Deployment.

Deployments and their owner: a Deployment's ownerReference needs its WebApp's uid. When
the WebApp does not exist yet (or is cleaned up and created again in this run), the
Deployment is planned as create without a dry-run; the entry's `owner` names the WebApp
and the shell fills the uid in with `bind_owner` once the WebApp is applied.

Deployments without a desired WebApp: one owned by a live WebApp goes with its owner's
prune or cleanup (listed in that entry's `owned`), never separately. One whose owner is
not live at all (orphaned, e.g. a finalizer removed by hand while the garbage collector
was not running) is pruned on its own, under the same guards as WebApps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from driftctl import conventions as c
from driftctl.core import fieldset as fs
from driftctl.core.changes import field_changes, managers_of, patch_between
from driftctl.core.compare import needs_server_check, overlay
from driftctl.core.desired import Stamp, build_deployment, webapp_manifest
from driftctl.core.entries import (
    Action,
    Candidate,
    DryRunError,
    DryRunResult,
    Plan,
    PlanEntry,
    PlanOptions,
    Preparation,
)
from driftctl.core.finalizers import FinalizerStep, finalizer_step
from driftctl.core.guards import delete_body
from driftctl.core.model import WebApp
from driftctl.core.normalize import comparable, equal
from driftctl.core.objects import Obj, ObjectKey, is_terminating, key_of, uid
from driftctl.core.removals import LiveState, cleanup, plan_removals, skip

Slot = PlanEntry | Candidate


def prepare(
    desired: Sequence[WebApp],
    live_webapps: Sequence[Obj],
    live_deployments: Sequence[Obj],
    stamp: Stamp,
    options: PlanOptions | None = None,
) -> Preparation:
    """Pair desired and live objects and decide all that can be decided without the server."""
    options = options or PlanOptions()
    state = LiveState.index(live_webapps, live_deployments)
    removals: list[Slot] = []
    applies: list[Slot] = []
    for app in sorted(desired, key=lambda app: app.key):
        before, during = _plan_app(app, state, stamp, options.manager)
        removals += before
        applies += during
    pruned, refusals = plan_removals(desired, state, stamp.instance, options)
    return Preparation(
        tuple(_ordered([*removals, *pruned]) + applies), refusals, stamp.revision, options.manager
    )


def _ordered(slots: list[Slot]) -> list[Slot]:
    # Deletions and pending cleanups by namespace/name, WebApps before orphaned Deployments.
    return sorted(
        slots, key=lambda slot: (slot.key.namespace, slot.key.name, slot.key.kind != c.KIND)
    )


def _plan_app(
    app: WebApp, state: LiveState, stamp: Stamp, manager: str
) -> tuple[list[Slot], list[Slot]]:
    """(removals, applies) for one desired WebApp, by the finalizer table of its live copy."""
    manifest = webapp_manifest(app, stamp)
    live = state.webapps.get(app.key)
    live_dep = state.deployments.get(app.key)
    if live is None:
        return [], [
            Candidate(key_of(manifest), manifest, None),
            _awaiting_owner(app, stamp, live_dep),
        ]
    step = finalizer_step(live)
    if step is FinalizerStep.CLEANUP:
        again = "deleted in the cluster, still declared in Git: created again after cleanup"
        recreate = _create_locally(manifest, "created again after its cleanup")
        return [cleanup(live, state, again)], [recreate, _awaiting_owner(app, stamp, None)]
    if step is FinalizerStep.NOTHING:
        why = "being deleted without driftctl's finalizer; the next run creates it again"
        return [], [
            skip(key_of(manifest), why),
            skip(_deployment_key(app), "its WebApp is being deleted"),
        ]
    dep = build_deployment(app, stamp.instance, uid(live))
    return [], [_apply_slot(manifest, live, manager), _deployment_slot(dep, live_dep, manager)]


def _deployment_key(app: WebApp) -> ObjectKey:
    return ObjectKey(c.DEPLOYMENT_KIND, app.namespace, app.name)


def _apply_slot(manifest: Obj, live: Obj, manager: str) -> Slot:
    if needs_server_check(manifest, live, manager):
        return Candidate(key_of(manifest), manifest, live)
    return PlanEntry(key_of(manifest), Action.UNCHANGED, manifest=manifest)


def _deployment_slot(manifest: Obj, live: Obj | None, manager: str) -> Slot:
    key = key_of(manifest)
    if live is None:
        return Candidate(key, manifest, None)
    if is_terminating(live):
        return skip(key, "being deleted; the next run creates it again")
    if not equal(_selector(live), _selector(manifest)):
        return _replace(manifest, live, manager)
    return _apply_slot(manifest, live, manager)


def _selector(obj: Obj) -> object:
    return (obj.get("spec") or {}).get("selector")


def _replace(manifest: Obj, live: Obj, manager: str) -> PlanEntry:
    """An immutable field differs: the server would refuse the apply, so predict locally."""
    after = overlay(live, manifest)
    patch = patch_between(live, after)
    changes = field_changes(live, after, patch, manager)
    return PlanEntry(
        key_of(manifest),
        Action.REPLACE,
        "spec.selector is immutable: the Deployment must be deleted and created again",
        tuple(patch),
        tuple(changes),
        managers_of(changes),
        manifest=manifest,
        delete=delete_body(live),
    )


def _awaiting_owner(app: WebApp, stamp: Stamp, live: Obj | None) -> PlanEntry:
    """The Deployment of a WebApp created in this run: no uid yet, so no dry-run."""
    manifest = build_deployment(app, stamp.instance, owner_uid="")
    owner = ObjectKey(c.KIND, app.namespace, app.name)
    why = "created with its WebApp"
    if live is None:
        patch = patch_between(None, manifest)
        return PlanEntry(
            key_of(manifest), Action.CREATE, why, tuple(patch), manifest=manifest, owner=owner
        )
    after = overlay(live, manifest)
    patch = patch_between(live, after)
    changes = tuple(field_changes(live, after, patch, c.FIELD_MANAGER))
    return PlanEntry(
        key_of(manifest), Action.UPDATE, why, tuple(patch), changes, manifest=manifest, owner=owner
    )


def _create_locally(manifest: Obj, reason: str) -> PlanEntry:
    patch = tuple(patch_between(None, manifest))
    return PlanEntry(key_of(manifest), Action.CREATE, reason, patch, manifest=manifest)


def finish(preparation: Preparation, results: Mapping[ObjectKey, DryRunResult]) -> Plan:
    """The exact plan, from the dry-run answer for every candidate (keyed by object)."""
    entries = tuple(
        slot if isinstance(slot, PlanEntry) else _decide(slot, results, preparation.manager)
        for slot in preparation.slots
    )
    return Plan(_without_refused_owners(entries), preparation.refusals, preparation.revision)


def _without_refused_owners(entries: tuple[PlanEntry, ...]) -> tuple[PlanEntry, ...]:
    """A Deployment waiting for a WebApp the server refused cannot be created either."""
    refused = {entry.key for entry in entries if entry.error is not None}
    return tuple(
        skip(entry.key, f"its WebApp cannot be applied ({entry.owner.display} was refused)")
        if entry.owner is not None and entry.owner in refused
        else entry
        for entry in entries
    )


def _decide(
    candidate: Candidate, results: Mapping[ObjectKey, DryRunResult], manager: str
) -> PlanEntry:
    if candidate.key not in results:
        return _refused(candidate, "no dry-run result was given for this object")
    result = results[candidate.key]
    if isinstance(result, DryRunError):
        return _refused(candidate, result.message)
    after = candidate.manifest if result is None else result
    if candidate.live is None:
        patch = tuple(patch_between(None, after))
        return PlanEntry(
            candidate.key,
            Action.CREATE,
            "declared in Git, absent from the cluster",
            patch,
            manifest=candidate.manifest,
        )
    if _same(candidate.live, after, manager):
        return PlanEntry(candidate.key, Action.UNCHANGED, manifest=candidate.manifest)
    return _update(candidate, candidate.live, after, manager)


def _refused(candidate: Candidate, message: str) -> PlanEntry:
    reason = f"the API server refused the dry-run: {message}"
    return PlanEntry(candidate.key, Action.SKIP, reason, manifest=candidate.manifest, error=message)


def _same(live: Obj, after: Obj, manager: str) -> bool:
    """Nothing to write: equal content (stamp values aside) and the same fields owned."""
    api_version = str(after.get("apiVersion", ""))
    owned = fs.owned_fields(live, manager, api_version)
    return equal(comparable(live), comparable(after)) and owned == fs.owned_fields(
        after, manager, api_version
    )


def _update(candidate: Candidate, live: Obj, after: Obj, manager: str) -> PlanEntry:
    patch = patch_between(live, after)
    changes = field_changes(live, after, patch, manager)
    managers = managers_of(changes)
    reason = _update_reason(managers) if patch else _ownership_reason(live, after, manager)
    return PlanEntry(
        candidate.key,
        Action.UPDATE,
        reason,
        tuple(patch),
        tuple(changes),
        managers,
        manifest=candidate.manifest,
    )


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
