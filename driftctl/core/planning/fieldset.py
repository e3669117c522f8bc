"""Field sets in the shape of server-side apply's managedFields (`fieldsV1`).

A field path is a tuple of fieldsV1 elements: `f:<key>` for a map key, `k:{"name":"app"}`
for an item of a list keyed by some of its fields, `v:"<value>"` for a member of a set.
Lists and structs the API marks atomic end a path: their whole value is one field.

Two sources of field sets are compared: the fields a manifest sets (what an apply would
own) and the fields a manager owns in a live object's managedFields. Pure; knows only the
few list and struct types that occur in the objects driftctl builds. An unknown list is
treated as atomic, which can only make the prefilter ask the server, never skip it.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Iterable, Iterator
from typing import Any

from driftctl.core.planning.normalize import equal
from driftctl.core.planning.objects import Obj, metadata
from driftctl.ignore_rules import pointer_tokens

FieldPath = tuple[str, ...]
PlainPath = tuple[str, ...]  # map keys only; "*" stands for any list item

ITEM = "*"


class ListKind(enum.Enum):
    """How server-side apply merges a list (its `x-kubernetes-list-type`)."""

    ATOMIC = "atomic"  # replaced whole
    MAP = "map"  # items merged by key fields
    SET = "set"  # members merged by value


# The list types of the API (ObjectMeta, PodSpec) for the lists driftctl writes or reads.
_MAP_LISTS: dict[PlainPath, tuple[str, ...]] = {
    ("metadata", "ownerReferences"): ("uid",),
    ("spec", "template", "spec", "containers"): ("name",),
    ("spec", "template", "spec", "initContainers"): ("name",),
    ("spec", "template", "spec", "containers", ITEM, "env"): ("name",),
}
_SET_LISTS: frozenset[PlainPath] = frozenset({("metadata", "finalizers")})

# Structs marked `+structType=atomic`: LabelSelector and each OwnerReference.
_ATOMIC_STRUCTS: frozenset[PlainPath] = frozenset(
    {("spec", "selector"), ("metadata", "ownerReferences", ITEM)}
)


def list_kind(plain: PlainPath) -> ListKind:
    """How the list at `plain` merges."""
    if plain in _MAP_LISTS:
        return ListKind.MAP
    return ListKind.SET if plain in _SET_LISTS else ListKind.ATOMIC


def list_keys(plain: PlainPath) -> tuple[str, ...]:
    """The key fields of a map list (empty for other lists)."""
    return _MAP_LISTS.get(plain, ())


def is_atomic_struct(plain: PlainPath) -> bool:
    """Whether the map at `plain` is one field as a whole."""
    return plain in _ATOMIC_STRUCTS


def item_element(item: Any, keys: tuple[str, ...]) -> str:
    """The `k:` element of a map-list item, spelled as the API server spells it."""
    if isinstance(item, dict):
        try:  # the same few keys recur in every object (a container named "app")
            return _keyed_element(
                tuple((name, type(v), v) for name in keys for v in [item.get(name)])
            )
        except TypeError:  # a key's value is a map or a list: spelled each time
            pass
    key = {name: item.get(name) for name in keys} if isinstance(item, dict) else {}
    return "k:" + json.dumps(key, sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=256)
def _keyed_element(fields: tuple[tuple[str, type, Any], ...]) -> str:
    # Each value with its type: `1`, `1.0` and `true` are equal keys to a cache.
    key = {name: value for name, _type, value in fields}
    return "k:" + json.dumps(key, sort_keys=True, separators=(",", ":"))


def member_element(value: Any) -> str:
    """The `v:` element of a set member."""
    return "v:" + json.dumps(value, separators=(",", ":"))


def leaves(obj: Obj) -> dict[FieldPath, Any]:
    """Every field an object sets, as field path -> value."""
    out: dict[FieldPath, Any] = {}
    for key, value in obj.items():
        _walk(value, (key,), (_MAP_KEY[key],), out)
    return out


def _walk(value: Any, plain: PlainPath, path: FieldPath, out: dict[FieldPath, Any]) -> None:
    # Every manifest and live object of a plan is walked: the list and struct types are
    # looked up in place, and each key's `f:` element is spelled once.
    if isinstance(value, dict):
        if value and plain not in _ATOMIC_STRUCTS:
            for key, child in value.items():
                _walk(child, (*plain, key), (*path, _MAP_KEY[key]), out)
            return
    elif isinstance(value, list):
        keys = _MAP_LISTS.get(plain)
        if keys is not None:
            item_plain = (*plain, ITEM)
            for item in value:
                _walk(item, item_plain, (*path, item_element(item, keys)), out)
            return
        if plain in _SET_LISTS:
            for member in value:
                out[(*path, member_element(member))] = member
            return
    out[path] = value


class _MapKeys(dict[str, str]):
    """The `f:` element of each map key, spelled once."""

    def __missing__(self, key: str) -> str:
        if len(self) >= _MAX_MAP_KEYS:  # a long watch meets many label keys: start over
            self.clear()
        element = self[key] = f"f:{key}"
        return element


_MAX_MAP_KEYS = 10_000
_MAP_KEY = _MapKeys()


def value_at(obj: Obj, path: FieldPath) -> tuple[bool, Any]:
    """(found, value) of the field at `path` in `obj`, following map keys, keyed list items
    and set members as `leaves` names them."""
    node: Any = obj
    for element in path:
        kind, _, rest = element.partition(":")
        if kind == "f" and isinstance(node, dict) and rest in node:
            node = node[rest]
        elif kind == "k" and isinstance(node, list):
            key = _decoded(rest)
            node = next((item for item in node if _has_key(item, key)), _MISSING)
        elif kind == "v" and isinstance(node, list) and _decoded(rest) in node:
            node = _decoded(rest)
        else:
            return False, None
        if node is _MISSING:
            return False, None
    return True, node


_MISSING = object()


@functools.lru_cache(maxsize=1024)
def _decoded(element: str) -> Any:
    # The same few elements (k:{"name":"app"}, v:"webapp.example.com/cleanup") recur in
    # every object; callers only read the value.
    return json.loads(element)


def _has_key(item: Any, key: dict[str, Any]) -> bool:
    return isinstance(item, dict) and all(item.get(name) == value for name, value in key.items())


# Identity fields are part of every request but never recorded in managedFields.
_IDENTITY_PLAIN: frozenset[PlainPath] = frozenset(
    {("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "namespace")}
)
_IDENTITY: frozenset[FieldPath] = frozenset(
    tuple(f"f:{key}" for key in plain) for plain in _IDENTITY_PLAIN
)


def fieldset(manifest: Obj) -> frozenset[FieldPath]:
    """The fields an apply of `manifest` would own, as managedFields records them."""
    return fieldset_of(leaves(manifest))


def fieldset_of(fields: dict[FieldPath, Any]) -> frozenset[FieldPath]:
    """`fieldset`, from the manifest's `leaves` already walked."""
    return frozenset(fields) - _IDENTITY


