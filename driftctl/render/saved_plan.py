"""A plan as a saved-plan file: a versioned JSON document. Pure: returns the text.

core.planning.saved_plan reads it back (and documents what applying it does). Keys:
    format       "driftctl.example.com/saved-plan"
    version      1 (bumped when a key changes meaning; readers refuse other versions)
    driftctl     the version that wrote it (for people; not checked)
    instance, fieldManager, shard ("shard I of N"; a sharded plan is that shard's alone)
    source       {source: "<url>#<path>", commit, namespace (of WebApps that name none)}
    crd          {name, version, digest: sha256 of the generated CRD}
    policy       {prune, allowEmpty, maxPrune (N, P% or null), recreate}
    drift        {overrideManagers, ignore (["Kind:/pointer"]), ignoreManagers}: what counted
                 as drift (rules in a WebApp's annotation come from Git at the commit)
    declared     the WebApps whose status a run writes: [{kind, namespace, name}]
    refusals     the prune guards' messages
    objects      in the plan's order, one per action: kind, namespace, name, action (the
                 verb), reason, live ({uid, resourceVersion} it was planned against, or
                 null), patch (RFC 6902, live -> result), and what carrying it out needs:
                 manifest, owner, changes ({path, op, before, after, managers, field, note,
                 corrected}), removal ({fields, patch}: fields set outside Git, or null),
                 apply (whether an update sends its manifest), kept ([{path, reason, live,
                 git}]), delete, finalizerPatch, owned, error
"""

from __future__ import annotations

import json
from typing import Any

from driftctl import __version__
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Create,
    Plan,
    Prune,
    Refused,
    Replace,
    Skip,
    Unchanged,
    Update,
    changes_of,
    kept_of,
    patch_of,
)
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.saved_plan import FORMAT, VERSION, PlanIdentity, base_of
from driftctl.settings import Drift, Policy


def saved_plan_json(
    plan: Plan, live: LiveState, identity: PlanIdentity, policy: Policy, drift: Drift | None = None
) -> str:
    """The saved-plan document of `plan`, made against `live` (keys in the module docstring)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "driftctl": __version__,
        "instance": identity.instance,
        "fieldManager": identity.field_manager,
        "shard": identity.shard,
        "source": {
            "source": identity.source,
            "commit": identity.commit,
            "namespace": identity.namespace,
        },
        "crd": {
            "name": identity.crd.name,
            "version": identity.crd.version,
            "digest": identity.crd.digest,
        },
        "policy": {
            "prune": policy.prune,
            "allowEmpty": policy.allow_empty,
            "maxPrune": None if policy.max_prune is None else str(policy.max_prune),
            "recreate": policy.recreate,
        },
        "drift": _drift(drift or Drift()),
        "declared": [_key(key) for key in plan.declared],
        "refusals": list(plan.refusals),
        "objects": [_object(action, live) for action in plan.actions],
    }
    return json.dumps(document, indent=2) + "\n"


def _key(key: ObjectKey) -> dict[str, str]:
    return {"kind": key.kind, "namespace": key.namespace, "name": key.name}


def _drift(drift: Drift) -> dict[str, Any]:
    return {
        "overrideManagers": list(drift.override_managers),
        "ignore": [str(rule) for rule in drift.ignore],
        "ignoreManagers": list(drift.ignore_managers),
    }


def _change(change: FieldChange) -> dict[str, Any]:
    return {
        "path": change.path,
        "op": change.op,
        "before": change.before,
        "after": change.after,
        "managers": list(change.managers),
        "field": list(change.field),
        "note": change.note,
        "corrected": change.corrected,
    }


def _kept(kept: Kept) -> dict[str, Any]:
    return {"path": kept.path, "reason": kept.reason, "live": kept.live, "git": kept.git}


def _object(action: Action, live: LiveState) -> dict[str, Any]:
    base = base_of(live, action.key)
    out: dict[str, Any] = _key(action.key) | {
        "action": str(action.verb),
        "reason": action.reason,
        "live": None if base is None else {"uid": base[0], "resourceVersion": base[1]},
        "patch": list(patch_of(action)),
    }
    if isinstance(action, Create | Update | Replace):
        out["manifest"] = action.manifest
    if isinstance(action, Create | Update):
        out["owner"] = None if action.owner is None else _key(action.owner)
    if isinstance(action, Update | Replace | Skip):
        out["changes"] = [_change(change) for change in changes_of(action)]
    if isinstance(action, Update):
        removal = action.removal
        out["removal"] = (
            None
            if removal is None
            else {"fields": [list(path) for path in removal.fields], "patch": list(removal.patch)}
        )
        out["apply"] = action.apply
    if isinstance(action, Update | Unchanged):
        out["kept"] = [_kept(kept) for kept in kept_of(action)]
    if isinstance(action, Replace | Prune):
        out["delete"] = action.delete
    if isinstance(action, Prune | Cleanup):
        out["finalizerPatch"] = list(action.finalizer_patch)
        out["owned"] = [_key(owned.key) | {"delete": owned.body} for owned in action.owned]
    if isinstance(action, Refused):
        out["error"] = action.error
    return out
