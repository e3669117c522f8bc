"""The run lock: acquires, renews and releases this instance's Lease.

Decisions come from core.api.lease; this module only reads and writes the Lease. While a
run holds the lock, a daemon thread renews it on the lock's `Term` (every 10 s, again every
2 s after a failure, each try bounded by the time left before the renew deadline). `lost`
turns true, and the run stops before its next write, when a renewal is refused (someone ran
`driftctl unlock`, or the Lease expired and another run took it) or when no renewal
succeeded within the renew deadline (the API server is unreachable): that is before the
Lease expires for the others, so two runs never act at once.

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
from driftctl.errors import LockHeld
from driftctl.kube_formats import api_micro_time
from driftctl.shell.kube import ApiError, Kube

POLL_SECONDS = 1.0
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
    def lease(self) -> dict[str, Any] | None:
        """The Lease as this run last wrote it (uid included), None before it is taken."""
        return self._lease

    def acquire(
        self,
        timeout: float,
        *,
        verified: decide.Verified | None = None,
        anchor: str | None = None,
    ) -> None:
        """Take the Lease, waiting up to `timeout` seconds for a live holder; LockHeld after.

        With `verified`, the same write records it as the last revision verified, provided
        the Lease still records `anchor` (what it was verified against); AnchorMoved if not.
        """
        give_up = time.monotonic() + timeout
        while True:
            current = read_lease(self._kube, self._ref)
            step = decide.decide(current, self._me, self._clock())
            if step is not decide.Step.WAIT and verified and not decide.still_at(current, anchor):
                moved = decide.verified_of(current)
                raise AnchorMoved(moved.revision if moved else None)
            if step is not decide.Step.WAIT and self._write(current, verified=verified):
                return
            if step is decide.Step.WAIT and time.monotonic() >= give_up:
                raise self._refusal(current)
            self._sleep(POLL_SECONDS)

    def _refusal(self, current: dict[str, Any] | None) -> LockHeld:
        who = decide.holder(current or {})
        until = f" until {api_micro_time(who.expires)}" if who and who.expires else ""
        return LockHeld(
            f"another run holds the lock: {self._ref.display} is held by "
            f"{who.identity if who else '?'}{until}",
            hint="wait for it (--lock-timeout SECONDS), "
            "or break a stale lock with `driftctl unlock`",
        )

    def record(self, verified: decide.Verified) -> None:
        """Record `verified` as the last revision verified, on the Lease this run holds
        (renewing it too); a refusal (409) means the Lease was lost, as for a renewal."""
        with self._writing:
            if self._lease is None or self.lost:
                raise LockHeld(f"cannot record {verified.revision[:12]}: the lock is not held")
            if not self._write(self._lease, verified=verified):
                self._refused = True
                raise LockHeld(f"{self._ref.display} was taken by another run")

    def _renew(self, kube: Kube) -> bool:
        """One renewal of the Lease as last written (one write at a time)."""
        with self._writing:
            return self._write(self._lease, kube)

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
            if failed.status == 409:
                return False
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
            try:
                renewed = self._renew(self._kube.bounded(budget))
            except ApiError:
                renewed = False  # unreachable, or a transient failure: try again soon
            else:
                if not renewed:
                    self._refused = True
                    return
            wait = decide.next_renewal(renewed, self._renewed_at, self._monotonic(), term)

    def release(self) -> None:
        """Stop renewing and leave the Lease free (kept, so the next run only updates it)."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        if self._lease is None or self.lost:
            return
        with contextlib.suppress(ApiError):  # it expires by itself after leaseDurationSeconds
            self._kube.send(_write_request(self._ref, decide.released(self._lease, self._ref)))

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
