"""A kustomization document as a value, and the refusal of every field driftctl does not render.

kustomize runs plugins, fetches remote bases and templates helm charts: each of those is a
way for a repository to run or fetch something it was not reviewed for, so each is refused
by name with its reason. What is read is checked for its shape (a list of strings, a
mapping of strings...) so a mistake is told at its line and column. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from driftctl.core.source.documents import Document
from driftctl.errors import Problem

Where = tuple[str, int, int]  # file, line, column

SUPPORTED = (
    "resources, components, namespace, namePrefix, nameSuffix, labels, commonLabels, "
    "commonAnnotations, patches, images, replicas, configurations"
)
_PLUGINS = "plugins are refused: a plugin runs a program the repository names"
_GENERATED = (
    "generators are refused: driftctl renders WebApps only, and a generator makes other kinds"
)
REFUSED = {
    "bases": "bases is refused (kustomize deprecates it): list the folder under resources",
    "configMapGenerator": _GENERATED,
    "secretGenerator": _GENERATED,
    "generatorOptions": _GENERATED,
    "generators": f"generator {_PLUGINS}",
    "transformers": f"transformer {_PLUGINS}",
    "validators": f"validator {_PLUGINS}",
    "helmCharts": "helm is refused: a chart is fetched and templated by another program",
    "helmGlobals": "helm is refused: a chart is fetched and templated by another program",
    "helmChartInflationGenerator": "helm is refused: a chart is fetched and templated",
    "patchesStrategicMerge": "patchesStrategicMerge is refused (kustomize deprecates it): "
    "write the patch under patches",
    "patchesJson6902": "patchesJson6902 is refused (kustomize deprecates it): write the "
    "patch under patches, with its target",
    "openapi": "openapi is refused: a WebApp's schema is driftctl's own",
    "crds": "crds is refused: a WebApp's schema is driftctl's own",
}
_TOP = frozenset(
    {
        *("apiVersion", "kind", "metadata", "resources", "components", "namespace"),
        *("namePrefix", "nameSuffix", "labels", "commonLabels", "commonAnnotations"),
        *("patches", "images", "replicas", "configurations"),
    }
)
KINDS = {
    "Kustomization": "kustomize.config.k8s.io/v1beta1",
    "Component": "kustomize.config.k8s.io/v1alpha1",
}


@dataclass(frozen=True)
class Text:
    """A string a kustomization wrote, and where."""

    value: str
    at: Where


@dataclass(frozen=True)
class Pairs:
    """Labels or annotations to set, each with where it was written."""

    items: tuple[tuple[str, Text], ...]


@dataclass(frozen=True)
class Patch:
    """One entry of `patches`: its file or inline text, and its target selector."""

    path: Text | None
    inline: Text | None
    target: Mapping[str, Text]  # group, version, kind, name, namespace
    at: Where


@dataclass(frozen=True)
class Image:
    """One entry of `images`."""

    name: str
    new_name: Text | None
    new_tag: Text | None
    digest: Text | None


@dataclass(frozen=True)
class Replica:
    """One entry of `replicas`."""

    name: str
    count: int
    at: Where


@dataclass(frozen=True)
class Kustomization:
    """A kustomization (or a component) as read, relative paths left as written."""

    document: Document
    folder: str  # repository-relative folder it lies in
    component: bool
    resources: tuple[Text, ...] = ()
    components: tuple[Text, ...] = ()
    namespace: Text | None = None
    prefix: Text | None = None
    suffix: Text | None = None
    labels: tuple[Pairs, ...] = ()
    annotations: tuple[Pairs, ...] = ()
    patches: tuple[Patch, ...] = ()
    images: tuple[Image, ...] = ()
    replicas: tuple[Replica, ...] = ()
    configurations: tuple[Text, ...] = ()


class _Reading:
    """Reads one kustomization document, collecting every problem."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.problems: list[Problem] = []

    def refuse(self, path: tuple[Any, ...], reason: str) -> None:
        self.problems.append(self.document.problem(path, reason))

    def refuse_field(self, path: tuple[Any, ...], reason: str) -> None:
        self.problems.append(self.document.key_problem(path, reason))

    def where(self, path: tuple[Any, ...]) -> Where:
        return self.document.located(path)

    def text(self, path: tuple[Any, ...], value: Any) -> Text | None:
        if isinstance(value, str):
            return Text(value, self.where(path))
        self.refuse(path, f"{_dotted(path)} must be a string")
        return None

    def texts(self, key: str) -> tuple[Text, ...]:
        items = self._list(key)
        found = (self.text((key, index), item) for index, item in enumerate(items))
        return tuple(text for text in found if text is not None)

    def optional(self, key: str) -> Text | None:
        value = self.document.body.get(key)
        return None if value is None else self.text((key,), value)

    def _list(self, key: str) -> list[Any]:
        value = self.document.body.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.refuse((key,), f"{key} must be a list")
            return []
        return value

    def mappings(self, key: str, allowed: frozenset[str]) -> list[tuple[int, Mapping[str, Any]]]:
        """The entries of a list of mappings, each key outside `allowed` refused."""
        found: list[tuple[int, Mapping[str, Any]]] = []
        for index, item in enumerate(self._list(key)):
            if not isinstance(item, dict):
                self.refuse((key, index), f"{key}[{index}] must be a mapping")
                continue
            for field in item:
                if field not in allowed:
                    where = (key, index, field)
                    self.refuse_field(where, _unknown(f"{key}[{index}]", field, allowed))
            found.append((index, item))
        return found

    def pairs(self, path: tuple[Any, ...], value: Any) -> Pairs:
        if not isinstance(value, dict):
            self.refuse(path, f"{_dotted(path)} must be a mapping of strings")
            return Pairs(())
        items = []
        for key, item in value.items():
            if not isinstance(key, str) or not isinstance(item, str):
                self.refuse((*path, key), f"{_dotted((*path, key))} must be a string (quote it)")
            else:
                items.append((key, Text(item, self.where((*path, key)))))
        return Pairs(tuple(items))


