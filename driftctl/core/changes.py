"""What an object change looks like: the RFC 6902 patch from live to result, and its fields.

Pure. Patches are computed on normalized copies (core.normalize), so server bookkeeping
never shows as a change. Each field change names the other managers that own the field
in the live object, so a plan can say who changed it (e.g. `kubectl-scale`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonpatch

from driftctl.core import fieldset as fs
from driftctl.core.compare import other_managers
from driftctl.core.normalize import normalize
from driftctl.core.objects import Obj

Operation = dict[str, Any]


@dataclass(frozen=True)
class FieldChange:
    """One changed field: `op` is add, remove or replace; `before`/`after` unused for add/remove."""

    path: str
    op: str
    before: Any = None
    after: Any = None
    managers: tuple[str, ...] = ()


def patch_between(before: Obj | None, after: Obj) -> list[Operation]:
    """The RFC 6902 patch from `before` (None: nothing yet) to `after`, both normalized."""
    start = normalize(before) if before is not None else {}
    ops: list[Operation] = jsonpatch.make_patch(start, normalize(after)).patch
    return ops


def field_changes(live: Obj, after: Obj, patch: list[Operation], manager: str) -> list[FieldChange]:
    """The patch as field changes, each naming the other managers of that field in `live`."""
    old, new = normalize(live), normalize(after)
    changes: list[FieldChange] = []
    for op in patch:
        for kind, pointer in _touched(op):
            doc = new if kind == "add" else old
            path = fs.pointer_path(doc, pointer)
            changes.append(
                FieldChange(
                    fs.display_path(path),
                    kind,
                    _resolve(old, pointer) if kind != "add" else None,
                    _resolve(new, pointer) if kind != "remove" else None,
                    other_managers(live, [path], manager),
                )
            )
    return changes


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


def managers_of(changes: list[FieldChange]) -> tuple[str, ...]:
    """Every other manager named by any change, sorted."""
    return tuple(sorted({name for change in changes for name in change.managers}))
