"""The run lock as decisions over a coordination.k8s.io/v1 Lease.

One run at a time per instance. A Lease is free when it has no holder or its holder has
not renewed it within leaseDurationSeconds (the holder died); it is ours when we hold it.
Every write goes with the resourceVersion that was read, so two runs racing for a free
Lease cannot both win: the loser gets 409 and looks again. Pure: `now` is passed in.
"""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c

MICRO_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"


class Step(enum.Enum):
    CREATE = "create"  # no Lease yet
    TAKE = "take"  # free, expired or already ours: write ourselves in
    WAIT = "wait"  # held by a live run


@dataclass(frozen=True)
class Holder:
    """Who holds a Lease and until when (None: never renewed)."""

    identity: str
    expires: datetime.datetime | None


def format_time(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).strftime(MICRO_TIME)


def parse_time(text: str | None) -> datetime.datetime | None:
    if not text:
        return None
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def holder(lease: dict[str, Any]) -> Holder | None:
    """The current holder of a Lease, or None when nobody holds it."""
    spec = lease.get("spec") or {}
    identity = spec.get("holderIdentity")
    if not identity:
        return None
    renewed = parse_time(spec.get("renewTime") or spec.get("acquireTime"))
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
    *,
    namespace: str,
    instance: str,
    me: str,
    duration: int,
    now: datetime.datetime,
) -> dict[str, Any]:
    """The Lease body that records `me` as holder (keeping the read resourceVersion)."""
    spec = dict((lease or {}).get("spec") or {})
    previous = spec.get("holderIdentity")
    if previous != me:
        spec["acquireTime"] = format_time(now)
        spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + (1 if previous else 0)
    spec.update(holderIdentity=me, leaseDurationSeconds=duration, renewTime=format_time(now))
    return _lease(lease, namespace, instance, spec)


def released(lease: dict[str, Any]) -> dict[str, Any]:
    """The Lease body with nobody holding it; the next run takes it at once."""
    spec = {
        k: v
        for k, v in (lease.get("spec") or {}).items()
        if k not in ("holderIdentity", "renewTime")
    }
    meta = lease["metadata"]
    return _lease(lease, meta["namespace"], meta["name"].removeprefix("driftctl-"), spec)


def _lease(
    lease: dict[str, Any] | None, namespace: str, instance: str, spec: dict[str, Any]
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": c.lease_name(instance),
        "namespace": namespace,
        "labels": {c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE, c.INSTANCE_LABEL: instance},
    }
    if lease is not None:
        metadata["resourceVersion"] = lease["metadata"]["resourceVersion"]
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": metadata,
        "spec": spec,
    }
