"""The typed WebApp model: what Git declares and what the status reports.

The CRD's schema is generated from these classes (core.source.crd), so the offline validation
and the API server agree on what a WebApp is. Field names of the status keep the seed
operator's `available_replicas` and `ready` exactly, so clusters that already run its CRD
are read and written correctly; the other status fields follow the API conventions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from driftctl import conventions as c
from driftctl.core.source.schema import prop
from driftctl.ignore_rules import IgnoreRule

INT32_MAX = 2**31 - 1
MAX_CORRECTIONS = 10  # the status keeps the most recent corrections, one per field


class Place(NamedTuple):
    """Where a WebApp is in a cluster, and its Deployment with it: (namespace, name).

    The one identity a WebApp and its Deployment share: watch queues a place, a plan's
    chain is one place's steps. An object's full identity is core.planning.objects.ObjectKey
    (kind, namespace, name), whose `place` this is.
    """

    namespace: str
    name: str


@dataclass(frozen=True, order=True)
class Origin:
    """Where a document was declared: the file (relative to the repository) and its line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class WebAppSpec:
    """The desired state of one web application."""

    image: str = prop("Container image the Deployment runs.", min_length=1)
    replicas: int = prop("Desired number of pods.", format="int32", minimum=0, maximum=INT32_MAX)


@dataclass(frozen=True)
class WebApp:
    """One desired WebApp as declared in Git, already validated."""

    name: str
    namespace: str
    spec: WebAppSpec
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    origin: Origin | None = field(default=None, compare=False)
    ignore: tuple[IgnoreRule, ...] = ()  # from its annotation driftctl.example.com/ignore

    @property
    def place(self) -> Place:
        """Where this WebApp is in a cluster: (namespace, name)."""
        return Place(self.namespace, self.name)

    @property
    def display(self) -> str:
        """How every message names this object: `WebApp/namespace/name`."""
        return c.object_ref(c.KIND, self.namespace, self.name)


@dataclass(frozen=True)
class Condition:
    """A kstatus condition (`Ready`, `Reconciling`, `Stalled`)."""

    type: str = prop("Condition type: Ready, Reconciling or Stalled.", min_length=1, max_length=316)
    status: str = prop("Whether the condition holds.", enum=("True", "False", "Unknown"))
    reason: str = prop("One CamelCase word saying why.", min_length=1, max_length=1024)
    message: str = prop("What a person should know, in a sentence.", max_length=32768)
    observed_generation: int = prop(
        "The WebApp generation the condition was computed from.",
        json_name="observedGeneration",
        format="int64",
        minimum=0,
        optional=True,
    )
    last_transition_time: str = prop(
        "When the status last changed.", json_name="lastTransitionTime", format="date-time"
    )


@dataclass(frozen=True)
class IgnoredField:
    """A field that differs from Git and is kept as the cluster has it: an ignore rule or an
    autoscaler says so."""

    kind: str = prop("Kind of the object: WebApp or Deployment.", min_length=1)
    field: str = prop("The field, e.g. spec.replicas.", min_length=1)
    reason: str = prop("Why it is kept, e.g. scaled by HorizontalPodAutoscaler/web/shop.")


@dataclass(frozen=True)
class Correction:
    """Drift driftctl reverted: who changed the field, how many runs in a row, and when last."""

    kind: str = prop("Kind of the object: WebApp or Deployment.", min_length=1)
    field: str = prop(
        "The field, e.g. spec.template.spec.containers[name=app].image.", min_length=1
    )
    manager: str = prop("The field manager whose change was reverted.", min_length=1)
    count: int = prop(
        "How many runs in a row reverted a change of this field by this manager.",
        format="int64",
        minimum=1,
    )
    last_corrected: str = prop(
        "When driftctl last reverted it.", json_name="lastCorrected", format="date-time"
    )


@dataclass(frozen=True)
class WebAppStatus:
    """What the status subresource reports about one WebApp."""

    # Every status field is optional in the schema: status is written piece by piece, and a
    # cluster may hold status written by the seed operator with only its two fields.
    available_replicas: int = prop(
        "Available pods of the Deployment.", format="int32", minimum=0, optional=True
    )
    ready: bool = prop(
        "Available pods reach the desired count and the Deployment has observed its latest spec.",
        optional=True,
    )
    observed_generation: int = prop(
        "The WebApp generation this status describes.",
        json_name="observedGeneration",
        format="int64",
        minimum=0,
        optional=True,
    )
    conditions: tuple[Condition, ...] = prop(
        "kstatus conditions: Ready, Reconciling, Stalled.", optional=True, list_map_keys=("type",)
    )
    last_applied_revision: str = prop(
        "Git commit SHA last applied.", json_name="lastAppliedRevision", optional=True
    )
    ignored_fields: tuple[IgnoredField, ...] = prop(
        "Fields of the WebApp or its Deployment that differ from Git and are kept, and why.",
        json_name="ignoredFields",
        optional=True,
        list_map_keys=("kind", "field"),
    )
    last_verified_revision: str = prop(
        "Git commit SHA last applied to this WebApp whose signature --verify checked.",
        json_name="lastVerifiedRevision",
        optional=True,
    )
    last_verified_key: str = prop(
        "Fingerprint of the trusted key that signed lastVerifiedRevision (OpenPGP, or SSH "
        "SHA256:...).",
        json_name="lastVerifiedKey",
        optional=True,
    )
    corrections: tuple[Correction, ...] = prop(
        "Recent drift driftctl reverted, one entry per field (a fight when the count grows).",
        optional=True,
        list_map_keys=("kind", "field"),
        max_items=MAX_CORRECTIONS,
    )
