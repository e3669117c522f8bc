"""Transformer configurations: where `images` and `replicas` write in a kind kustomize does
not know.

kustomize maps both onto its own workloads only: for a WebApp, `replicas:` is an error and
`images:` leaves `spec.image` alone, until a kustomization lists a configuration naming
the WebApp's fields. driftctl does exactly the same, and ships that configuration
(`driftctl render --configuration` prints it) for a repository to commit and list. Of a
configuration's sections only `images` and `replicas` are read; others are refused. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.source.documents import Document
from driftctl.errors import Problem

# The default kinds kustomize's replicas transformer knows, as its own error names them.
BUILT_IN_REPLICA_KINDS = (
    "Deployment.[noVer].[noGrp] StatefulSet.[noVer].[noGrp] ReplicaSet.[noVer].[noGrp] "
    "ReplicationController.[noVer].[noGrp]"
)

WEBAPP_CONFIGURATION = f"""\
# kustomize's transformer configuration for the WebApp ({c.GROUP}/{c.VERSION}): list this file under
# `configurations:` in a kustomization so that `images:` and `replicas:` reach a WebApp's
# spec.image and spec.replicas (kustomize maps them onto its built-in workloads only).
images:
- path: spec/image
  kind: {c.KIND}
replicas:
- path: spec/replicas
  kind: {c.KIND}
"""


@dataclass(frozen=True)
class FieldSpec:
    """One field a transformer writes: in objects of `kind` (and group, version if given)."""

    kind: str
    path: tuple[str, ...]
    group: str | None = None
    version: str | None = None

    def matches(self, body: Any) -> bool:
        """Whether an object is of this spec's kind (group and version, when given)."""
        if body.get("kind") != self.kind:
            return False
        group, _, version = str(body.get("apiVersion", "")).rpartition("/")
        return self.group in (None, group) and self.version in (None, version)


@dataclass(frozen=True)
class Configuration:
    """The fields `images` and `replicas` write, beyond kustomize's own workloads."""

    images: tuple[FieldSpec, ...] = ()
    replicas: tuple[FieldSpec, ...] = ()

    def joined(self, other: Configuration) -> Configuration:
        """Both configurations' fields."""
        return Configuration(self.images + other.images, self.replicas + other.replicas)


_SPEC_FIELDS = frozenset(("path", "kind", "group", "version", "create"))


def read_configuration(document: Document) -> tuple[Configuration, list[Problem]]:
    """The configuration one document declares, and every problem with it."""
    problems: list[Problem] = []
    sections: dict[str, tuple[FieldSpec, ...]] = {"images": (), "replicas": ()}
    for section, specs in document.body.items():
        if section not in sections:
            reason = f"{section} is not supported in a configuration: only images and replicas"
            problems.append(document.key_problem((section,), reason))
        elif not isinstance(specs, list):
            problems.append(document.problem((section,), f"{section} must be a list"))
        else:
            found = (_spec(document, (section, i), spec, problems) for i, spec in enumerate(specs))
            sections[section] = tuple(spec for spec in found if spec is not None)
    return Configuration(sections["images"], sections["replicas"]), problems


def _spec(
    document: Document, at: tuple[str, int], spec: Any, problems: list[Problem]
) -> FieldSpec | None:
    if not isinstance(spec, dict):
        problems.append(document.problem(at, f"{at[0]}[{at[1]}] must be a mapping"))
        return None
    for key in spec:
        if key not in _SPEC_FIELDS:
            reason = f"{at[0]}[{at[1]}].{key} is not supported (path, kind, group, version)"
            problems.append(document.key_problem((*at, key), reason))
    path, kind = spec.get("path"), spec.get("kind")
    if not isinstance(path, str) or not path or "[" in path or not isinstance(kind, str):
        reason = f"{at[0]}[{at[1]}] needs a kind and a path of fields (spec/image), no lists"
        problems.append(document.problem(at, reason))
        return None
    group, version = spec.get("group"), spec.get("version")
    return FieldSpec(
        kind,
        tuple(path.split("/")),
        group if isinstance(group, str) else None,
        version if isinstance(version, str) else None,
    )
