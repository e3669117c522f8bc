"""The local prefilter: can applying a manifest change a live object? (DESIGN.md section 6)

Pure. `needs_server_check` answers False only when nothing can change: every value
driftctl would apply already equals the live value (list items matched by key), and the
set of fields driftctl owns by Apply equals the set it would apply now (otherwise the
server would give up or take over fields). A True answer costs one dry-run; a wrong False
would hide drift, so every doubt answers True.

The stamp annotations: the revision and source annotations change with every commit. If
they counted, every new commit would rewrite every object and the "no drift costs only the
LIST" promise would be gone. So their values are compared out (normalize.comparable): an
object whose only difference is the stamp is unchanged and keeps its old stamp, which then
says "last written at that commit". When an object changes for another reason, the apply
carries the new stamp with it. Their keys still count: an object without the stamp is
written once to get it.
"""

from __future__ import annotations

import copy
from typing import Any

from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.normalize import STAMP_ANNOTATIONS, equal
from driftctl.core.planning.objects import Obj

_STAMP_PLAIN = frozenset(("metadata", "annotations", key) for key in STAMP_ANNOTATIONS)
_STAMP_PATHS = frozenset(tuple(f"f:{key}" for key in plain) for plain in _STAMP_PLAIN)


def drifted_fields(desired: Obj, live: Obj) -> list[fs.FieldPath]:
    """The fields `desired` sets whose live value differs (or is absent), in field order."""
    return _drifted(fs.leaves(desired), live)


def _drifted(wanted: dict[fs.FieldPath, Any], live: Obj) -> list[fs.FieldPath]:
    """Each field is looked up in the live object where it is, rather than the whole live
    object copied and flattened: a live Deployment has several times the fields driftctl
    sets. The stamp annotations only need to be there (their values are compared out, see
    the module docstring). `desired` is a manifest driftctl built, normal already (no
    server metadata, no status, no empty maps), so it is not normalized again.
    """
    drifted = []
    for path, value in wanted.items():
        found, current = fs.value_at(live, path)
        if not found or (path not in _STAMP_PATHS and not equal(current, value)):
            drifted.append(path)
    return drifted


def ownership_matches(desired: Obj, live: Obj, manager: str) -> bool:
    """Whether `manager` owns by Apply exactly the fields `desired` would set."""
    return _owns_exactly(fs.fieldset(desired), desired, live, manager)


def _owns_exactly(fields: frozenset[fs.FieldPath], desired: Obj, live: Obj, manager: str) -> bool:
    return fs.owned_fields(live, manager, str(desired.get("apiVersion", ""))) == fields


def needs_server_check(desired: Obj, live: Obj | None, manager: str) -> bool:
    """False only when applying `desired` certainly changes nothing in `live`: no field
    drifted (`drifted_fields`) and `manager` owns exactly what it sets
    (`ownership_matches`), found in one walk where `manager` has one Apply entry."""
    if live is None:
        return True
    version = str(desired.get("apiVersion", ""))
    trees = [
        entry.get("fieldsV1")
        for entry in fs.managed_entries(live)
        if fs.is_apply_entry(entry, manager, version)
    ]
    if len(trees) == 1 and isinstance(trees[0], dict):
        return not fs.holds_exactly(desired, live, trees[0], _STAMP_PLAIN)
    return needs_server_check_by_paths(desired, live, manager)


def needs_server_check_by_paths(desired: Obj, live: Obj, manager: str) -> bool:
    """`needs_server_check` by its definition: every field path spelled and looked up."""
    wanted = fs.leaves(desired)  # walked once for both questions
    if _drifted(wanted, live):
        return True
    return not _owns_exactly(fs.fieldset_of(wanted), desired, live, manager)


def overlay(live: Obj, desired: Obj) -> Obj:
    """A local prediction of applying `desired` over `live`, without server defaults.

    Used only where no dry-run is possible (an owner uid not yet known, an immutable field
    the server would refuse): map lists merge by key, sets by member, the rest is replaced.
    """
    out = copy.deepcopy(live)
    for key, value in desired.items():
        out[key] = _merged(out.get(key), value, (key,))
    return out


def _merged(base: Any, value: Any, plain: fs.PlainPath) -> Any:
    if isinstance(base, dict) and isinstance(value, dict) and not fs.is_atomic_struct(plain):
        out = dict(base)
        for key, child in value.items():
            out[key] = _merged(base.get(key), child, (*plain, key))
        return out
    if isinstance(base, list) and isinstance(value, list):
        return _merged_list(base, value, plain)
    return copy.deepcopy(value)


def _merged_list(base: list[Any], value: list[Any], plain: fs.PlainPath) -> list[Any]:
    kind = fs.list_kind(plain)
    if kind is fs.ListKind.SET:
        return list(base) + [member for member in value if member not in base]
    if kind is fs.ListKind.ATOMIC:
        return copy.deepcopy(value)
    keys = fs.list_keys(plain)
    by_key = {fs.item_element(item, keys): item for item in value}
    out = [
        _merged(item, by_key.pop(fs.item_element(item, keys)), (*plain, fs.ITEM))
        if fs.item_element(item, keys) in by_key
        else item
        for item in base
    ]
    return out + list(by_key.values())
