"""Reading plain API objects: identity and the metadata the core decides on.

Live objects arrive as dicts parsed from the API server's JSON; desired ones as dicts
from core.planning.manifests. This module only reads them; it never builds or changes one.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from driftctl import conventions as c
from driftctl.core.source.model import Place

Obj = dict[str, Any]


class ObjectKey(NamedTuple):
    """The identity of an object within one run: kind, namespace, name."""

    kind: str
    namespace: str
    name: str

    @property
    def display(self) -> str:
        """`Kind/namespace/name`, as every report names an object."""
        return c.object_ref(self.kind, self.namespace, self.name)

    @property
    def place(self) -> Place:
        """Where the object is: (namespace, name), shared by a WebApp and its Deployment."""
        return Place(self.namespace, self.name)

    def as_json(self) -> dict[str, str]:
        """`{kind, namespace, name}`, as every JSON document names an object (the check
        report, the JSON log, the saved-plan file)."""
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name}


def metadata(obj: Obj) -> Obj:
    """The object's metadata, or an empty dict when it has none."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def key_of(obj: Obj) -> ObjectKey:
    """The identity of a live or desired object."""
    meta = metadata(obj)
    namespace = meta.get("namespace", c.DEFAULT_NAMESPACE)
    return ObjectKey(str(obj.get("kind", "")), str(namespace), str(meta.get("name", "")))


def labels_of(obj: Obj) -> dict[str, str]:
    """The object's labels (empty when none)."""
    return dict(metadata(obj).get("labels") or {})


def annotations_of(obj: Obj) -> dict[str, str]:
    """The object's annotations (empty when none)."""
    return dict(metadata(obj).get("annotations") or {})


def uid(obj: Obj) -> str:
    """The uid the API server gave the object ("" for a desired object)."""
    return str(metadata(obj).get("uid", ""))


def is_terminating(obj: Obj) -> bool:
    """Whether a delete was requested: the server set deletionTimestamp."""
    return bool(metadata(obj).get("deletionTimestamp"))


def owner_uids(obj: Obj, kind: str = c.KIND) -> frozenset[str]:
    """The uids of the object's owners of `kind` (ownerReferences)."""
    refs = metadata(obj).get("ownerReferences") or []
    return frozenset(str(ref.get("uid", "")) for ref in refs if ref.get("kind") == kind)