def tree_paths(tree: Obj) -> frozenset[FieldPath]:
    """The leaf paths of a `fieldsV1` tree; "." (the node itself) entries are left out."""
    out: list[FieldPath] = []
    stack: list[tuple[Obj, FieldPath]] = [(tree, ())]
    while stack:  # a loop, not recursion: every live object's managedFields are walked
        node, path = stack.pop()
        leaf = True
        for key, child in node.items():
            if key != ".":
                leaf = False
                stack.append((child if isinstance(child, dict) else {}, (*path, key)))
        if leaf and path:
            out.append(path)
    return frozenset(out)


def holds_exactly(desired: Obj, live: Obj, tree: Obj, present_only: frozenset[PlainPath]) -> bool:
    """Whether `live` holds every field `desired` sets, each value equal (at `present_only`:
    there at all), and the fieldsV1 `tree` holds exactly `fieldset(desired)`.

    The same answer as comparing `leaves(desired)` with `value_at(live, ...)` and
    `fieldset(desired)` with `tree_paths(tree)`, found in one walk of the three side by
    side, without spelling a field path: every unchanged object of a plan is asked. The
    sets are equal when, at each node, the tree holds a field where `desired` has one and
    nothing else. Where the two ways could part (an item key or set member `desired`
    repeats), False.
    """
    return _fields_held(desired, live, tree, _places(present_only)) >= 0


class _Place:
    """What the field at one plain path is (`_walk` asks the same of the path itself): its
    list or struct type, whether it is the identity's or only needs to be there; and the
    places under it. A path of no such type leads to `_PLAIN`."""

    __slots__ = ("atomic", "children", "identity", "item", "keys", "members", "present_only")

    def __init__(self) -> None:
        self.children: dict[str, _Place] = {}
        self.atomic = self.members = self.identity = self.present_only = False
        self.keys: tuple[str, ...] | None = None
        self.item: _Place = self  # the place of a list's items (set with `keys`)

    def under(self, key: str) -> _Place:
        return self.children.get(key, _PLAIN)


_PLAIN = _Place()  # under it, everything is plain too


