"""Gentler prunes: what removing an object Git no longer declares becomes under its policy.

Pure; the guards (core.planning.guards) already allowed the prune, and the controls
(core.planning.controls) chose the policy:

| policy       | a WebApp absent from Git                                                     |
|--------------|------------------------------------------------------------------------------|
| `delete`     | pruned: deleted, its Deployment with it (the finalizer's cleanup), today's  |
| `orphan`     | its Deployments released (ownerReference and this instance's labels removed, |
|              | so that nothing claims them), then the WebApp deleted without cleanup        |
| `confirm`    | its removal recorded on it (the revision, the time); it waits, and is pruned |
|              | once an approval names its uid and that revision                            |
| `quarantine` | its removal recorded, its Deployment scaled to zero; pruned once it stayed   |
|              | absent for the grace period; back in Git, it comes back with its replicas    |

The record (driftctl.example.com/removed-in and removed-at) is written by a server-side
apply of exactly what driftctl owns of the WebApp with the two annotations added, so when
the entry comes back to Git, the next apply of it removes them (and the scale to zero is
undone the same way: the replicas are driftctl's). An approval annotation is a person's
(never drift) and counts only for the removal it names, so an approval cannot be reused
for another object or a later removal of the same one.

A Deployment whose WebApp is already gone is pruned as ever, or released under `orphan`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning import field_access
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import (
    AWAITS_APPROVAL,
    Action,
    Confirm,
    Held,
    Orphan,
    OwnedDelete,
    Patch,
    Prune,
    Quarantine,
    Release,
)
from driftctl.core.planning.changes import Operation, patch_between
from driftctl.core.planning.controls import TIMELESS, Control, RemovalControls, Situation
from driftctl.core.planning.finalizers import remove_patch
from driftctl.core.planning.guards import delete_body
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import (
    Obj,
    ObjectKey,
    annotations_of,
    key_of,
    labels_of,
    metadata,
    uid,
)
from driftctl.core.planning.prefilter import overlay
from driftctl.core.planning.verbs import Verb
from driftctl.durations import text as duration_text
from driftctl.kube_formats import api_time, parse_api_time
from driftctl.policies import Approval, PrunePolicy
from driftctl.settings import Policy

ORPHANED = "its WebApp is gone (orphaned)"


@dataclass(frozen=True)
class Going:
    """What every removal of one plan reads: the instance, the flags, the field manager, the
    Git revision (a removal's record), and the situation (the time, the instance's
    suspension)."""

    instance: str
    policy: Policy
    manager: str
    revision: str
    situation: Situation = TIMELESS


def removal(live: Obj, state: LiveState, controls: RemovalControls, going: Going) -> list[Action]:
    """What removing `live` (absent from Git, allowed by the guards) is under its policy."""
    chosen = controls.policy
    if live.get("kind") != c.KIND:
        if chosen is PrunePolicy.ORPHAN:
            return [Orphan(key_of(live), _orphaned(controls), released=(_release(live),))]
        return [Prune(key_of(live), ORPHANED, delete=_delete(live, going))]
    if chosen is PrunePolicy.ORPHAN:
        return [_orphan(live, state, controls)]
    if chosen is PrunePolicy.CONFIRM:
        return [_confirm(live, state, controls, going)]
    if chosen is PrunePolicy.QUARANTINE:
        return _quarantine(live, state, controls, going)
    return [prune(live, state, going, "not declared in Git")]


def prune(live: Obj, state: LiveState, going: Going, reason: str) -> Prune:
    """Delete a WebApp; its cleanup then deletes what it owns and removes the finalizer."""
    return Prune(
        key_of(live),
        reason,
        delete=_delete(live, going),
        finalizer_patch=tuple(remove_patch(live) or ()),
        owned=owned_deletes(live, state, going.policy),
    )


def owned_deletes(live: Obj, state: LiveState, policy: Policy) -> tuple[OwnedDelete, ...]:
    """What a WebApp's cleanup deletes: its Deployments (uid precondition only)."""
    deps = sorted(state.owned_by(live), key=key_of)
    return tuple(
        OwnedDelete(
            key_of(dep),
            delete_body(dep, with_resource_version=False, propagation=policy.propagation.api),
        )
        for dep in deps
    )


