"""Documents to validated WebApps, or every problem with them at once.

Each document is checked for its kind, its metadata (Kubernetes naming rules, label and
annotation syntax, no keys driftctl sets itself or that belong on the live object alone,
the values of the control annotations: driftctl.policies) and its spec against the CRD's own
schema, so what passes here passes the API server. Duplicates across all files are found
last. Problems are collected, never raised one by one, so a person fixes everything in
one go. Pure: documents in, WebApps or problems out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.source.crd import spec_schema
from driftctl.core.source.documents import Document, Loaded
from driftctl.core.source.model import Origin, Place, WebApp, WebAppSpec
from driftctl.core.source.schema import Schema, check, describe, dotted
from driftctl.errors import InvalidDesiredState, Problem
from driftctl.ignore_rules import IgnoreRule, rule_texts
from driftctl.kube_formats import (
    label_key_problem,
    label_problem,
    label_value_problem,
    subdomain_problem,
)
from driftctl.policies import policy_problem
from driftctl.settings import Source

MAX_ANNOTATIONS_BYTES = 256 * 1024  # the API server's limit on all annotations of an object

TOP_LEVEL_FIELDS = ("apiVersion", "kind", "metadata", "spec")
METADATA_FIELDS = ("name", "namespace", "labels", "annotations")
# Keys driftctl writes itself: declared in Git they would be silently overwritten.
RESERVED_LABELS = (c.NAME_LABEL, c.MANAGED_BY_LABEL, c.INSTANCE_LABEL, c.SELECTOR_INSTANCE_LABEL)
RESERVED_ANNOTATIONS = (c.REVISION_ANNOTATION, c.SOURCE_ANNOTATION)
# Set on the live object, by a person (a suspension, an approval) or by driftctl (a
# removal's record): never in Git, where they would be applied and taken for Git's.
LIVE_ANNOTATIONS = {
    c.SUSPEND_ANNOTATION: "is set on the live WebApp with kubectl annotate, not in Git "
    f"(to hold Git's changes from Git, use {c.CHANGE_POLICY_ANNOTATION}: hold)",
    c.APPROVE_PRUNE_ANNOTATION: "is set on the live WebApp with kubectl annotate, not in Git",
    c.REMOVED_IN_ANNOTATION: "is written by driftctl on the live WebApp; remove it from Git",
    c.REMOVED_AT_ANNOTATION: "is written by driftctl on the live WebApp; remove it from Git",
}


@dataclass(frozen=True)
class Validated:
    """The desired WebApps, sorted by namespace and name, and warnings that did not stop them."""

    webapps: tuple[WebApp, ...]
    warnings: tuple[Problem, ...]


def validate(loaded: Loaded, source: Source) -> Validated:
    """The WebApps declared by `loaded`, or InvalidDesiredState listing every problem."""
    problems = list(loaded.problems)
    warnings: list[Problem] = []
    apps: list[WebApp] = []
    schema = spec_schema()  # built once per run: generating it costs more than checking
    for document in loaded.documents:
        if not _is_webapp(document, source, problems, warnings):
            continue
        found = list(document_problems(document, source.namespace, schema))
        problems.extend(found)
        if not found:
            apps.append(webapp_of(document, source.namespace))
    problems.extend(duplicates(loaded.documents, source.namespace))
    if problems:
        raise InvalidDesiredState(problems)
    return Validated(tuple(sorted(apps, key=lambda app: app.place)), tuple(sorted(warnings)))


def _is_webapp(
    document: Document, source: Source, problems: list[Problem], warnings: list[Problem]
) -> bool:
    api_version, kind = document.body.get("apiVersion"), document.body.get("kind")
    if api_version == c.API_VERSION and kind == c.KIND:
        return True
    if not isinstance(kind, str) or not isinstance(api_version, str):
        missing = "kind" if not isinstance(kind, str) else "apiVersion"
        value = document.body.get(missing)
        reason = "is required" if value is None else f"must be a string, got {describe(value)}"
        problems.append(document.problem((missing,), f"{missing} {reason}"))
    elif kind == c.KIND:
        reason = f"apiVersion {api_version} is not served for WebApp; use {c.API_VERSION}"
        problems.append(document.problem(("apiVersion",), reason))
    elif source.skip_unknown_kinds:
        warnings.append(document.problem((), f"skipped {api_version} {kind}: not a WebApp"))
    else:
        reason = (
            f"{api_version} {kind} is not a WebApp ({c.API_VERSION}); "
            "move it out of --path or pass --skip-unknown-kinds"
        )
        problems.append(document.problem(("kind",), reason))
    return False


def document_problems(
    document: Document, default_namespace: str, schema: Schema
) -> Iterator[Problem]:
    """Everything wrong with one WebApp document, each at the place it was written."""
    body = document.body
    who = _display(document, default_namespace)
    for key in body:
        if key == "status":
            yield document.problem((key,), f"{who}: status is written by driftctl, not by Git")
        elif key not in TOP_LEVEL_FIELDS:
            yield document.problem((key,), f"{who}: {key!s} is not a field of a WebApp")
    metadata = body.get("metadata")
    if not isinstance(metadata, Mapping):
        yield document.problem(
            ("metadata",), f"metadata must be a mapping, got {describe(metadata)}"
        )
        return
    for path, reason in _metadata_problems(metadata):
        yield document.problem(path, f"{who}: {dotted(path)} {reason}")
    spec = body.get("spec")
    if spec is None:
        yield document.problem(("spec",), f"{who}: spec is required")
        return
    for violation in check(spec, schema, ("spec",)):
        yield document.problem(
            violation.path, f"{who}: {dotted(violation.path)} {violation.message}"
        )


def _metadata_problems(metadata: Mapping[Any, Any]) -> Iterator[tuple[tuple[Any, ...], str]]:
    for key in metadata:
        if key not in METADATA_FIELDS:
            yield (
                ("metadata", key),
                "is not supported in Git (only name, namespace, labels, annotations)",
            )
    name = metadata.get("name")
    if name is None:
        yield ("metadata", "name"), "is required"
    elif not isinstance(name, str):
        yield ("metadata", "name"), f"must be a string, got {describe(name)}"
    elif (problem := _name_problem(name)) is not None:
        yield ("metadata", "name"), problem
    namespace = metadata.get("namespace")
    if namespace is not None:
        problem = (
            label_problem(namespace)
            if isinstance(namespace, str)
            else f"must be a string, got {describe(namespace)}"
        )
        if problem is not None:
            yield ("metadata", "namespace"), problem
    yield from _string_map(metadata, "labels", label_value_problem, RESERVED_LABELS)
    yield from _string_map(metadata, "annotations", lambda _value: None, RESERVED_ANNOTATIONS)
    yield from _annotations_size(metadata.get("annotations"))
    yield from _ignore_rule_problems(metadata.get("annotations"))
    yield from _control_problems(metadata.get("annotations"))


def _name_problem(name: str) -> str | None:
    problem = subdomain_problem(name)
    if problem is None and len(name) > 63:
        # The name becomes the Deployment's app.kubernetes.io/name label value and selector.
        return f"must be at most 63 characters (it is the Deployment's name label), got {len(name)}"
    return problem


def _string_map(
    metadata: Mapping[Any, Any],
    field: str,
    value_problem: Callable[[str], str | None],
    reserved: Iterable[str],
) -> Iterator[tuple[tuple[Any, ...], str]]:
    entries = metadata.get(field)
    if entries is None:
        return
    if not isinstance(entries, Mapping):
        yield ("metadata", field), f"must be a mapping of strings, got {describe(entries)}"
        return
    for key, value in entries.items():
        path = ("metadata", field, key)
        problem = _key_problem(key, reserved)
        if problem is None and not isinstance(value, str):
            problem = f"must be a string, got {describe(value)}; quote it"
        if problem is None:
            problem = value_problem(value)
        if problem is not None:
            yield path, problem


def _key_problem(key: object, reserved: Iterable[str]) -> str | None:
    if not isinstance(key, str):
        return f"has a key that is {describe(key)}, not a string; quote it"
    if key in reserved:
        return "is set by driftctl; remove it from Git"
    return label_key_problem(key)


def _annotations_size(annotations: object) -> Iterator[tuple[tuple[Any, ...], str]]:
    if not isinstance(annotations, Mapping):
        return
    size = sum(len(str(key)) + len(str(value)) for key, value in annotations.items())
    if size > MAX_ANNOTATIONS_BYTES:
        yield (
            ("metadata", "annotations"),
            f"total {size} bytes, over the limit of {MAX_ANNOTATIONS_BYTES}",
        )


IGNORE_ORIGIN = f"the WebApp's annotation {c.IGNORE_ANNOTATION}"


def _ignore_rule_problems(annotations: object) -> Iterator[tuple[tuple[Any, ...], str]]:
    value = annotations.get(c.IGNORE_ANNOTATION) if isinstance(annotations, Mapping) else None
    if not isinstance(value, str):
        return
    for text in rule_texts(value):
        try:
            IgnoreRule.parse(text, IGNORE_ORIGIN)
        except ValueError as bad:
            yield ("metadata", "annotations", c.IGNORE_ANNOTATION), f"has an ignore rule {bad}"


def _control_problems(annotations: object) -> Iterator[tuple[tuple[Any, ...], str]]:
    """A policy annotation's value (driftctl.policies), and annotations that are the live
    object's alone."""
    if not isinstance(annotations, Mapping):
        return
    for key, value in annotations.items():
        where = ("metadata", "annotations", key)
        if key in LIVE_ANNOTATIONS:
            yield where, LIVE_ANNOTATIONS[key]
        elif isinstance(value, str) and (problem := policy_problem(key, value)) is not None:
            yield where, problem


