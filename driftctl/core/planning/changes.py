"""What an object change looks like: the RFC 6902 patch from live to result, and its fields.

Pure. Patches are computed on normalized copies (core.planning.normalize), so server bookkeeping
never shows as a change. Each field change names the other managers that own the field
in the live object, so a plan can say who changed it (e.g. `kubectl-scale`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jsonpatch

from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.normalize import normalize
from driftctl.core.planning.objects import Obj
from driftctl.ignore_rules import pointer_tokens

Operation = dict[str, Any]


@dataclass(frozen=True)
class FieldChange:
    """One changed field, as people read it (`spec.template.spec.containers[name=app].image`).

    `op` is add, remove or replace; `before` is unused for add and `after` for remove.
    `managers` are the other field managers that own the field in the live object.
    `note`, when set, says why the field changes instead of "changed by <managers>" (a field
    set outside Git, an ignored field Git changed, a fight); `corrected` is how many runs in
    a row corrected this field before, changed by the same manager (a fight when above 0).
    """

    path: str
    op: str
    before: Any = None
    after: Any = None
    managers: tuple[str, ...] = ()
    field: fs.FieldPath = ()
    note: str = ""
    corrected: int = 0

    @classmethod
    def of(cls, path: str, before: Any, after: Any) -> FieldChange:
        """A change between two declared values, where None means absent on that side."""
        op = "add" if before is None else "remove" if after is None else "replace"
        return cls(path, op, before, after)


def patch_between(before: Obj | None, after: Obj) -> list[Operation]:
    """The RFC 6902 patch from `before` (None: nothing yet) to `after`, both normalized."""
    if before is None:
        return _creation(normalize(after))
    ops: list[Operation] = jsonpatch.make_patch(normalize(before), normalize(after)).patch
    return ops


def _creation(after: Obj) -> list[Operation]:
    """From {}: one `add` per top-level field, in the object's order.

    What jsonpatch makes too, built directly: diffing {} cost a cold plan of 10,000 WebApps
    seconds of CPU (its deep copies).
    """
    return [
        {"op": "add", "path": "/" + key.replace("~", "~0").replace("/", "~1"), "value": value}
        for key, value in after.items()
    ]


def field_changes(live: Obj, after: Obj, patch: list[Operation], manager: str) -> list[FieldChange]:
    """The patch as field changes, each naming the other managers of that field in `live`.

    A field that is one value as a whole (an atomic struct or list: a selector, an
    ownerReference) changes as a whole, once, however many of its parts the patch touches:
    `spec.selector: {"matchLabels": {"app": "shop"}} -> {...}`, never a part without its name.
    A map added or removed whole reads member by member.
    """
    old, new = normalize(live), normalize(after)
    changes: list[FieldChange] = []
    whole: set[fs.FieldPath] = set()
    for op in patch:
        for kind, pointer in _touched(op):
            doc = new if kind == "add" else old
            path = fs.pointer_path(doc, pointer)
            managers = other_managers(live, [path], manager)
            if len(pointer_tokens(pointer)) > len(path):  # inside a field that is one value
                if path not in whole:
                    whole.add(path)
                    changes.append(_whole(old, new, path, managers))
                continue
            change = FieldChange(
                fs.display_path(path),
                kind,
                _resolve(old, pointer) if kind != "add" else None,
                _resolve(new, pointer) if kind != "remove" else None,
                managers,
                path,
            )
            changes += _members(change)
    return changes


def _members(change: FieldChange) -> list[FieldChange]:
    """A map added or removed whole, member by member (`metadata.labels.team: (none) ->
    "a"`), as a map that changes in part reads; an atomic struct stays whole."""
    value = change.after if change.op == "add" else change.before
    if change.op not in ("add", "remove") or not isinstance(value, dict) or not value:
        return [change]
    if not all(element.startswith("f:") for element in change.field):
        return [change]
    if fs.is_atomic_struct(tuple(element[2:] for element in change.field)):
        return [change]
    out: list[FieldChange] = []
    for key, member in value.items():
        field = (*change.field, f"f:{key}")
        before, after = (None, member) if change.op == "add" else (member, None)
        part = FieldChange(fs.display_path(field), change.op, before, after, change.managers, field)
        out += _members(part)
    return out


def _whole(old: Obj, new: Obj, path: fs.FieldPath, managers: tuple[str, ...]) -> FieldChange:
    """The change of a field that is one value as a whole, from its value on each side."""
    found_before, before = fs.value_at(old, path)
    found_after, after = fs.value_at(new, path)
    kind = "add" if not found_before else "remove" if not found_after else "replace"
    return FieldChange(
        fs.display_path(path),
        kind,
        before if found_before else None,
        after if found_after else None,
        managers,
        path,
    )


def _touched(op: Operation) -> list[tuple[str, str]]:
    # move and copy are shown as what they do to each location.
    kind, path = str(op.get("op")), str(op.get("path", ""))
    if kind == "move":
        return [("remove", str(op.get("from", ""))), ("add", path)]
    if kind == "copy":
        return [("add", path)]
    return [] if kind == "test" else [(kind, path)]


def _resolve(doc: Any, pointer: str) -> Any:
    try:
        return jsonpatch.JsonPointer(pointer).resolve(doc)
    except (jsonpatch.JsonPointerException, KeyError, IndexError, TypeError):
        return None


def managers_of(changes: Iterable[FieldChange]) -> tuple[str, ...]:
    """Every other manager named by any change, sorted."""
    return tuple(sorted({name for change in changes for name in change.managers}))


def other_managers(live: Obj, paths: list[fs.FieldPath], manager: str) -> tuple[str, ...]:
    """The managers other than driftctl's Apply that own any of `paths` (sorted, unique)."""
    names: set[str] = set()
    for entry in fs.managed_entries(live):
        if _is_ours(entry, manager):
            continue
        owned = fs.tree_paths(entry.get("fieldsV1") or {})
        if any(fs.overlaps(owned, path) for path in paths):
            names.add(str(entry.get("manager", "")))
    return tuple(sorted(names))


def _is_ours(entry: Obj, manager: str) -> bool:
    return entry.get("manager") == manager and entry.get("operation") == "Apply"


@dataclass(frozen=True)
class Kept:
    """A field that differs from Git and stays as the cluster has it, and why.

    `git` is None when Git does not declare the field (a field set outside Git, ignored).
    `held` names the control (core.planning.controls.Control) when a control holds it (Git
    changed it and changes are held; drift is held): a difference the run reports, unlike
    an ignored field, which is not drift.
    """

    path: str
    reason: str
    live: Any
    git: Any = None
    held: str = ""


@dataclass(frozen=True)
class Foreign:
    """A field Git does not declare, owned by managers that are not override managers:
    theirs, left alone (listed with `plan --show-foreign`)."""

    path: str
    managers: tuple[str, ...]
    value: Any
