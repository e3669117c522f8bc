"""The run lock: acquires, renews and releases this instance's Lease.

Decisions come from core.api.lease; this module only reads and writes the Lease. While a
run holds the lock, a daemon thread renews it on the lock's `Term` (every 10 s, again every
2 s after a failure, each try bounded by the time left before the renew deadline). `lost`
turns true, and the run stops before its next write, when a renewal is refused (someone ran
`driftctl unlock`, or the Lease expired and another run took it) or when no renewal
succeeded within the renew deadline (the API server is unreachable): that is before the
Lease expires for the others, so two runs never act at once. A write refused because a
person wrote the Lease (annotated it to suspend the instance) while the run still holds it
is tried again on the Lease as read; every write keeps the Lease's annotations. A shard
also reads the instance's own Lease when it takes its lock and after each renewal (making
it, free, when missing): the instance's suspension set there holds every shard.

With --verify, the Lease also records the last revision a run verified and applied
(core.api.lease.Verified): `acquire` writes it in the same write that takes the lock, but
only while the Lease still records the revision the run verified against (else
AnchorMoved: verify again), and `record` writes a new one while the lock is held (watch).
Writes are one at a time, so a record never races the renewer into a conflict.
"""

from __future__ import annotations

import contextlib
import datetime
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import lease as decide
from driftctl.core.api import requests as r
from driftctl.core.api.lease import LeaseRef
from driftctl.errors import ClusterError, LockHeld
from driftctl.kube_formats import api_micro_time
from driftctl.shell.kube import ApiError, Kube

POLL_SECONDS = 1.0
CONFLICT = 409  # a write whose resourceVersion is not the Lease's any more
DEFAULT_TERM = decide.Term()  # 30 s Lease, renewed every 10 s, given up at 20 s