@functools.lru_cache(maxsize=8)
def _places(present_only: frozenset[PlainPath]) -> _Place:
    """The places of `_ATOMIC_STRUCTS`, `_MAP_LISTS`, `_SET_LISTS`, `_IDENTITY_PLAIN` and
    `present_only`, as a tree from the root."""
    root = _Place()

    def at(plain: PlainPath) -> _Place:
        place = root
        for key in plain:
            if key == ITEM:
                place.item = place.item if place.item is not place else _Place()
                place = place.item
            else:
                place = place.children.setdefault(key, _Place())
        return place

    for plain in _ATOMIC_STRUCTS:
        at(plain).atomic = True
    for plain, keys in _MAP_LISTS.items():
        at(plain).keys = keys
        at((*plain, ITEM))
    for plain in _SET_LISTS:
        at(plain).members = True
    for plain in _IDENTITY_PLAIN:
        at(plain).identity = True
    for plain in present_only:
        at(plain).present_only = True
    return root


_PARTED = -1  # what `_fields_held` answers once the three part


def _fields_held(value: Any, live: Any, owned: Any, place: _Place) -> int:
    """How many fields `desired`'s `value` at `place` sets (the identity's not counted),
    each one held by `live` and by `owned` (the nodes at the same place, _MISSING where
    there are none); _PARTED as soon as one is not, or `owned` holds more. `_walk`'s
    cases, in its order."""
    if isinstance(value, dict) and value and not place.atomic:
        return _map_held(value, live, owned, place)
    if isinstance(value, list) and (place.keys is not None or place.members):
        if not value:  # sets no field, as in `_walk`: whatever is there stays
            return 0
        if place.members:
            return _members_held(value, live, owned)
        return _items_held(value, live, owned, place)
    return _field_held(value, live, owned, place)


def _map_held(value: Obj, live: Any, owned: Any, place: _Place) -> int:
    if not isinstance(live, dict):
        return _PARTED
    inner = owned if isinstance(owned, dict) else {}
    total = holding = 0
    for key, child in value.items():
        under = place.children.get(key, _PLAIN)
        current = live.get(key, _MISSING)
        node = inner.get(_MAP_KEY[key], _MISSING)
        if under is _PLAIN and child.__class__ in _SCALARS:  # most fields: `_field_held`, inline
            if current.__class__ is not child.__class__ or current != child:
                return _PARTED
            if node is _MISSING or (
                isinstance(node, dict) and node and any(k != "." for k in node)
            ):
                return _PARTED
            total += 1
            holding += 1
            continue
        held = _fields_held(child, current, node, under)
        if held < 0:
            return _PARTED
        total += held
        holding += held > 0
    return total if holding == len(inner) - ("." in inner) else _PARTED


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _field_held(value: Any, live: Any, owned: Any, place: _Place) -> int:
    """`_fields_held` of one field (a value `desired` sets as a whole)."""
    if live is _MISSING or (not place.present_only and not _same(live, value)):
        return _PARTED
    if place.identity:
        return 0  # compared, never owned
    return 1 if _is_leaf(owned) else _PARTED


def _same(live: Any, value: Any) -> bool:
    """`equal`, at once for the strings and numbers most fields hold."""
    if live.__class__ is not value.__class__:
        return False
    if isinstance(value, dict | list):
        return equal(live, value)
    return bool(live == value)


def _items_held(items: list[Any], live: Any, owned: Any, place: _Place) -> int:
    if not isinstance(live, list):
        return _PARTED
    inner = owned if isinstance(owned, dict) else {}
    keys = place.keys or ()
    seen: set[str] = set()
    total = holding = 0
    for item in items:
        element = item_element(item, keys)
        if element in seen:
            return _PARTED
        seen.add(element)
        key = _decoded(element[2:])
        found = next((each for each in live if _has_key(each, key)), _MISSING)
        held = _fields_held(item, found, inner.get(element, _MISSING), place.item)
        if held < 0:
            return _PARTED
        total += held
        holding += held > 0
    return total if holding == len(inner) - ("." in inner) else _PARTED


def _members_held(members: list[Any], live: Any, owned: Any) -> int:
    if not isinstance(live, list):
        return _PARTED
    inner = owned if isinstance(owned, dict) else {}
    seen: set[str] = set()
    for member in members:
        element = member_element(member)
        held = _decoded(element[2:])
        if element in seen or held not in live or not equal(held, member):
            return _PARTED
        if not _is_leaf(inner.get(element, _MISSING)):
            return _PARTED
        seen.add(element)
    return len(seen) if len(seen) == len(inner) - ("." in inner) else _PARTED


def _is_leaf(node: Any) -> bool:
    """Whether a fieldsV1 node is a field's own (no fields under it), as `tree_paths` takes it."""
    if node is _MISSING:
        return False
    return not isinstance(node, dict) or all(key == "." for key in node)


