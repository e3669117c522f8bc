"""The run lock as decisions over a coordination.k8s.io/v1 Lease.

One run at a time per instance. A Lease is free when it has no holder or its holder has
not renewed it within leaseDurationSeconds (the holder died); it is ours when we hold it.
Every write goes with the resourceVersion that was read, so two runs racing for a free
Lease cannot both win: the loser gets 409 and looks again. Pure: `now` is passed in.

A Lease is named by a `LeaseRef` (namespace, instance and shard): its name is computed
there, once, and never parsed back. Each shard of a sharded instance holds its own Lease,
so shards run at the same time while two runs of one shard still exclude each other; a
shard also reads the instance's own Lease (`whole`), where the instance's suspension holds
every shard, those whose Lease is made later included (made `free` when missing).

A holder keeps its Lease on a `Term`: it renews every `renew_every` seconds, tries again
every `retry_every` seconds after a failed renewal, and stops acting once `renew_deadline`
seconds passed since the last renewal that succeeded (`standing`), which is well before the
`duration` after which others may take the Lease. So a leader cut off from the API server
stops writing before a standby can start. The times are on the holder's own monotonic
clock, measured from the moment the renewal's renewTime was stamped (never later than the
server saw it), so the holder's view of its deadline is never the optimistic one.
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.kube_formats import api_micro_time, parse_api_time
from driftctl.settings import WHOLE, Shard


@dataclass(frozen=True)
class Term:
    """How a holder keeps its Lease (seconds): renew_every < renew_deadline < duration."""

    duration: int = 30  # leaseDurationSeconds: others may take the Lease this long after renewTime
    renew_every: float = 10.0
    renew_deadline: float = 20.0
    retry_every: float = 2.0

    def __post_init__(self) -> None:
        if not 0 < self.retry_every <= self.renew_every < self.renew_deadline < self.duration:
            raise ValueError(
                "a Lease term needs 0 < retry_every <= renew_every < renew_deadline < duration, "
                f"got {self.retry_every:g}, {self.renew_every:g}, {self.renew_deadline:g}, "
                f"{self.duration}"
            )

    @classmethod
    def of(cls, duration: int) -> Term:
        """The term of a Lease of `duration` seconds: renewed every third of it, given up
        after two thirds, tried again every fifteenth (at most 2 s) after a failure."""
        return cls(duration, duration / 3, 2 * duration / 3, min(2.0, duration / 15))


class Standing(enum.Enum):
    HELD = "held"  # renewed within the renew deadline: go on acting
    REFUSED = "refused"  # a renewal was answered 409: another run holds it now
    OVERDUE = "overdue"  # no renewal succeeded within the renew deadline: stop acting


def standing(renewed_at: float, refused: bool, now: float, term: Term) -> Standing:
    """Where a holder stands, `now` on the clock `renewed_at` (its last renewal) was read on."""
    if refused:
        return Standing.REFUSED
    if now - renewed_at >= term.renew_deadline:
        return Standing.OVERDUE
    return Standing.HELD


def renewal_budget(renewed_at: float, now: float, term: Term) -> float:
    """How long one renewal tried now may take: what is left before the renew deadline."""
    return max(term.renew_deadline - (now - renewed_at), 0.0)


def next_renewal(renewed: bool, renewed_at: float, now: float, term: Term) -> float:
    """Seconds to wait before the next renewal: `renew_every` after one that succeeded,
    `retry_every` after one that failed, never past the renew deadline."""
    wait = term.renew_every if renewed else term.retry_every
    return max(min(wait, renewal_budget(renewed_at, now, term)), 0.0)


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

    @property
    def whole(self) -> LeaseRef:
        """The instance's own Lease (`driftctl-<instance>`), whichever shard this one is."""
        return LeaseRef(self.namespace, self.instance)


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


@dataclass(frozen=True)
class Verified:
    """The last revision a run verified (--verify) and applied, and the key that signed it:
    recorded on the run lock's Lease, so that the next run, in any Pod, knows it."""

    revision: str
    key: str


def verified_of(lease: dict[str, Any] | None) -> Verified | None:
    """What a Lease records as the last revision verified and applied (None: nothing yet)."""
    annotations = ((lease or {}).get("metadata") or {}).get("annotations") or {}
    revision = annotations.get(c.VERIFIED_REVISION_ANNOTATION)
    if not revision:
        return None
    return Verified(str(revision), str(annotations.get(c.VERIFIED_KEY_ANNOTATION) or ""))


def still_at(lease: dict[str, Any] | None, anchor: str | None) -> bool:
    """Whether a Lease still records `anchor` as the last revision verified: a run verified
    its commit against it, and may record its own only if no other run moved it since."""
    recorded = verified_of(lease)
    return (recorded.revision if recorded else None) == anchor


def held(
    lease: dict[str, Any] | None,
    ref: LeaseRef,
    *,
    me: str,
    duration: int,
    now: datetime.datetime,
    verified: Verified | None = None,
) -> dict[str, Any]:
    """The Lease body that records `me` as holder (keeping the read resourceVersion), and
    `verified`, when given, as the last revision verified."""
    spec = dict((lease or {}).get("spec") or {})
    previous = spec.get("holderIdentity")
    if previous != me:
        spec["acquireTime"] = api_micro_time(now)
        spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + (1 if previous else 0)
    spec.update(holderIdentity=me, leaseDurationSeconds=duration, renewTime=api_micro_time(now))
    body = _lease(lease, ref, spec)
    if verified is not None:
        body["metadata"]["annotations"] = {
            **body["metadata"].get("annotations", {}),
            c.VERIFIED_REVISION_ANNOTATION: verified.revision,
            c.VERIFIED_KEY_ANNOTATION: verified.key,
        }
    return body


def free(ref: LeaseRef) -> dict[str, Any]:
    """A Lease nobody holds yet: the instance's own, made by a shard so that a suspension
    set on every Lease of the instance (by its label) is set where every shard reads it."""
    return _lease(None, ref, {})


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
        # Every annotation stays as it is: a person's (the instance's suspension) and the
        # record of the last revision verified alike.
        annotations = (lease.get("metadata") or {}).get("annotations")
        if annotations:
            metadata["annotations"] = dict(annotations)
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": metadata,
        "spec": spec,
    }


@dataclass(frozen=True)
class LockState:
    """An instance's run lock as its Lease says (`driftctl status`)."""

    lease: str  # `Lease namespace/name`
    holder: str | None
    expires: datetime.datetime | None
    expired: bool  # held by a run that stopped renewing (dead): `driftctl unlock`
    last_run: datetime.datetime | None  # when the last run took the lock (acquireTime)


def lock_state(lease: Mapping[str, Any] | None, ref: LeaseRef, now: datetime.datetime) -> LockState:
    """Who holds the run lock, until when, and when the last run took it."""
    spec = (lease or {}).get("spec") or {}
    who = holder(dict(lease)) if lease is not None else None
    expires = who.expires if who else None
    expired = bool(who and (expires is None or expires <= now))
    last = parse_api_time(spec.get("acquireTime"))
    return LockState(ref.display, who.identity if who else None, expires, expired, last)
