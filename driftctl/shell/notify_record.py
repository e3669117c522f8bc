"""What this instance's notifications last told, kept in the cluster: one ConfigMap.

`driftctl-<instance>-notified` (a shard's: `driftctl-<instance>-shard-<i>-notified`), in
the run lock's namespace, holds one JSON document per receiver (core.notify.record,
core.notify.forge). A CronJob Pod starts fresh every run; this is what it remembers. It is
an object of its own rather than an annotation on the Lease because the Lease is renewed
every 10 s with the resourceVersion its holder read (a write beside it would make that
renewal fail, and the run stop as if its lock were lost), and because a run that stopped
before it could take the lock (an invalid commit) still has to remember what it told.

Written with the resourceVersion read (a PUT), so two writers cannot silently lose each
other's record: the loser is told so (`Conflict`), reads it again and writes its change
on what it reads (pipeline.notify). A ConfigMap of that name without this instance's
labels is someone else's and is never written. Nothing here raises: a record that cannot
be read or written is a warning, and the run goes on (reading nothing means telling
everything again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.errors import DriftctlError
from driftctl.shell.kube import ApiError, Kube


@dataclass(frozen=True)
class RecordRef:
    """Where one instance's (or shard's) record is."""

    namespace: str
    instance: str
    shard: int | None = None  # None: not sharded

    @property
    def name(self) -> str:
        return c.notified_name(self.instance, self.shard)

    @property
    def display(self) -> str:
        return f"ConfigMap {self.namespace}/{self.name}"


@dataclass
class Kept:
    """The record as read: each receiver's document, and what a write must carry."""

    data: dict[str, str]
    resource_version: str | None = None  # None: there is none yet
    foreign: bool = False  # a ConfigMap of that name that is not ours


def read(kube: Kube, ref: RecordRef) -> Kept | str:
    """The record (empty when none was written yet), or why it cannot be read."""
    try:
        found = kube.send_unless_missing(r.get(r.CONFIGMAP, ref.namespace, ref.name))
    except DriftctlError as failed:
        return f"{ref.display} could not be read: {failed.message}"
    if found is None:
        return Kept({})
    meta = found.get("metadata") or {}
    labels = meta.get("labels") or {}
    if labels.get(c.INSTANCE_LABEL) != ref.instance:
        return Kept({}, str(meta.get("resourceVersion")), foreign=True)
    data = {str(k): str(v) for k, v in (found.get("data") or {}).items()}
    return Kept(data, str(meta.get("resourceVersion")))


@dataclass(frozen=True)
class Conflict:
    """The record was written by another run since it was read: read it again."""


CONFLICT = 409


def write(kube: Kube, ref: RecordRef, kept: Kept, data: dict[str, str]) -> Kept | Conflict | str:
    """Keep `data` as the record, guarded by the resourceVersion `kept` was read at: the
    record as written, Conflict when another run wrote it since, else why not."""
    if kept.foreign:
        return f"{ref.display} exists and is not this instance's: what was told is not kept"
    body = _config_map(ref, data, kept.resource_version)
    try:
        if kept.resource_version is None:
            written = kube.send(r.create(r.CONFIGMAP, ref.namespace, body, c.FIELD_MANAGER))
        else:
            written = kube.send(
                r.replace(r.CONFIGMAP, ref.namespace, ref.name, body, c.FIELD_MANAGER)
            )
    except ApiError as failed:
        if failed.status == CONFLICT:
            return Conflict()
        return f"{ref.display} could not be written: {failed.message}"
    except DriftctlError as failed:
        return f"{ref.display} could not be written: {failed.message}"
    version = ((written or {}).get("metadata") or {}).get("resourceVersion")
    return Kept(dict(data), str(version) if version is not None else None)


def _config_map(ref: RecordRef, data: dict[str, str], version: str | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": ref.name,
        "namespace": ref.namespace,
        "labels": {c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE, c.INSTANCE_LABEL: ref.instance},
    }
    if version is not None:
        metadata["resourceVersion"] = version
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}
