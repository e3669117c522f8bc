"""Actions predicted locally, without a dry-run, where the server cannot answer one.

Pure. Three cases, each as the server would carry it out:
- a Deployment whose WebApp is created in this run (`awaiting_owner`): its ownerReference
  needs the WebApp's uid, which does not exist yet; the action's `owner` names the WebApp
  and the shell fills the uid in with `bind_owner` once the WebApp is applied;
- an object created again after its cleanup (`create_locally`);
- a Deployment moved to driftctl's selector with --recreate (`replace_locally`): the
  server would refuse the apply (spec.selector is immutable).

Must not decide whether to predict: core.planning.entries and core.planning.preparation
choose; this module only says what the prediction is.
"""

from __future__ import annotations

import json

from driftctl import conventions as c
from driftctl.core.planning import field_access, owners
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import Conflict, Create, Replace, Update
from driftctl.core.planning.candidates import FieldNotes
from driftctl.core.planning.changes import field_changes, patch_between
from driftctl.core.planning.from_dry_runs import annotated
from driftctl.core.planning.guards import delete_body
from driftctl.core.planning.manifests import build_deployment
from driftctl.core.planning.objects import Obj, ObjectKey, key_of
from driftctl.core.planning.outside_git import field_revert, outside_git
from driftctl.core.planning.prefilter import overlay
from driftctl.core.source.model import WebApp
from driftctl.settings import Drift

IMMUTABLE_SELECTOR = "spec.selector is immutable: the Deployment must be deleted and created again"


def replace_locally(manifest: Obj, live: Obj, manager: str) -> Replace:
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


def awaiting_owner(
    app: WebApp, live: Obj | None, instance: str, *, manager: str, drift: Drift
) -> Create | Update | Conflict:
    """The Deployment of a WebApp created in this run: no uid yet, so no dry-run."""
    manifest = build_deployment(app, instance, owner_uid="")
    owner = ObjectKey(c.KIND, app.namespace, app.name)
    why = "created with its WebApp"
    if live is None:
        patch = patch_between(None, manifest)
        return Create(key_of(manifest), why, manifest, tuple(patch), owner=owner)
    conflict = owners.deployment_conflict(live, app.name, None, instance, manager)
    if conflict is not None:
        return Conflict(key_of(manifest), conflict)
    outside = outside_git(live, manifest, drift, manager)
    revert = field_revert(live, outside)
    after = overlay(live, manifest)
    for each in outside.reverted:  # predicted locally, like the rest of this update
        after = field_access.without(after, each.path)
    patch = patch_between(live, after)
    changes = annotated(
        field_changes(live, after, patch, manager), revert, FieldNotes(), c.DEPLOYMENT_KIND
    )
    return Update(
        key_of(manifest), why, manifest, tuple(patch), changes, owner=owner, revert=revert
    )


def create_locally(manifest: Obj, reason: str) -> Create:
    """A create whose answer is known without asking: the object as `manifest` declares it."""
    patch = tuple(patch_between(None, manifest))
    return Create(key_of(manifest), reason, manifest, patch)
