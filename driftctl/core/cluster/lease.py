"""The run lock as decisions over a coordination.k8s.io/v1 Lease.

One run at a time per instance. A Lease is free when it has no holder or its holder has
not renewed it within leaseDurationSeconds (the holder died); it is ours when we hold it.
Every write goes with the resourceVersion that was read, so two runs racing for a free
Lease cannot both win: the loser gets 409 and looks again. Pure: `now` is passed in.

A Lease is named by a `LeaseRef` (namespace, instance and shard): its name is computed
there, once, and never parsed back. Each shard of a sharded instance holds its own Lease,
so shards run at the same time while two runs of one shard still exclude each other.
"""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.kube_formats import api_micro_time, parse_api_time
from driftctl.settings import WHOLE, Shard


class Step(enum.Enum):
    CREATE = "create"  # no Lease yet
    TAKE = "take"  # free, expired or already ours: write ourselves in
    WAIT = "wait"  # held by a live run


@dataclass(frozen=True)
class LeaseRef:
    """Which Lease is one instance's (or shard's) run lock, in a namespace."""

    namespace: str
    instance: str
    shard: Shard = WHOLE

    @property
    def name(self) -> str:
        """`driftctl-<instance>`, or `driftctl-<instance>-shard-<index>` when sharded."""
        return c.lease_name(self.instance, self.shard.index if self.shard.sharded else None)

    @property
    def display(self) -> str:
        """`Lease namespace/driftctl-instance`, as messages name it."""
        return f"Lease {self.namespace}/{self.name}"


@dataclass(frozen=True)
class Holder:
    """Who holds a Lease and until when (None: never renewed)."""

    identity: str
    expires: datetime.datetime | None


def holder(lease: dict[str, Any]) -> Holder | None:
    """The current holder of a Lease, or None when nobody holds it."""
    spec = lease.get("spec") or {}
    identity = spec.get("holderIdentity")
    if not identity:
        return None
    renewed = parse_api_time(spec.get("renewTime") or spec.get("acquireTime"))
    duration = datetime.timedelta(seconds=int(spec.get("leaseDurationSeconds") or 0))
    return Holder(identity, renewed + duration if renewed else None)


def decide(lease: dict[str, Any] | None, me: str, now: datetime.datetime) -> Step:
    """What to do about a Lease read just now."""
    if lease is None:
        return Step.CREATE
    current = holder(lease)
    if current is None or current.identity == me:
        return Step.TAKE
    if current.expires is None or current.expires <= now:
        return Step.TAKE
    return Step.WAIT


def held(
    lease: dict[str, Any] | None,
    ref: LeaseRef,
    *,
    me: str,
    duration: int,
    now: datetime.datetime,
) -> dict[str, Any]:
    """The Lease body that records `me` as holder (keeping the read resourceVersion)."""
    spec = dict((lease or {}).get("spec") or {})
    previous = spec.get("holderIdentity")
    if previous != me:
        spec["acquireTime"] = api_micro_time(now)
        spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + (1 if previous else 0)
    spec.update(holderIdentity=me, leaseDurationSeconds=duration, renewTime=api_micro_time(now))
    return _lease(lease, ref, spec)


def released(lease: dict[str, Any], ref: LeaseRef) -> dict[str, Any]:
    """The Lease body with nobody holding it; the next run takes it at once."""
    spec = {
        k: v
        for k, v in (lease.get("spec") or {}).items()
        if k not in ("holderIdentity", "renewTime")
    }
    return _lease(lease, ref, spec)


def _lease(lease: dict[str, Any] | None, ref: LeaseRef, spec: dict[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": ref.name,
        "namespace": ref.namespace,
        "labels": {c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE, c.INSTANCE_LABEL: ref.instance},
    }
    if lease is not None:
        metadata["resourceVersion"] = lease["metadata"]["resourceVersion"]
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": metadata,
        "spec": spec,
    }