def _delete(live: Obj, going: Going) -> Obj:
    return delete_body(live, propagation=going.policy.propagation.api)


# -- orphan ------------------------------------------------------------------------------


def _orphaned(controls: RemovalControls) -> str:
    return f"not declared in Git; released, not deleted ({controls.origin})"


def _orphan(live: Obj, state: LiveState, controls: RemovalControls) -> Orphan:
    released = tuple(_release(dep, uid(live)) for dep in sorted(state.owned_by(live), key=key_of))
    names = ", ".join(each.key.display for each in released) or "nothing"
    return Orphan(
        key_of(live),
        f"not declared in Git; deleted, keeping {names} ({controls.origin})",
        delete=delete_body(live),
        finalizer_patch=tuple(remove_patch(live) or ()),
        released=released,
    )


RELEASED_LABELS = (c.INSTANCE_LABEL, c.MANAGED_BY_LABEL)


def _release(dep: Obj, owner: str | None = None) -> Release:
    """The guarded patch that frees a Deployment: its WebApp ownerReferences (of `owner`,
    or every WebApp's for one already orphaned) and the labels that claim it."""
    ops: list[Operation] = [{"op": "test", "path": "/metadata/uid", "value": uid(dep)}]
    refs = metadata(dep).get("ownerReferences") or []
    for index in reversed(range(len(refs))):
        ref = refs[index]
        if ref.get("kind") == c.KIND and owner in (None, ref.get("uid")):
            at = f"/metadata/ownerReferences/{index}"
            ops += [
                {"op": "test", "path": f"{at}/uid", "value": ref.get("uid")},
                {"op": "remove", "path": at},
            ]
    labels = labels_of(dep)
    for key in RELEASED_LABELS:
        if key in labels:
            at = field_access.json_pointer(("metadata", "labels", key))
            ops += [{"op": "test", "path": at, "value": labels[key]}, {"op": "remove", "path": at}]
    return Release(key_of(dep), tuple(ops))


# -- confirm and quarantine: a removal recorded on the WebApp, then waited for -------------


@dataclass(frozen=True)
class Record:
    """A WebApp's removal as recorded on it: the Git revision and the time it was first absent."""

    revision: str
    at: datetime.datetime

    @classmethod
    def of(cls, live: Obj) -> Record | None:
        annotations = annotations_of(live)
        revision = annotations.get(c.REMOVED_IN_ANNOTATION)
        try:
            at = parse_api_time(annotations.get(c.REMOVED_AT_ANNOTATION))
        except ValueError:
            return None
        return cls(revision, at) if revision and at is not None else None


def _now(going: Going) -> datetime.datetime:
    return going.situation.clock


def _recorded(live: Obj, going: Going) -> tuple[Obj, Patch]:
    """The apply that records the removal: what driftctl owns of `live`, and the record."""
    annotations = {
        c.REMOVED_IN_ANNOTATION: going.revision,
        c.REMOVED_AT_ANNOTATION: api_time(_now(going)),
    }
    manifest = _owned(live, going.manager)
    manifest["metadata"].setdefault("annotations", {}).update(annotations)
    return manifest, tuple(patch_between(live, overlay(live, manifest)))


def _owned(live: Obj, manager: str) -> Obj:
    """What `manager` owns of `live` by Apply, as a manifest to apply again."""
    api_version = str(live.get("apiVersion", ""))
    owned = field_access.subset(live, fs.owned_fields(live, manager, api_version))
    meta = metadata(live)
    identity = {"name": meta.get("name"), "namespace": meta.get("namespace")}
    return {
        "apiVersion": api_version,
        "kind": live.get("kind"),
        **owned,
        "metadata": {**identity, **(owned.get("metadata") or {})},
    }


