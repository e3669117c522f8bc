"""The ConfigMaps that keep what an instance's runs applied (core.history.ring), read
and written in the run lock's namespace.

Each is written with the resourceVersion read (a PUT; a POST for a new one), so two
writers (the shards of one instance) never lose each other's records: the one answered
409 reads the head again and adds its lines to what it finds, a few times at most. A
ConfigMap of one of those names without this instance's label is someone else's: never
written, never read as history. Appending never raises: what could not be kept is said
(a warning) and the run goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.history.ring import SLOTS, Segment, appended, head_name, in_order, slot_name
from driftctl.errors import DriftctlError
from driftctl.shell.kube import ApiError, Kube

ATTEMPTS = 3  # writes of the head answered 409 (another shard wrote first) before giving up
CONFLICT = 409


@dataclass(frozen=True)
class HistoryRef:
    """Where one instance's history is: its namespace (the run lock's) and instance."""

    namespace: str
    instance: str

    @property
    def display(self) -> str:
        return f"ConfigMap {self.namespace}/{head_name(self.instance)}"


@dataclass(frozen=True)
class _Found:
    segment: Segment
    version: str | None  # None: no such ConfigMap yet
    foreign: bool = False


def _read(kube: Kube, ref: HistoryRef, name: str) -> _Found:
    found = kube.send_unless_missing(r.get(r.CONFIGMAP, ref.namespace, name))
    if found is None:
        return _Found(Segment(), None)
    meta = found.get("metadata") or {}
    version = str(meta.get("resourceVersion"))
    if (meta.get("labels") or {}).get(c.INSTANCE_LABEL) != ref.instance:
        return _Found(Segment(), version, foreign=True)
    return _Found(Segment.of_data(found.get("data")), version)


def read_ring(kube: Kube, ref: HistoryRef) -> list[str]:
    """Every line the instance's history keeps, oldest first (DriftctlError when it cannot
    be read: the caller says so)."""
    head = _read(kube, ref, head_name(ref.instance)).segment
    sealed = min(head.seq, SLOTS)
    slots = [_read(kube, ref, slot_name(ref.instance, slot)).segment for slot in range(sealed)]
    return in_order(head, slots)


def append(kube: Kube, ref: HistoryRef, lines: list[str]) -> str | None:
    """Add a run's lines to the history; None when kept, else why not."""
    try:
        for _ in range(ATTEMPTS):
            if _appended(kube, ref, lines):
                return None
    except DriftctlError as failed:
        return f"{ref.display} could not be written: {failed.message}"
    except _Foreign as foreign:
        return f"ConfigMap {ref.namespace}/{foreign} exists and is not this instance's"
    return f"{ref.display} kept changing under this run ({ATTEMPTS} tries)"


class _Foreign(Exception):
    """A ConfigMap of the ring's names that is not this instance's."""


def _appended(kube: Kube, ref: HistoryRef, lines: list[str]) -> bool:
    """One try: False when another writer wrote the head first (409)."""
    name = head_name(ref.instance)
    head = _read(kube, ref, name)
    if head.foreign:
        raise _Foreign(name)
    after, sealed = appended(head.segment, lines)
    for each in sealed:
        slot = slot_name(ref.instance, each.slot)
        found = _read(kube, ref, slot)
        if found.foreign:
            raise _Foreign(slot)
        _write(kube, ref, slot, each.segment, found.version)
    try:
        _write(kube, ref, name, after, head.version)
    except ApiError as refused:
        if refused.status == CONFLICT:
            return False
        raise
    return True


def _write(kube: Kube, ref: HistoryRef, name: str, segment: Segment, version: str | None) -> None:
    body = _config_map(ref, name, segment, version)
    if version is None:
        kube.send(r.create(r.CONFIGMAP, ref.namespace, body, c.FIELD_MANAGER))
    else:
        kube.send(r.replace(r.CONFIGMAP, ref.namespace, name, body, c.FIELD_MANAGER))


def _config_map(
    ref: HistoryRef, name: str, segment: Segment, version: str | None
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": ref.namespace,
        "labels": {c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE, c.INSTANCE_LABEL: ref.instance},
    }
    if version is not None:
        metadata["resourceVersion"] = version
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": segment.data()}