def to_fields_v1(paths: Iterable[FieldPath]) -> Obj:
    """A `fieldsV1` tree holding `paths` (as the server writes it, "." on inner items)."""
    tree: Obj = {}
    for path in sorted(paths):
        node = tree
        for element in path:
            if element.startswith("k:") and element not in node:
                node[element] = {".": {}}
            node = node.setdefault(element, {})
    return tree


def managed_entries(obj: Obj) -> list[Obj]:
    """The managedFields entries of a live object (empty for a desired one)."""
    entries = metadata(obj).get("managedFields") or []
    return [entry for entry in entries if isinstance(entry, dict)]


def owned_fields(
    obj: Obj, manager: str, api_version: str, subresource: str = ""
) -> frozenset[FieldPath]:
    """The fields `manager` owns by Apply in `obj`; the status subresource's entry is separate."""
    owned: set[FieldPath] = set()
    for entry in managed_entries(obj):
        if is_apply_entry(entry, manager, api_version, subresource):
            owned |= tree_paths(entry.get("fieldsV1") or {})
    return frozenset(owned)


def owns_field(
    obj: Obj, manager: str, api_version: str, path: FieldPath, subresource: str = ""
) -> bool:
    """Whether `path` is one of `owned_fields(obj, ...)`, found by following `path` in each
    Apply entry's tree rather than listing every field the trees hold."""
    if not path:  # the root is no field
        return False
    for entry in managed_entries(obj):
        if not is_apply_entry(entry, manager, api_version, subresource):
            continue
        node: Any = entry.get("fieldsV1") or {}
        for element in path:
            if not isinstance(node, dict) or element not in node:
                break
            node = node[element]  # a leaf may be any value (tree_paths takes it for {})
        else:
            if not isinstance(node, dict) or all(key == "." for key in node):
                return True
    return False


def is_apply_entry(entry: Obj, manager: str, api_version: str, subresource: str = "") -> bool:
    """Whether a managedFields entry is `manager`'s Apply of `api_version` (of `subresource`)."""
    return (
        entry.get("manager") == manager
        and entry.get("operation") == "Apply"
        and entry.get("apiVersion") == api_version
        and (entry.get("subresource") or "") == subresource
    )


def overlaps(owned: frozenset[FieldPath], path: FieldPath) -> bool:
    """Whether a set owns `path`, a field inside it (atomic parent) or a field under it."""
    if any(path[:n] in owned for n in range(1, len(path) + 1)):
        return True
    return any(other[: len(path)] == path for other in owned)


def display_path(path: FieldPath) -> str:
    """A field path as people read it: `spec.template.spec.containers[name=app].image`."""
    text = ""
    for element in path:
        kind, _, rest = element.partition(":")
        if kind == "f":
            text += f".{rest}" if text else rest
        elif kind == "k":
            pairs = json.loads(rest)
            text += "[" + ",".join(f"{k}={v}" for k, v in pairs.items()) + "]"
        else:
            text += f"[{json.loads(rest)}]"
    return text


def pointer_path(doc: Obj, pointer: str) -> FieldPath:
    """The field path a JSON Pointer into `doc` points at, as far as field sets can name it.

    A pointer into an atomic list or struct stops at that list or struct, because that is
    the field a manager owns.
    """
    path: FieldPath = ()
    plain: PlainPath = ()
    node: Any = doc
    for token in pointer_tokens(pointer):
        if isinstance(node, dict):
            path, plain, node = (*path, f"f:{token}"), (*plain, token), node.get(token)
            if is_atomic_struct(plain):
                break
        elif isinstance(node, list) and list_kind(plain) is not ListKind.ATOMIC:
            item = _list_item(node, token)
            if item is None:
                break
            path, plain, node = (*path, _element_of(item, plain)), (*plain, ITEM), item
            if list_kind(plain[:-1]) is ListKind.SET or is_atomic_struct(plain):
                break
        else:
            break
    return path


def _element_of(item: Any, plain: PlainPath) -> str:
    if list_kind(plain) is ListKind.SET:
        return member_element(item)
    return item_element(item, list_keys(plain))


def _list_item(items: list[Any], token: str) -> Any:
    if not token.isdigit() or int(token) >= len(items):
        return None
    return items[int(token)]


def owned_nodes(tree: Obj) -> frozenset[FieldPath]:
    """Every node an entry owns: its leaves, and the inner nodes marked "." (it made them)."""
    return frozenset(_owned_nodes(tree, ()))


def _owned_nodes(tree: Obj, path: FieldPath) -> Iterator[FieldPath]:
    children = {key: child for key, child in tree.items() if key != "."}
    if path and ("." in tree or not children):
        yield path
    for key, child in children.items():
        yield from _owned_nodes(child if isinstance(child, dict) else {}, (*path, key))
