"""Which watch events call for a reconcile, and of which WebApp.

A WebApp and its Deployment share one place (namespace, name): an event of either queues
that place's WebApp. An event is worth a reconcile when the object changed in anything
but its own bookkeeping:
- never for a new resourceVersion alone, or a managedFields entry whose only change is its
  time;
- not for a WebApp's status, nor for the managedFields entry of the status subresource:
  the status is what a reconcile writes (it reads the Deployment, never the WebApp's own
  status), so driftctl's own status write never triggers a reconcile of its WebApp; its
  generation, labels, annotations, finalizers, deletion and spec all do;
- for a Deployment's status, yes: the WebApp's status is made from it.
Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.objects import Obj
from driftctl.core.source.model import Place


def place_of(obj: Mapping[str, Any]) -> Place:
    """The WebApp an object's events are about: the one at its namespace and name."""
    meta = obj.get("metadata") or {}
    return Place(str(meta.get("namespace", "")), str(meta.get("name", "")))


def fingerprint(obj: Obj) -> Obj:
    """The object without what changes when nothing that matters did (module docstring)."""
    out = {key: value for key, value in obj.items() if not (key == "status" and _is_webapp(obj))}
    meta = dict(obj.get("metadata") or {})
    meta.pop("resourceVersion", None)
    meta["managedFields"] = [
        {key: value for key, value in entry.items() if key != "time"}
        for entry in meta.get("managedFields") or []
        if not (_is_webapp(obj) and entry.get("subresource") == "status")
    ]
    out["metadata"] = meta
    return out


def worth_reconciling(before: Obj | None, after: Obj | None) -> bool:
    """Whether the change from `before` to `after` (None: absent) calls for a reconcile."""
    if before is None or after is None:
        return before is not after
    return fingerprint(before) != fingerprint(after)


def _is_webapp(obj: Obj) -> bool:
    return obj.get("kind") == c.KIND
