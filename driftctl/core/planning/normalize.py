"""Normalized copies of objects, so that comparing two of them compares what matters.

Pure: takes plain dicts (parsed API JSON or desired manifests) and returns new dicts; never
mutates its input, never talks to the cluster. Every field removed here is listed with
the reason it says nothing about drift. There are no quantity fields in what driftctl
builds (no resources, no storage), so no quantity canonical form is needed yet; if one is
added, its canonical form belongs here.
"""

from __future__ import annotations

from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.objects import Obj

# metadata fields the API server writes on its own; none of them is declared in Git.
_SERVER_METADATA = (
    "managedFields",  # ownership bookkeeping, compared separately as field sets
    "resourceVersion",  # changes on every write, even a no-op status write
    "generation",  # a counter of spec writes, follows from the spec
    "creationTimestamp",  # when, not what
    "uid",  # identity, not content; preconditions carry it separately
    "selfLink",  # deprecated, still sent by some servers
    "deletionTimestamp",  # lifecycle; the finalizer table reads it from the live object
    "deletionGracePeriodSeconds",  # lifecycle, set together with deletionTimestamp
)

# annotations written by controllers, not by driftctl or Git.
CONTROLLER_ANNOTATIONS = (
    "deployment.kubernetes.io/revision",  # the Deployment controller's rollout counter
)

# driftctl's own stamp: their values change with every commit, see `comparable`.
STAMP_ANNOTATIONS = (c.REVISION_ANNOTATION, c.SOURCE_ANNOTATION)


def normalize(obj: Obj) -> Obj:
    """A copy without server bookkeeping and status: the object as a diff should see it."""
    out = _copy_kept(obj)
    meta = out.get("metadata", {})
    _drop_controller_annotations(meta)
    _drop_empty_maps(meta)
    _drop_null_template_timestamp(out)
    return out


def _copy_kept(obj: Obj) -> Obj:
    """A deep copy of only what a diff sees, in the same key order.

    Copying managedFields and status only to drop them was most of the cost of planning a
    large, unchanged live state.
    """
    out: Obj = {}
    for key, value in obj.items():
        if key == "status":  # written by controllers through the status subresource
            continue
        if key == "metadata" and isinstance(value, dict):
            out[key] = {k: json_copy(v) for k, v in value.items() if k not in _SERVER_METADATA}
        else:
            out[key] = json_copy(value)
    return out


def json_copy(value: Any) -> Any:
    """A deep copy of parsed JSON (maps, lists, scalars): several times copy.deepcopy's speed,
    which must handle any Python object."""
    if isinstance(value, dict):
        return {key: json_copy(child) for key, child in value.items()}
    if isinstance(value, list):
        return [json_copy(child) for child in value]
    return value


def comparable(obj: Obj) -> Obj:
    """`normalize`, and the stamp annotations' values blanked: equal means nothing to write.

    Only the values are blanked, not the keys: an object that lacks the revision annotation
    differs, so it is written once and carries the stamp from then on.
    """
    out = normalize(obj)
    annotations = out.get("metadata", {}).get("annotations", {})
    for key in STAMP_ANNOTATIONS:
        if key in annotations:
            annotations[key] = ""
    return out


def _drop_controller_annotations(meta: Obj) -> None:
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        for key in CONTROLLER_ANNOTATIONS:
            annotations.pop(key, None)


def _drop_empty_maps(meta: Obj) -> None:
    # The server omits empty labels/annotations; {} and absent mean the same.
    for key in ("labels", "annotations"):
        if meta.get(key) == {}:
            del meta[key]


def _drop_null_template_timestamp(obj: Obj) -> None:
    # Some API server versions echo `creationTimestamp: null` in a pod template.
    template_meta = obj.get("spec", {}).get("template", {}).get("metadata")
    if isinstance(template_meta, dict) and template_meta.get("creationTimestamp", 0) is None:
        del template_meta["creationTimestamp"]


def equal(left: Any, right: Any) -> bool:
    """JSON equality: unlike Python's ==, `true` is not `1` and `1` is not `1.0`.

    Compared by type and value, walking maps and lists, rather than by serialising both:
    planning 10,000 unchanged WebApps calls this hundreds of thousands of times, and an
    apply compares 10,000 statuses. A map's scalar values (most of a manifest's or a
    status's) are compared in its loop, not by a call each.
    """
    kind = type(left)
    if kind is not type(right):
        return False
    if kind in _SCALARS:
        return bool(left == right)
    if isinstance(left, dict):
        return _equal_maps(left, right)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(equal, left, right))
    return bool(left == right)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _equal_maps(left: dict[str, Any], right: dict[str, Any]) -> bool:
    if left.keys() != right.keys():
        return False
    for key, mine in left.items():
        theirs = right[key]
        kind = type(mine)
        if kind is not type(theirs):
            return False
        if kind in _SCALARS:
            if mine != theirs:
                return False
        elif not equal(mine, theirs):
            return False
    return True