def ignore_rules(annotations: Mapping[str, str]) -> tuple[IgnoreRule, ...]:
    """The ignore rules a valid WebApp declares in its annotation driftctl.example.com/ignore."""
    value = annotations.get(c.IGNORE_ANNOTATION, "")
    return tuple(IgnoreRule.parse(text, IGNORE_ORIGIN) for text in rule_texts(value))


def _display(document: Document, default_namespace: str) -> str:
    """The WebApp as a problem names it; a part that is not printable (a name holding a new
    line, say) is shown quoted and escaped, so that every problem stays one line."""
    identity = _identity(document, default_namespace)
    if identity is None:
        return c.KIND
    return c.object_ref(c.KIND, *(part if part.isprintable() else repr(part) for part in identity))


def _identity(document: Document, default_namespace: str) -> Place | None:
    metadata = document.body.get("metadata")
    if not isinstance(metadata, Mapping) or not isinstance(metadata.get("name"), str):
        return None
    namespace = metadata.get("namespace", default_namespace) or default_namespace
    return Place(str(namespace), metadata["name"])


def duplicates(documents: Iterable[Document], default_namespace: str) -> Iterator[Problem]:
    """The same namespace/name declared twice, in one file or across files: both places named."""
    first_seen: dict[Place, Document] = {}
    for document in documents:
        if not _declares_webapp(document):
            continue
        identity = _identity(document, default_namespace)
        if identity is None:
            continue
        first = first_seen.setdefault(identity, document)
        if first is not document:
            where = f"{first.file}:{first.line}"
            reason = f"{_display(document, default_namespace)} is declared twice: also at {where}"
            yield document.problem(("metadata", "name"), reason)


def _declares_webapp(document: Document) -> bool:
    return document.body.get("kind") == c.KIND and document.body.get("apiVersion") == c.API_VERSION


def webapp_of(document: Document, default_namespace: str) -> WebApp:
    """The WebApp a valid document declares; its origin is the document's first line."""
    metadata = document.body["metadata"]
    spec = document.body["spec"]
    annotations = dict(metadata.get("annotations") or {})
    return WebApp(
        name=metadata["name"],
        namespace=metadata.get("namespace") or default_namespace,
        spec=WebAppSpec(image=spec["image"], replicas=spec["replicas"]),
        labels=dict(metadata.get("labels") or {}),
        annotations=annotations,
        origin=Origin(document.file, document.line),
        ignore=ignore_rules(annotations),
    )
