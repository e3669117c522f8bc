"""Plain objects read and changed at a field path (core.planning.fieldset's spelling).

A field path names map keys (`f:`), map-list items by their keys (`k:`) and set members
(`v:`); here it is resolved against a real object: to the keys and indexes that reach it
(and so to a JSON Pointer for a patch), to its value, or to a copy with it removed or set.
Pure; never mutates its input.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from driftctl.core.planning.fieldset import FieldPath
from driftctl.core.planning.objects import Obj


def _matches(item: Any, element: str) -> bool:
    kind, _, rest = element.partition(":")
    wanted = json.loads(rest)
    if kind == "v":
        return bool(json.dumps(item, sort_keys=True) == json.dumps(wanted, sort_keys=True))
    return isinstance(item, dict) and all(item.get(key) == value for key, value in wanted.items())


def _step(node: Any, element: str) -> tuple[Any, str | int] | None:
    """The child of `node` named by one element, and its key or index; None if absent."""
    if element.startswith("f:"):
        key = element[2:]
        return (node[key], key) if isinstance(node, dict) and key in node else None
    for index, item in enumerate(node if isinstance(node, list) else []):
        if _matches(item, element):
            return item, index
    return None


def locate(doc: Any, path: FieldPath) -> tuple[str | int, ...] | None:
    """The keys and list indexes that reach the field at `path`, or None if it is absent."""
    steps: list[str | int] = []
    node = doc
    for element in path:
        found = _step(node, element)
        if found is None:
            return None
        node, key = found
        steps.append(key)
    return tuple(steps)


def value_at(doc: Any, path: FieldPath) -> tuple[bool, Any]:
    """(present, value) of the field at `path`."""
    steps = locate(doc, path)
    if steps is None:
        return False, None
    node = doc
    for key in steps:
        node = node[key]
    return True, node


def json_pointer(steps: Iterable[str | int]) -> str:
    """An RFC 6901 pointer from keys and list indexes."""
    return "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in steps)


def without(doc: Obj, path: FieldPath) -> Obj:
    """A copy of `doc` without the field at `path` (maps left empty are dropped too)."""
    out: Obj = json.loads(json.dumps(doc))
    steps = locate(out, path)
    if steps is None:
        return out
    _delete(out, list(steps))
    return out


def _delete(node: Any, steps: list[str | int]) -> None:
    head, rest = steps[0], steps[1:]
    if rest:
        _delete(node[head], rest)
        if node[head] == {}:
            del node[head]
    else:
        del node[head]


def with_value(doc: Obj, path: FieldPath, present: bool, value: Any) -> Obj:
    """A copy of `doc` whose field at `path` is `value`, or absent when not `present`.

    Only fields that exist in `doc`, or whose parent does, can be set.
    """
    if not present:
        return without(doc, path)
    out: Obj = json.loads(json.dumps(doc))
    parent = locate(out, path[:-1])
    if parent is None:
        return out
    node: Any = out
    for key in parent:
        node = node[key]
    found = _step(node, path[-1])
    if found is not None:
        node[found[1]] = json.loads(json.dumps(value))
    elif path[-1].startswith("f:") and isinstance(node, dict):
        node[path[-1][2:]] = json.loads(json.dumps(value))
    elif isinstance(node, list):
        node.append(json.loads(json.dumps(value)))
    return out


def subset(doc: Obj, paths: Iterable[FieldPath]) -> Obj:
    """A new object holding only the fields of `doc` at `paths`, with their values: maps,
    keyed list items and set members are made as the paths need them. What a manager owns
    (its managedFields), as an object again, to apply it unchanged beside a new field."""
    out: Obj = {}
    for path in sorted(paths):
        present, value = value_at(doc, path)
        if present and path:
            _put(out, path, value)
    return out


def _put(node: Any, path: FieldPath, value: Any) -> None:
    head, rest = path[0], path[1:]
    copied = json.loads(json.dumps(value))
    if head.startswith("f:") and isinstance(node, dict):
        key = head[2:]
        if not rest:
            node[key] = copied
            return
        if key not in node:
            node[key] = [] if rest[0][:2] in ("k:", "v:") else {}
        _put(node[key], rest, value)
    elif head.startswith("k:") and isinstance(node, list):
        found = _step(node, head)
        if found is None:
            node.append(json.loads(head[2:]) if rest else copied)
            if rest:
                _put(node[-1], rest, value)
        elif rest:
            _put(found[0], rest, value)
        else:
            node[int(found[1])] = copied
    elif head.startswith("v:") and isinstance(node, list):
        member = json.loads(head[2:])
        if member not in node:
            node.append(member)