def _dotted(path: tuple[Any, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)[1:]


def _unknown(where: str, field: object, allowed: frozenset[str]) -> str:
    return f"{where}.{field} is not supported (supported: {', '.join(sorted(allowed))})"


def read_kustomization(document: Document, folder: str) -> tuple[Kustomization, list[Problem]]:
    """The kustomization `document` declares, and every problem with it."""
    reading = _Reading(document)
    component = _kind(reading)
    for field in document.body:
        if field in REFUSED:
            reading.refuse_field((field,), REFUSED[field])
        elif field not in _TOP:
            reason = f"{field} is not supported: driftctl renders {SUPPORTED}"
            reading.refuse_field((field,), reason)
    parts: dict[str, Callable[[_Reading], Any]] = {
        "resources": lambda r: r.texts("resources"),
        "components": lambda r: r.texts("components"),
        "configurations": lambda r: r.texts("configurations"),
        "namespace": lambda r: r.optional("namespace"),
        "prefix": lambda r: r.optional("namePrefix"),
        "suffix": lambda r: r.optional("nameSuffix"),
        "labels": _labels,
        "annotations": _annotations,
        "patches": _patches,
        "images": _images,
        "replicas": _replicas,
    }
    values = {name: read(reading) for name, read in parts.items()}
    return Kustomization(document, folder, component, **values), reading.problems


def _kind(reading: _Reading) -> bool:
    body = reading.document.body
    kind = body.get("kind", "Kustomization")
    if kind not in KINDS:
        reading.refuse(("kind",), f"kind {kind!r} is not Kustomization or Component")
        return False
    version = body.get("apiVersion", KINDS[kind])
    if version != KINDS[kind]:
        reading.refuse(("apiVersion",), f"a {kind} has apiVersion {KINDS[kind]}, not {version!r}")
    return bool(kind == "Component")


def _labels(reading: _Reading) -> tuple[Pairs, ...]:
    """`labels`, then `commonLabels` (kustomize's order: on one key, commonLabels wins)."""
    found = []
    allowed = frozenset(("pairs", "includeSelectors", "includeTemplates"))
    for index, item in reading.mappings("labels", allowed):
        for flag in ("includeSelectors", "includeTemplates"):
            if not isinstance(item.get(flag, False), bool):
                reason = f"labels[{index}].{flag} must be true or false"
                reading.refuse(("labels", index, flag), reason)
        found.append(reading.pairs(("labels", index, "pairs"), item.get("pairs", {})))
    if "commonLabels" in reading.document.body:
        found.append(reading.pairs(("commonLabels",), reading.document.body["commonLabels"]))
    return tuple(found)


def _annotations(reading: _Reading) -> tuple[Pairs, ...]:
    if "commonAnnotations" not in reading.document.body:
        return ()
    return (reading.pairs(("commonAnnotations",), reading.document.body["commonAnnotations"]),)


_TARGET = frozenset(("group", "version", "kind", "name", "namespace"))


def _patches(reading: _Reading) -> tuple[Patch, ...]:
    found = []
    for index, item in reading.mappings("patches", frozenset(("path", "patch", "target"))):
        here = ("patches", index)
        if ("path" in item) == ("patch" in item):
            reading.refuse(here, f"patches[{index}] needs one of path or patch")
            continue
        target: dict[str, Text] = {}
        selector = item.get("target", {})
        if not isinstance(selector, dict):
            reading.refuse((*here, "target"), f"patches[{index}].target must be a mapping")
            selector = {}
        for key, value in selector.items():
            if key not in _TARGET:
                reading.refuse_field(
                    (*here, "target", key), _unknown(f"patches[{index}].target", key, _TARGET)
                )
            elif (text := reading.text((*here, "target", key), value)) is not None:
                target[key] = text
        path = reading.text((*here, "path"), item["path"]) if "path" in item else None
        inline = reading.text((*here, "patch"), item["patch"]) if "patch" in item else None
        if path is not None or inline is not None:
            found.append(Patch(path, inline, target, reading.where(here)))
    return tuple(found)


def _images(reading: _Reading) -> tuple[Image, ...]:
    found = []
    allowed = frozenset(("name", "newName", "newTag", "digest"))
    for index, item in reading.mappings("images", allowed):
        here = ("images", index)
        name = reading.text((*here, "name"), item.get("name"))
        fields = {
            key: reading.text((*here, key), item[key]) if key in item else None
            for key in ("newName", "newTag", "digest")
        }
        if name is not None:
            found.append(Image(name.value, fields["newName"], fields["newTag"], fields["digest"]))
    return tuple(found)


def _replicas(reading: _Reading) -> tuple[Replica, ...]:
    found = []
    for index, item in reading.mappings("replicas", frozenset(("name", "count"))):
        here = ("replicas", index)
        name = reading.text((*here, "name"), item.get("name"))
        count = item.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            reading.refuse((*here, "count"), f"replicas[{index}].count must be a whole number ≥ 0")
        elif name is not None:
            found.append(Replica(name.value, count, reading.where(here)))
    return tuple(found)