class AnchorMoved(Exception):
    """Another run recorded another revision verified since this run read the Lease."""

    def __init__(self, anchor: str | None) -> None:
        super().__init__(anchor)
        self.anchor = anchor


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class RunLock:
    """One instance's Lease, held for the duration of a `with` block."""

    def __init__(
        self,
        kube: Kube,
        ref: LeaseRef,
        me: str,
        *,
        term: decide.Term = DEFAULT_TERM,
        clock: Callable[[], datetime.datetime] = utc_now,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._kube, self._ref, self._me = kube, ref, me
        self._term, self._clock, self._sleep, self._monotonic = term, clock, sleep, monotonic
        self._lease: dict[str, Any] | None = None
        self._instance: dict[str, Any] | None = None  # a shard's: the instance's own Lease
        self._renewed_at = 0.0  # monotonic time the last successful write was stamped
        self._refused = False
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._writing = threading.Lock()  # one write of the Lease at a time

    @property
    def standing(self) -> decide.Standing:
        """Held, refused (409) or overdue (not renewed within the renew deadline)."""
        if self._lease is None:
            return decide.Standing.REFUSED if self._refused else decide.Standing.HELD
        return decide.standing(self._renewed_at, self._refused, self._monotonic(), self._term)

    @property
    def lost(self) -> bool:
        """Whether this run must stop acting: the Lease may be, or is, another run's."""
        return self.standing is not decide.Standing.HELD

    @property
    def term(self) -> decide.Term:
        return self._term

    @property
    def ref(self) -> LeaseRef:
        """Which Lease this lock is."""
        return self._ref

    @property
    def lease(self) -> dict[str, Any] | None:
        """The Lease as this run last wrote it (uid included), None before it is taken."""
        return self._lease

    @property
    def instance_lease(self) -> dict[str, Any] | None:
        """A shard's: the instance's own Lease as last read (when the lock was taken, then
        after each renewal), where the instance's suspension holds every shard."""
        return self._instance

    def _read_instance(self, kube: Kube) -> None:
        """A shard reads the instance's own Lease, and makes it (free) when it is missing, so
        that a suspension set on every Lease of the instance (by its label) lands there too."""
        if not self._ref.shard.sharded:
            return
        whole = self._ref.whole
        found = read_lease(kube, whole)
        if found is None:
            try:
                found = kube.send(_write_request(whole, decide.free(whole), create=True))
            except ApiError as failed:
                if failed.status != CONFLICT:
                    raise
                found = read_lease(kube, whole)  # made by another shard meanwhile
        self._instance = found

    def acquire(
        self,
        timeout: float,
        *,
        verified: decide.Verified | None = None,
        anchor: str | None = None,
        waiting: Callable[[str], None] = lambda line: None,
    ) -> None:
        """Take the Lease, waiting up to `timeout` seconds for a live holder; LockHeld after.

        With `verified`, the same write records it as the last revision verified, provided
        the Lease still records `anchor` (what it was verified against); AnchorMoved if not.
        `waiting` hears, once, whom this run waits for when it does.
        """
        give_up = time.monotonic() + timeout
        said = False
        while True:
            current = read_lease(self._kube, self._ref)
            step = decide.decide(current, self._me, self._clock())
            if step is not decide.Step.WAIT and verified and not decide.still_at(current, anchor):
                moved = decide.verified_of(current)
                raise AnchorMoved(moved.revision if moved else None)
            if step is not decide.Step.WAIT and self._write(current, verified=verified):
                self._read_instance(self._kube)
                return
            if step is decide.Step.WAIT and time.monotonic() >= give_up:
                raise self._refusal(current)
            if step is decide.Step.WAIT and not said:
                waiting(
                    f"waiting for the lock: {self._held_by(current)} (--lock-timeout {timeout:g}s)"
                )
                said = True
            self._sleep(POLL_SECONDS)

    def _held_by(self, current: dict[str, Any] | None) -> str:
        who = decide.holder(current or {})
        until = f" until {api_micro_time(who.expires)}" if who and who.expires else ""
        return f"{self._ref.display} is held by {who.identity if who else '?'}{until}"

    def _refusal(self, current: dict[str, Any] | None) -> LockHeld:
        return LockHeld(
            f"another run holds the lock: {self._held_by(current)}",
            hint="wait for it (--lock-timeout SECONDS), "
            "or break a stale lock with `driftctl unlock`",
        )

    def record(self, verified: decide.Verified) -> None:
        """Record `verified` as the last revision verified, on the Lease this run holds
        (renewing it too); a refusal (409) means the Lease was lost, as for a renewal."""
        with self._writing:
            if self._lease is None or self.lost:
                raise LockHeld(f"cannot record {verified.revision[:12]}: the lock is not held")
            if not (
                self._write(self._lease, verified=verified)
                or self._still_ours(self._kube, verified=verified)
            ):
                self._refused = True
                raise LockHeld(f"{self._ref.display} was taken by another run")

    def _renew(self, kube: Kube) -> bool:
        """One renewal of the Lease as last written (one write at a time)."""
        with self._writing:
            return self._write(self._lease, kube) or self._still_ours(kube)

    def _write(
        self,
        current: dict[str, Any] | None,
        kube: Kube | None = None,
        *,
        verified: decide.Verified | None = None,
    ) -> bool:
        """Write ourselves in; False when another run won the race (409)."""
        stamped = self._monotonic()  # before renewTime is read off the clock: never late
        body = decide.held(
            current,
            self._ref,
            me=self._me,
            duration=self._term.duration,
            now=self._clock(),
            verified=verified,
        )
        try:
            written = (kube or self._kube).send(
                _write_request(self._ref, body, create=current is None)
            )
        except ApiError as failed:
            if failed.status == CONFLICT:
                return False
            if failed.status == 404 and current is None:
                raise _no_namespace(self._ref, failed) from None
            raise
        self._lease, self._renewed_at = written, stamped
        return True

    def _renew_forever(self) -> None:
        term = self._term
        wait = term.renew_every
        while not self._stop.wait(wait):
            if self.lost:
                return  # overdue: the run stops; the Lease is left to expire
            budget = decide.renewal_budget(self._renewed_at, self._monotonic(), term)
            kube = self._kube.bounded(budget)
            try:
                renewed = self._renew(kube)
            except ApiError:
                renewed = False  # unreachable, or a transient failure: try again soon
            else:
                if not renewed:
                    self._refused = True
                    return
                with contextlib.suppress(ApiError):  # seen again after the next renewal
                    self._read_instance(kube)
            wait = decide.next_renewal(renewed, self._renewed_at, self._monotonic(), term)

    def _still_ours(self, kube: Kube, *, verified: decide.Verified | None = None) -> bool:
        """After a refused write: someone wrote the Lease (a person's annotation, the
        instance's suspension), or another run took it. Still ours: written again on what
        was read."""
        current = read_lease(kube, self._ref)
        who = decide.holder(current or {})
        if current is None or who is None or who.identity != self._me:
            return False
        return self._write(current, kube, verified=verified)

    def release(self) -> None:
        """Stop renewing and leave the Lease free (kept, so the next run only updates it)."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        if self._lease is None or self.lost:
            return
        with contextlib.suppress(ApiError):  # it expires by itself after leaseDurationSeconds
            try:
                self._kube.send(_write_request(self._ref, decide.released(self._lease, self._ref)))
            except ApiError as refused:
                if refused.status != CONFLICT:
                    raise
                current = read_lease(self._kube, self._ref)  # written since: annotated?
                who = decide.holder(current or {})
                if current is not None and who is not None and who.identity == self._me:
                    self._kube.send(_write_request(self._ref, decide.released(current, self._ref)))

    def __enter__(self) -> RunLock:
        self._renewer = threading.Thread(
            target=self._renew_forever, name="lease-renewer", daemon=True
        )
        self._renewer.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()


def _no_namespace(ref: LeaseRef, failed: ApiError) -> ClusterError:
    """The Lease cannot be created: its namespace does not exist (yet)."""
    return ClusterError(
        f"the run lock's namespace {ref.namespace} does not exist ({failed.short})",
        hint=f"every run of an instance keeps its lock in one namespace: create it "
        f"(`kubectl create namespace {ref.namespace}`; `driftctl install` does), or name "
        "another with --lock-namespace, the same for every run of this instance",
    )


def _write_request(ref: LeaseRef, body: dict[str, Any], *, create: bool = False) -> r.Request:
    if create:
        return r.create(r.LEASE, ref.namespace, body, c.FIELD_MANAGER)
    return r.replace(r.LEASE, ref.namespace, ref.name, body, c.FIELD_MANAGER)


def read_lease(kube: Kube, ref: LeaseRef) -> dict[str, Any] | None:
    """This instance's Lease, or None when no run ever took it."""
    return kube.send_unless_missing(r.get(r.LEASE, ref.namespace, ref.name))


def break_lock(kube: Kube, ref: LeaseRef) -> str | None:
    """Free the Lease whoever holds it; return the holder it had (None: it was free)."""
    current = read_lease(kube, ref)
    if current is None:
        return None
    who = decide.holder(current)
    kube.send(_write_request(ref, decide.released(current, ref)))
    return who.identity if who else None
