"""A small model of the API server's server-side apply, for the property test of the pure core.

It is a model, not a stand-in: integration tests run the real control plane. It records
ownership with the core's own field-set spelling (core.planning.fieldset), so it can show that
the planner converges under SSA's rules (apply merges, force takes fields from other
managers, fields only the applier owned and no longer sends are removed, defaults are
added, finalizers hold deletion), not that core.planning.fieldset spells fields as the server does.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.field_access import locate
from driftctl.core.planning.objects import ObjectKey, key_of

Obj = dict[str, Any]

CONTAINER_DEFAULTS = {
    "imagePullPolicy": "IfNotPresent",
    "resources": {},
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}
POD_DEFAULTS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "schedulerName": "default-scheduler",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
}
DEPLOYMENT_DEFAULTS = {
    "progressDeadlineSeconds": 600,
    "revisionHistoryLimit": 10,
    "strategy": {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
    },
}


def _set(obj: Any, path: fs.FieldPath, value: Any) -> None:
    """Set the field at `path`, creating maps and list items on the way."""
    node = obj
    for index, element in enumerate(path):
        last = index == len(path) - 1
        kind, _, rest = element.partition(":")
        if kind == "f":
            node = _step_map(node, rest, value, last)
        elif kind == "k":
            node = _step_item(node, json.loads(rest), value, last)
        elif json.loads(rest) not in node:
            node.append(json.loads(rest))


def _step_map(node: Obj, key: str, value: Any, last: bool) -> Any:
    if last:
        node[key] = copy.deepcopy(value)
        return None
    return node.setdefault(key, [] if _next_is_list_item(key) else {})


def _next_is_list_item(key: str) -> bool:
    return key in ("finalizers", "ownerReferences", "containers")


def _step_item(node: list[Any], key: Obj, value: Any, last: bool) -> Any:
    for item in node:
        if all(item.get(k) == v for k, v in key.items()):
            if last:
                item.clear()
                item.update(copy.deepcopy(value))
            return item
    item = copy.deepcopy(value) if last else dict(key)
    node.append(item)
    return item


def _remove(obj: Any, path: fs.FieldPath) -> None:
    """Remove the field at `path` if it is there."""
    node = obj
    for element in path[:-1]:
        node = _child(node, element)
        if node is None:
            return
    element = path[-1]
    kind, _, rest = element.partition(":")
    if kind == "f" and isinstance(node, dict):
        node.pop(rest, None)
    elif isinstance(node, list):
        node[:] = [item for item in node if _child([item], element) is None]


def _child(node: Any, element: str) -> Any:
    kind, _, rest = element.partition(":")
    if kind == "f":
        return node.get(rest) if isinstance(node, dict) else None
    wanted = json.loads(rest)
    for item in node if isinstance(node, list) else []:
        if kind == "v" and item == wanted:
            return item
        if kind == "k" and all(item.get(k) == v for k, v in wanted.items()):
            return item
    return None


@dataclass
class ModelCluster:
    """Live objects by key, with uids and resourceVersions handed out in order."""

    objects: dict[ObjectKey, Obj] = field(default_factory=dict)
    counter: int = 0

    def _next(self) -> str:
        self.counter += 1
        return str(self.counter)

    def listed(self, kind: str) -> list[Obj]:
        return [copy.deepcopy(obj) for key, obj in sorted(self.objects.items()) if key.kind == kind]

    def apply(self, manifest: Obj, manager: str, *, dry_run: bool = False) -> Obj:
        """Server-side apply with force; a dry run returns the result and stores nothing."""
        key = key_of(manifest)
        live = self.objects.get(key)
        result = copy.deepcopy(live) if live is not None else self._new(manifest)
        api_version = str(manifest["apiVersion"])
        owned = fs.fieldset(manifest)
        given_up = fs.owned_fields(result, manager, api_version) - owned
        entries = self._take(result, owned, manager, api_version)
        for path in given_up:
            if not any(fs.overlaps(_paths(entry), path) for entry in entries):
                _remove(result, path)
        for path, value in fs.leaves(manifest).items():
            _set(result, path, value)
        entries.append(_entry(manager, "Apply", api_version, owned))
        result["metadata"]["managedFields"] = entries
        self._default(result)
        return self._commit(key, live, result, dry_run)

    def _new(self, manifest: Obj) -> Obj:
        meta = {
            "name": manifest["metadata"]["name"],
            "namespace": manifest["metadata"]["namespace"],
        }
        meta |= {
            "uid": f"uid-{self._next()}",
            "generation": 1,
            "creationTimestamp": "2026-11-20T10:00:00Z",
        }
        return {"apiVersion": manifest["apiVersion"], "kind": manifest["kind"], "metadata": meta}

    def _take(
        self, obj: Obj, owned: frozenset[fs.FieldPath], manager: str, api_version: str
    ) -> list[Obj]:
        """Every other entry loses the fields now applied (force); ours is rebuilt."""
        kept = []
        for entry in obj.get("metadata", {}).get("managedFields", []):
            ours = (
                entry["manager"] == manager
                and entry["operation"] == "Apply"
                and not entry.get("subresource")
            )
            if ours and entry["apiVersion"] == api_version:
                continue
            rest = {
                p for p in _paths(entry) if not any(fs.overlaps(frozenset({p}), q) for q in owned)
            }
            if rest:
                kept.append({**entry, "fieldsV1": fs.to_fields_v1(rest)})
        return kept

    def _default(self, obj: Obj) -> None:
        if obj["kind"] != c.DEPLOYMENT_KIND:
            return
        spec = obj["spec"]
        for key, value in DEPLOYMENT_DEFAULTS.items():
            spec.setdefault(key, copy.deepcopy(value))
        pod = spec["template"]["spec"]
        for key, value in POD_DEFAULTS.items():
            pod.setdefault(key, copy.deepcopy(value))
        for container in pod["containers"]:
            for key, value in CONTAINER_DEFAULTS.items():
                container.setdefault(key, copy.deepcopy(value))

    def _commit(self, key: ObjectKey, live: Obj | None, result: Obj, dry_run: bool) -> Obj:
        if live is not None and result.get("spec") != live.get("spec"):
            result["metadata"]["generation"] = live["metadata"]["generation"] + 1
        if live is None or result != live:
            result["metadata"]["resourceVersion"] = f"rv-{self._next()}"
        if not dry_run:
            self.objects[key] = result
        return copy.deepcopy(result)

    def update(self, key: ObjectKey, manager: str, path: fs.FieldPath, value: Any) -> None:
        """An Update by another manager (kubectl scale/edit/label): it takes the field."""
        obj = self.objects[key]
        _set(obj, path, value)
        entries = [
            {**entry, "fieldsV1": fs.to_fields_v1(_paths(entry) - {path})}
            for entry in obj["metadata"]["managedFields"]
        ]
        entries.append(_entry(manager, "Update", str(obj["apiVersion"]), frozenset({path})))
        obj["metadata"]["managedFields"] = [entry for entry in entries if entry["fieldsV1"]]
        obj["metadata"]["resourceVersion"] = f"rv-{self._next()}"

    def delete(self, key: ObjectKey) -> None:
        """Delete: with finalizers it stays, Terminating; without, it goes with dependents."""
        obj = self.objects.get(key)
        if obj is None:
            return
        if obj["metadata"].get("finalizers"):
            obj["metadata"].setdefault("deletionTimestamp", "2026-11-21T09:00:00Z")
            return
        self._gone(key, obj)

    def _gone(self, key: ObjectKey, obj: Obj) -> None:
        # The garbage collector deletes dependents whose owner is gone.
        del self.objects[key]
        uid = obj["metadata"]["uid"]
        for other in [k for k, o in self.objects.items() if _owned_by(o, uid)]:
            self.delete(other)

    def patch(self, key: ObjectKey, operations: list[Obj], *, dry_run: bool = False) -> Obj:
        """A JSON Patch (an Update): a field it removes leaves every manager's set, and an
        entry left empty goes. A Terminating object whose last finalizer goes is deleted."""
        live = self.objects[key]
        obj: Obj = jsonpatch.apply_patch(live, operations)
        entries = [
            {**entry, "fieldsV1": fs.to_fields_v1(p for p in _paths(entry) if locate(obj, p))}
            for entry in obj["metadata"].get("managedFields", [])
        ]
        obj["metadata"]["managedFields"] = [entry for entry in entries if entry["fieldsV1"]]
        if obj != live:
            obj["metadata"]["resourceVersion"] = f"rv-{self._next()}"
        if dry_run:
            return copy.deepcopy(obj)
        self.objects[key] = obj
        if obj["metadata"].get("deletionTimestamp") and not obj["metadata"].get("finalizers"):
            self._gone(key, obj)
        return copy.deepcopy(obj)


def _paths(entry: Obj) -> frozenset[fs.FieldPath]:
    return fs.tree_paths(entry.get("fieldsV1") or {})


def _entry(manager: str, operation: str, api_version: str, paths: frozenset[fs.FieldPath]) -> Obj:
    return {
        "manager": manager,
        "operation": operation,
        "apiVersion": api_version,
        "fieldsType": "FieldsV1",
        "fieldsV1": fs.to_fields_v1(paths),
    }


def _owned_by(obj: Obj, uid: str) -> bool:
    return any(ref.get("uid") == uid for ref in obj["metadata"].get("ownerReferences", []))