def _approve_command(live: Obj, revision: str) -> str:
    key = key_of(live)
    approval = f"{c.APPROVE_PRUNE_ANNOTATION}={uid(live)}@{revision}"
    return f"kubectl annotate webapp/{key.name} -n {key.namespace} {approval}"


def _confirm(live: Obj, state: LiveState, controls: RemovalControls, going: Going) -> Action:
    record = Record.of(live)
    key = key_of(live)
    if record is None:
        manifest, patch = _recorded(live, going)
        waits = AWAITS_APPROVAL + _approve_command(live, going.revision)
        reason = f"not declared in Git since {going.revision[:12]}; {waits} ({controls.origin})"
        return Confirm(key, reason, manifest, patch)
    text = annotations_of(live).get(c.APPROVE_PRUNE_ANNOTATION)
    approval = Approval.parse(text) if text is not None else None
    if approval is not None and approval.approves(uid(live), record.revision):
        reason = f"approved by {c.APPROVE_PRUNE_ANNOTATION}: {approval}"
        return prune(live, state, going, reason)
    waits = AWAITS_APPROVAL + _approve_command(live, record.revision)
    if text is not None:
        waits += f"; the approval {text!r} names another object or another removal: ignored"
    reason = f"not declared in Git since {record.revision[:12]}; {waits}"
    return Held(key, reason, Verb.PRUNE, Control.REMOVAL)


def _quarantine(
    live: Obj, state: LiveState, controls: RemovalControls, going: Going
) -> list[Action]:
    record = Record.of(live)
    key, grace = key_of(live), going.policy.quarantine_grace
    deps = sorted(state.owned_by(live), key=key_of)
    if record is None:
        manifest, patch = _recorded(live, going)
        ends = api_time(_now(going) + grace)
        reason = (
            f"not declared in Git since {going.revision[:12]}; its Deployment is scaled to "
            f"zero, and it is pruned at {ends} ({duration_text(grace)}) unless it is back in "
            f"Git ({controls.origin})"
        )
        scaled = [_scaled(dep, going.manager, grace) for dep in deps if _replicas(dep) != 0]
        return [Quarantine(key, reason, manifest, patch), *scaled]
    ends_at = record.at + grace
    if _now(going) >= ends_at:
        reason = (
            f"quarantined since {api_time(record.at)}: absent from Git for {duration_text(grace)}"
        )
        return [prune(live, state, going, reason)]
    reason = (
        f"quarantined since {api_time(record.at)}; pruned at {api_time(ends_at)} unless "
        "it is back in Git"
    )
    rescaled = [
        _scaled(dep, going.manager, grace)
        for dep in deps
        if _replicas(dep) != 0 and _owns_replicas(dep, going.manager)
    ]
    return [Held(key, reason, Verb.PRUNE, Control.REMOVAL), *rescaled]


def _replicas(dep: Obj) -> int:
    return int((dep.get("spec") or {}).get("replicas", 1))


def _owns_replicas(dep: Obj, manager: str) -> bool:
    """Whether driftctl still owns the replicas (nobody scaled it since the quarantine)."""
    owned = fs.owned_fields(dep, manager, str(dep.get("apiVersion", "")))
    return ("f:spec", "f:replicas") in owned


def _scaled(dep: Obj, manager: str, grace: datetime.timedelta) -> Quarantine:
    manifest = _owned(dep, manager)
    manifest.setdefault("spec", {})["replicas"] = 0
    patch = tuple(patch_between(dep, overlay(dep, manifest)))
    reason = f"scaled to zero while its WebApp is quarantined ({duration_text(grace)})"
    return Quarantine(ObjectKey(c.DEPLOYMENT_KIND, *key_of(dep).place), reason, manifest, patch)
