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

How urgent (core.watch.queue.Urgency): a change that only moves a Deployment's status (the
Deployment controller's updates: its status and that subresource's managedFields entry,
and its rollout counter annotation with the controller manager's entry) is a status
refresh, the least urgent work; any other change of an object driftctl owns
(its spec, labels, annotations, finalizers, a manager's fields, its creation or deletion)
was made by a person or another controller and is drift, handled first.
Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.normalize import CONTROLLER_ANNOTATIONS
from driftctl.core.planning.objects import Obj
from driftctl.core.source.model import Place
from driftctl.core.watch.queue import Urgency


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
    return urgency_of(before, after) is not None


def urgency_of(before: Obj | None, after: Obj | None) -> Urgency | None:
    """How urgent the reconcile the change from `before` to `after` calls for (None: none)."""
    if before is None or after is None:
        return None if before is after else Urgency.DRIFT
    old, new = fingerprint(before), fingerprint(after)
    if old == new:
        return None
    if _is_webapp(after) or _without_status(old) != _without_status(new):
        return Urgency.DRIFT
    return Urgency.STATUS


CONTROLLER_MANAGER = "kube-controller-manager"  # the Deployment controller's field manager


def _without_status(fingerprinted: Obj) -> Obj:
    """A Deployment's fingerprint without what the Deployment controller writes."""
    out = {key: value for key, value in fingerprinted.items() if key != "status"}
    meta = dict(out["metadata"])
    meta["managedFields"] = [
        entry
        for entry in meta["managedFields"]
        if entry.get("subresource") != "status" and entry.get("manager") != CONTROLLER_MANAGER
    ]
    annotations = {
        key: value
        for key, value in (meta.get("annotations") or {}).items()
        if key not in CONTROLLER_ANNOTATIONS
    }
    meta["annotations"] = annotations
    out["metadata"] = meta
    return out


def _is_webapp(obj: Obj) -> bool:
    return obj.get("kind") == c.KIND
