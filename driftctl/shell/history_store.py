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


class Keeper:
    """Adds runs' lines to one instance's history, remembering the head it last wrote: a
    watch records many reconciles under one Lease, each then one request (the head is read
    again only when another writer moved it: a 409); an apply records once (a read, then a
    write)."""

    def __init__(self, ref: HistoryRef) -> None:
        self.ref = ref
        self._head: _Found | None = None

    def append(self, kube: Kube, lines: list[str]) -> str | None:
        """Add a run's lines; None when kept, else why not."""
        ref = self.ref
        try:
            for _ in range(ATTEMPTS):
                if self._appended(kube, lines):
                    return None
        except DriftctlError as failed:
            self._head = None
            return f"{ref.display} could not be written: {failed.message}"
        except _Foreign as foreign:
            return f"ConfigMap {ref.namespace}/{foreign} exists and is not this instance's"
        return f"{ref.display} kept changing under this run ({ATTEMPTS} tries)"

    def _appended(self, kube: Kube, lines: list[str]) -> bool:
        """One try: False when another writer wrote the head first (409)."""
        ref, name = self.ref, head_name(self.ref.instance)
        head = self._head or _read(kube, ref, name)
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
            version = _write(kube, ref, name, after, head.version)
        except ApiError as refused:
            if refused.status == CONFLICT:
                self._head = None
                return False
            raise
        self._head = _Found(after, version)
        return True


class _Foreign(Exception):
    """A ConfigMap of the ring's names that is not this instance's."""


def _write(kube: Kube, ref: HistoryRef, name: str, segment: Segment, version: str | None) -> str:
    """Write one ConfigMap of the ring; its resourceVersion now."""
    body = _config_map(ref, name, segment, version)
    if version is None:
        answer = kube.send(r.create(r.CONFIGMAP, ref.namespace, body, c.FIELD_MANAGER))
    else:
        answer = kube.send(r.replace(r.CONFIGMAP, ref.namespace, name, body, c.FIELD_MANAGER))
    return str((answer.get("metadata") or {}).get("resourceVersion") or "")


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
