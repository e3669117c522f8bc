"""The typed WebApp model: what Git declares and what the status reports.

The CRD's schema is generated from these classes (core.crd), so the offline validation
and the API server agree on what a WebApp is. Field names of the status keep the seed
operator's `available_replicas` and `ready` exactly, so clusters that already run its CRD
are read and written correctly; the other status fields follow the API conventions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

INT32_MAX = 2**31 - 1


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

    image: str
    replicas: int


@dataclass(frozen=True)
class WebApp:
    """One desired WebApp as declared in Git, already validated."""

    name: str
    namespace: str
    spec: WebAppSpec
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    origin: Origin | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[str, str]:
        """The identity of a WebApp in a cluster: (namespace, name)."""
        return (self.namespace, self.name)

    @property
    def display(self) -> str:
        """How every message names this object: `WebApp/namespace/name`."""
        return f"WebApp/{self.namespace}/{self.name}"


@dataclass(frozen=True)
class Condition:
    """A kstatus condition (`Ready`, `Reconciling`, `Stalled`)."""

    type: str
    status: str  # "True", "False" or "Unknown"
    reason: str
    message: str
    observed_generation: int
    last_transition_time: str


@dataclass(frozen=True)
class WebAppStatus:
    """What the status subresource reports about one WebApp."""

    available_replicas: int
    ready: bool
    observed_generation: int
    conditions: tuple[Condition, ...]
    last_applied_revision: str
