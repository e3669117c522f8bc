"""One object of the saved-plan file: an action, written and read here, key by key.

Pure. core.planning.saved_plan.file_format writes and reads the document around the
objects (its format, version, identity, policy and drift); this module writes and reads
each entry of its `objects` list, and must not know the document's other keys.

An object's keys, in this order: kind, namespace, name, action (the verb), reason, live
({uid, resourceVersion} it was planned against, or null), patch (RFC 6902, live ->
result), and what carrying it out needs, the keys of `_FIELDS` its action has: manifest,
owner, changes ({path, op, before, after, managers, field, note, corrected}), removal
({fields, patch}: the action's revert of fields set outside Git, or null), apply (whether
an update sends its manifest), kept ([{path, reason, live, git, held}]), delete,
finalizerPatch, owned, error, and for what a control holds: would (the verb held) and
control (which kind holds it, core.planning.controls.Control); for an orphaning: released
([{kind, namespace, name, patch}]). Each key's writer and reader stand side by side, so a
key cannot change on one side only.

An action is read back as the type of its verb (a skip with an `error` is a Refused one),
so a new kind of action whose fields are among `_FIELDS` needs nothing here.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    FieldRevert,
    OwnedDelete,
    Refused,
    Release,
    patch_of,
)
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.controls import Control
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.saved_plan.checks import Checks
from driftctl.core.planning.saved_plan.recheck import Base, base_of
from driftctl.core.planning.verbs import Verb


def read_key(check: Checks, entry: Mapping[str, Any], where: str) -> ObjectKey:
    """An object's key as `ObjectKey.as_json` wrote it; only the kinds driftctl manages."""
    kind = check.text(entry, "kind", where)
    if kind not in (c.KIND, c.DEPLOYMENT_KIND):
        check.fail(f"{where}.kind", f"{kind!r} is not a kind driftctl manages")
    namespace = check.text(entry, "namespace", where)
    return ObjectKey(kind, namespace, check.text(entry, "name", where))


def read_base(check: Checks, value: Any, where: str) -> Base | None:
    """An object's `live`: the uid and resourceVersion it was planned against, or None."""
    if value is None:
        return None
    live = check.mapping(value, where)
    return check.text(live, "uid", where), check.text(live, "resourceVersion", where)


# ---- one object: the keys every action has, then those of `_FIELDS` it has -----------------


def object_json(action: Action, live: LiveState) -> dict[str, Any]:
    """The entry of `objects` for `action`, planned against `live` (module docstring)."""
    base = base_of(live, action.key)
    out: dict[str, Any] = action.key.as_json() | {
        "action": str(action.verb),
        "reason": action.reason,
        "live": None if base is None else {"uid": base[0], "resourceVersion": base[1]},
        "patch": list(patch_of(action)),
    }
    attributes = _attributes(type(action))
    for each in _FIELDS:
        if each.attribute in attributes:
            out[each.key] = each.write(getattr(action, each.attribute))
    return out


def read_action(check: Checks, entry: dict[str, Any], where: str) -> Action:
    """The action an entry of `objects` holds, read back as the type of its verb."""
    key = read_key(check, entry, where)
    verb, reason = check.text(entry, "action", where), check.text(entry, "reason", where)
    patch = check.operations(entry.get("patch", []), f"{where}.patch")
    kind = Refused if verb == "skip" and entry.get("error") is not None else _TYPES.get(verb)
    if kind is None:
        check.fail(f"{where}.action", f"{verb!r} is not an action")
    attributes = _attributes(kind)
    values = {
        each.attribute: each.read(check, entry.get(each.key, each.default), f"{where}.{each.key}")
        for each in _FIELDS
        if each.attribute in attributes
    }
    if "patch" in attributes:
        values["patch"] = patch
    action: Action = kind(key=key, reason=reason, **values)
    return action


def _attributes(kind: type[Action]) -> frozenset[str]:
    return frozenset(each.name for each in dataclasses.fields(kind))


@dataclass(frozen=True)
class _Field:
    """One key of a saved object: the action attribute it holds, written and read."""

    key: str
    attribute: str
    write: Callable[[Any], Any]
    read: Callable[[Checks, Any, str], Any]  # (checks, the value or `default`, where)
    default: Any = None


def _owner_json(owner: ObjectKey | None) -> Any:
    return None if owner is None else owner.as_json()


def _owner(check: Checks, value: Any, where: str) -> ObjectKey | None:
    return None if value is None else read_key(check, check.mapping(value, where), where)


def _changes_json(changes: tuple[FieldChange, ...]) -> list[dict[str, Any]]:
    return [_change_json(change) for change in changes]


def _change_json(change: FieldChange) -> dict[str, Any]:
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


def _changes(check: Checks, value: Any, where: str) -> tuple[FieldChange, ...]:
    return tuple(_change(check, change, at) for change, at in check.each(value, where))


