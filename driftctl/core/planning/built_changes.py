"""What a change of the desired state does to the objects driftctl builds, with no cluster.

Pure. The Deployments of both sides are built with `manifests.build_deployment` (the same
function a run applies) and compared with the same field-change machinery a plan uses, so
`check` shows what a pull request changes in each Deployment, not only in each WebApp: a
new image is also `spec.template.spec.containers[name=app].image`, a new label is also on
the Deployment. Owner uids are left empty on both sides: they come from the cluster.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.changes import FieldChange, field_changes, patch_between
from driftctl.core.planning.commit_diff import CommitDiff, declared_changes
from driftctl.core.planning.manifests import build_deployment
from driftctl.core.planning.normalize import STAMP_ANNOTATIONS, normalize
from driftctl.core.planning.objects import Obj, ObjectKey, key_of
from driftctl.core.planning.redaction import masked_change
from driftctl.core.source.model import WebApp, WebAppSpec

_IDENTITY = {"apiVersion", "kind", "metadata.name", "metadata.namespace"}
_STAMPS = {f"metadata.annotations.{key}" for key in STAMP_ANNOTATIONS}
# A created Deployment's owner is the WebApp created with it; its uid is not known yet.
_OWNER = "metadata.ownerReferences"


class Change(enum.StrEnum):
    """What happens to an object between the two sides."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


@dataclass(frozen=True)
class BuiltChange:
    """One built object that differs between the sides, with its (masked) field changes."""

    key: ObjectKey
    change: Change
    fields: tuple[FieldChange, ...]


def webapp_changes(diff: CommitDiff) -> tuple[BuiltChange, ...]:
    """The WebApps added, removed and changed by `diff`, as declared in Git, by key."""
    out = [BuiltChange(_webapp_key(app), Change.ADDED, _declared(app)) for app in diff.added]
    out += [BuiltChange(_webapp_key(app), Change.REMOVED, ()) for app in diff.removed]
    out += [
        BuiltChange(
            _webapp_key(changed.after),
            Change.CHANGED,
            shown(declared_changes(changed.before, changed.after)),
        )
        for changed in diff.changed
    ]
    return tuple(sorted(out, key=lambda built: built.key))


def _webapp_key(app: WebApp) -> ObjectKey:
    return ObjectKey(c.KIND, app.namespace, app.name)


def _declared(app: WebApp) -> tuple[FieldChange, ...]:
    empty = WebApp(app.name, app.namespace, WebAppSpec("", 0))
    fields = [
        FieldChange.of("spec.image", None, app.spec.image),
        FieldChange.of("spec.replicas", None, app.spec.replicas),
    ]
    fields += [f for f in declared_changes(empty, app) if not f.path.startswith("spec.")]
    return tuple(masked_change(field) for field in fields)


def deployment_changes(diff: CommitDiff, instance: str) -> tuple[BuiltChange, ...]:
    """The Deployments the WebApps added, removed and changed by `diff` alter, by key."""
    out = [_added(build_deployment(app, instance, "")) for app in diff.added]
    out += [
        BuiltChange(key_of(build_deployment(app, instance, "")), Change.REMOVED, ())
        for app in diff.removed
    ]
    for changed in diff.changed:
        before = build_deployment(changed.before, instance, "")
        after = build_deployment(changed.after, instance, "")
        fields = between(before, after)
        if fields:
            out.append(BuiltChange(key_of(after), Change.CHANGED, fields))
    return tuple(sorted(out, key=lambda built: built.key))


def between(before: Obj, after: Obj) -> tuple[FieldChange, ...]:
    """The masked field changes from `before` to `after`, driftctl's stamp left out."""
    patch = patch_between(before, after)
    return shown(field_changes(before, after, patch, c.FIELD_MANAGER))


def shown(changes: Iterable[FieldChange]) -> tuple[FieldChange, ...]:
    """Field changes as a report shows them: masked, and driftctl's stamp left out (its
    revision annotation changes with every commit and says nothing a reviewer needs)."""
    return tuple(masked_change(change) for change in changes if change.path not in _STAMPS)


def created_fields(manifest: Obj) -> tuple[FieldChange, ...]:
    """Every field a created object sets, as additions (identity, stamp and owner left out)."""
    fields = []
    for path, value in fs.leaves(normalize(manifest)).items():
        shown = fs.display_path(path)
        if shown not in _IDENTITY | _STAMPS and not shown.startswith(_OWNER):
            fields.append(masked_change(FieldChange(shown, "add", None, value)))
    return tuple(fields)


def _added(manifest: Obj) -> BuiltChange:
    return BuiltChange(key_of(manifest), Change.ADDED, created_fields(manifest))
