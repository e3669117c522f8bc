"""`patches`: strategic merge patches and JSON 6902 patches, as kustomize applies them to a
kind it has no schema for.

A patch that is a list is a JSON 6902 patch (it needs a target); a mapping is a strategic
merge patch, which on a WebApp merges mappings, replaces lists and removes a key set to
null. Without a target, a strategic merge patch applies to the object its own kind, name
and namespace name (any name the object has had, as kustomize matches); kustomize refuses
one that matches nothing, and so does driftctl. Every value a patch writes remembers the
patch's file, line and column, so a WebApp made invalid by a patch is told at the patch.
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonpatch

from driftctl.core.source.documents import Document
from driftctl.core.source.kustomize.fields import Text
from driftctl.core.source.kustomize.resources import Resource, Where
from driftctl.core.source.schema import Path
from driftctl.errors import Problem

OPS = "$ops"  # the key a JSON 6902 patch (a list) is loaded under
_IDENTITY = frozenset(("apiVersion", "kind"))


@dataclass(frozen=True)
class Loaded:
    """One patch's documents, ready to apply, with the selector of its entry."""

    documents: tuple[Document, ...]
    target: Mapping[str, Text]
    at: Where


def apply_patch(patch: Loaded, resources: Sequence[Resource]) -> list[Problem]:
    """Apply one `patches` entry to the resources it selects."""
    problems: list[Problem] = []
    for document in patch.documents:
        if OPS in document.body:
            if not patch.target:
                reason = "a JSON 6902 patch needs a target (kind and name)"
                problems.append(Problem(*patch.at, reason))
                continue
            for resource in _selected(patch.target, resources):
                problems.extend(_json6902(document, resource))
        else:
            problems.extend(_strategic(document, patch, resources))
    return problems


def _selected(target: Mapping[str, Text], resources: Sequence[Resource]) -> list[Resource]:
    def full(pattern: str, value: str) -> bool:
        return re.fullmatch(pattern, value) is not None

    chosen = []
    for resource in resources:
        group, _, version = str(resource.body.get("apiVersion", "")).rpartition("/")
        fixed = {"group": group, "version": version, "kind": resource.kind}
        if any(key in target and not full(target[key].value, fixed[key]) for key in fixed):
            continue
        if any(_id_selected(target, name, ns) for name, ns in resource.ids):
            chosen.append(resource)
    return chosen


def _id_selected(target: Mapping[str, Text], name: str, namespace: str) -> bool:
    for key, value in (("name", name), ("namespace", namespace)):
        if key in target and re.fullmatch(target[key].value, value) is None:
            return False
    return True


def _same_namespace(one: str, other: str) -> bool:
    return (one or "default") == (other or "default")


def _strategic(document: Document, patch: Loaded, resources: Sequence[Resource]) -> list[Problem]:
    problems = list(_directives(document, document.body, ()))
    if problems:
        return problems
    if patch.target:
        chosen = _selected(patch.target, resources)
    else:
        metadata = document.body.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        name, namespace = str(metadata.get("name", "")), str(metadata.get("namespace", ""))
        kind = document.body.get("kind")
        chosen = [
            resource
            for resource in resources
            if resource.kind == kind
            and any(n == name and _same_namespace(ns, namespace) for n, ns in resource.ids)
        ]
        if not chosen:
            reason = f"the patch matches no resource: no {kind} named {name or '(no name)'}"
            return [document.problem(("metadata", "name"), reason)]
    for resource in chosen:
        _merge(resource, resource.body, document, document.body, ())
    return []


def _directives(document: Document, body: Any, path: Path) -> list[Problem]:
    """`$patch`, `$retainKeys` and the like: refused, a WebApp has no list to merge by key."""
    if isinstance(body, list):
        return [p for i, item in enumerate(body) for p in _directives(document, item, (*path, i))]
    if not isinstance(body, dict):
        return []
    found = []
    for key, value in body.items():
        if isinstance(key, str) and key.startswith("$"):
            reason = f"{key} is refused: strategic merge directives do not apply to a WebApp"
            found.append(document.problem((*path, key), reason))
        else:
            found.extend(_directives(document, value, (*path, key)))
    return found


def _merge(
    resource: Resource, held: dict[Any, Any], document: Document, patch: Any, path: Path
) -> None:
    for key, value in patch.items():
        here = (*path, key)
        if not path and key in _IDENTITY:
            continue
        if path == ("metadata",) and key in ("name", "namespace"):
            continue
        if value is None:
            held.pop(key, None)
        elif isinstance(value, dict) and isinstance(held.get(key), dict):
            _merge(resource, held[key], document, value, here)
        else:
            held[key] = _copy(value)
            _mark(resource, document, here, here)
        resource.origins.setdefault(here, document.located(here))


def _mark(resource: Resource, document: Document, source: Path, target: Path) -> None:
    """Every value under `source` in the patch is written at `target` in the resource."""
    resource.origins[target] = document.located(source)
    for path in document.marks:
        if len(path) > len(source) and path[: len(source)] == source:
            resource.origins[target + path[len(source) :]] = document.located(path)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _json6902(document: Document, resource: Resource) -> list[Problem]:
    operations = document.body[OPS]
    problems = []
    for index, operation in enumerate(operations):
        here = (OPS, index)
        if not isinstance(operation, dict) or not isinstance(operation.get("path"), str):
            problems.append(document.problem(here, "a JSON patch operation needs op and path"))
            continue
        try:
            jsonpatch.JsonPatch([operation]).apply(resource.body, in_place=True)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as failed:
            reason = f"the patch cannot be applied to {resource.shown()}: {failed}"
            problems.append(document.problem(here, reason))
            continue
        if "value" in operation:
            _mark(resource, document, (*here, "value"), _pointer(resource.body, operation["path"]))
    return problems


def _pointer(body: Any, pointer: str) -> Path:
    """A JSON pointer as a path of keys and indices, `-` (the end of a list) resolved."""
    path: list[Any] = []
    value = body
    for raw in pointer.split("/")[1:]:
        key: Any = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            key = len(value) - 1 if key == "-" else int(key)
            value = value[key] if 0 <= key < len(value) else None
        elif isinstance(value, dict):
            value = value.get(key)
        path.append(key)
    return tuple(path)