def _change(check: Checks, change: dict[str, Any], where: str) -> FieldChange:
    managers = check.items(change.get("managers", []), f"{where}.managers")
    elements = check.items(change.get("field", []), f"{where}.field")
    corrected = change.get("corrected", 0)
    if isinstance(corrected, bool) or not isinstance(corrected, int):
        check.fail(f"{where}.corrected", "must be an integer")
    return FieldChange(
        check.text(change, "path", where),
        check.text(change, "op", where),
        change.get("before"),
        change.get("after"),
        tuple(str(name) for name in managers),
        tuple(str(element) for element in elements),
        str(change.get("note", "")),
        corrected,
    )


def _revert_json(revert: FieldRevert | None) -> Any:
    if revert is None:
        return None
    return {"fields": [list(path) for path in revert.fields], "patch": list(revert.patch)}


def _revert(check: Checks, value: Any, where: str) -> FieldRevert | None:
    if value is None:
        return None
    entry = check.mapping(value, where)
    fields = tuple(
        tuple(str(element) for element in check.items(path, f"{where}.fields[{n}]"))
        for n, path in enumerate(check.items(entry.get("fields"), f"{where}.fields"))
    )
    return FieldRevert(fields, check.operations(entry.get("patch"), f"{where}.patch"))


def _kept_json(kept: tuple[Kept, ...]) -> list[dict[str, Any]]:
    return [
        {"path": k.path, "reason": k.reason, "live": k.live, "git": k.git, "held": k.held}
        for k in kept
    ]


def _kept(check: Checks, value: Any, where: str) -> tuple[Kept, ...]:
    return tuple(
        Kept(
            check.text(entry, "path", at),
            check.text(entry, "reason", at),
            entry.get("live"),
            entry.get("git"),
            _control(check, entry.get("held", ""), f"{at}.held", empty=True),
        )
        for entry, at in check.each(value, where)
    )


def _control(check: Checks, value: Any, where: str, *, empty: bool = False) -> str:
    text = check.string(value, where)
    if not (empty and text == "") and text not in tuple(Control):
        check.fail(where, f"{text!r} is not one of {', '.join(Control)}")
    return text


def _would(check: Checks, value: Any, where: str) -> Verb:
    text = check.string(value, where)
    if text not in tuple(Verb) or text == Verb.HOLD:
        check.fail(where, f"{text!r} is not an action a control holds")
    return Verb(text)


def _released_json(released: tuple[Release, ...]) -> list[dict[str, Any]]:
    return [each.key.as_json() | {"patch": list(each.patch)} for each in released]


def _released(check: Checks, value: Any, where: str) -> tuple[Release, ...]:
    return tuple(
        Release(read_key(check, entry, at), check.operations(entry.get("patch"), f"{at}.patch"))
        for entry, at in check.each(value, where)
    )


def _maybe_mapping(check: Checks, value: Any, where: str) -> dict[str, Any] | None:
    return None if value is None else check.mapping(value, where)


def _owned_json(owned: tuple[OwnedDelete, ...]) -> list[dict[str, Any]]:
    return [each.key.as_json() | {"delete": each.body} for each in owned]


def _owned(check: Checks, value: Any, where: str) -> tuple[OwnedDelete, ...]:
    return tuple(_owned_delete(check, entry, at) for entry, at in check.each(value, where))


def _owned_delete(check: Checks, entry: dict[str, Any], where: str) -> OwnedDelete:
    body = check.mapping(entry.get("delete"), f"{where}.delete")
    return OwnedDelete(read_key(check, entry, where), body)


def _as_is(value: Any) -> Any:
    return value


def _listed(value: Any) -> Any:
    return list(value)


# In the order they are written. Read with `default` when absent; an action's attributes not
# here are not saved: Create.unchecked (only apply makes unchecked creates, never `plan`),
# the `foreign` fields of Update and Unchanged (shown by `plan --show-foreign`, never applied)
# and Skip.undeclared (what plan's exit code says; applying a skip does nothing either way).
_FIELDS = (
    _Field("manifest", "manifest", _as_is, Checks.mapping),
    _Field("owner", "owner", _owner_json, _owner),
    _Field("changes", "changes", _changes_json, _changes, default=[]),
    _Field("removal", "revert", _revert_json, _revert),
    _Field("apply", "apply", _as_is, Checks.flag, default=True),
    _Field("kept", "kept", _kept_json, _kept, default=[]),
    _Field("delete", "delete", _as_is, _maybe_mapping),
    _Field("finalizerPatch", "finalizer_patch", _listed, Checks.operations, default=[]),
    _Field("owned", "owned", _owned_json, _owned, default=[]),
    _Field("error", "error", _as_is, Checks.string),
    _Field("would", "would", str, _would),
    _Field("control", "control", _as_is, _control),
    _Field("released", "released", _released_json, _released, default=[]),
)
NOT_SAVED = frozenset({"unchecked", "foreign", "undeclared"})
SAVED = frozenset({"key", "reason", "patch", *(each.attribute for each in _FIELDS)})

# Each verb read back as its action's type; Refused shares skip's verb and has an `error`.
_TYPES: dict[str, type[Action]] = {
    str(kind.verb): kind for kind in typing.get_args(Action) if kind is not Refused
}
