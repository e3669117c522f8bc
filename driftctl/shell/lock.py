"""The run lock: acquires, renews and releases this instance's Lease.

Decisions come from core.lease; this module only reads and writes the Lease. While a run
holds the lock, a daemon thread renews it every third of its duration; if a renewal is
refused (someone ran `driftctl unlock`, or the Lease expired and another run took it),
`lost` turns true and the run stops before its next write.
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
from driftctl.core import lease as decide
from driftctl.core import requests as r
from driftctl.errors import LockHeld
from driftctl.shell.kube import ApiError, Kube

POLL_SECONDS = 1.0


def utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class RunLock:
    """One instance's Lease, held for the duration of a `with` block."""

    def __init__(
        self,
        kube: Kube,
        namespace: str,
        instance: str,
        me: str,
        *,
        duration: int = 30,
        clock: Callable[[], datetime.datetime] = utc_now,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._kube, self._namespace, self._instance, self._me = kube, namespace, instance, me
        self._duration, self._clock, self._sleep = duration, clock, sleep
        self._lease: dict[str, Any] | None = None
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self.lost = False

    def acquire(self, timeout: float) -> None:
        """Take the Lease, waiting up to `timeout` seconds for a live holder; LockHeld after."""
        give_up = time.monotonic() + timeout
        while True:
            current = self._read()
            step = decide.decide(current, self._me, self._clock())
            if step is not decide.Step.WAIT and self._write(current):
                return
            if step is decide.Step.WAIT and time.monotonic() >= give_up:
                raise self._refusal(current)
            self._sleep(POLL_SECONDS)

    def _refusal(self, current: dict[str, Any] | None) -> LockHeld:
        who = decide.holder(current or {})
        until = f" until {decide.format_time(who.expires)}" if who and who.expires else ""
        name = f"Lease {self._namespace}/{c.lease_name(self._instance)}"
        return LockHeld(
            f"another run holds the lock: {name} is held by {who.identity if who else '?'}{until}",
            hint="wait for it (--lock-timeout SECONDS), "
            "or break a stale lock with `driftctl unlock`",
        )

    def _read(self) -> dict[str, Any] | None:
        return read_lease(self._kube, self._namespace, self._instance)

    def _write(self, current: dict[str, Any] | None) -> bool:
        """Write ourselves in; False when another run won the race (409)."""
        body = decide.held(
            current,
            namespace=self._namespace,
            instance=self._instance,
            me=self._me,
            duration=self._duration,
            now=self._clock(),
        )
        name = c.lease_name(self._instance)
        request = (
            r.create(r.LEASE, self._namespace, body, c.FIELD_MANAGER)
            if current is None
            else r.replace(r.LEASE, self._namespace, name, body, c.FIELD_MANAGER)
        )
        try:
            self._lease = self._kube.send(request)
        except ApiError as failed:
            if failed.status == 409:
                return False
            raise
        return True

    def _renew_forever(self) -> None:
        while not self._stop.wait(self._duration / 3):
            try:
                if not self._write(self._lease):
                    self.lost = True
                    return
            except ApiError:
                continue  # a transient failure the retry loop gave up on; try at the next tick

    def release(self) -> None:
        """Stop renewing and leave the Lease free (kept, so the next run only updates it)."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        if self._lease is None or self.lost:
            return
        name = c.lease_name(self._instance)
        with contextlib.suppress(ApiError):  # it expires by itself after leaseDurationSeconds
            self._kube.send(
                r.replace(
                    r.LEASE, self._namespace, name, decide.released(self._lease), c.FIELD_MANAGER
                )
            )

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


def read_lease(kube: Kube, namespace: str, instance: str) -> dict[str, Any] | None:
    """This instance's Lease, or None when no run ever took it."""
    try:
        return kube.send(r.get(r.LEASE, namespace, c.lease_name(instance)))
    except ApiError as failed:
        if failed.status == 404:
            return None
        raise


def break_lock(kube: Kube, namespace: str, instance: str) -> str | None:
    """Free the Lease whoever holds it; return the holder it had (None: it was free)."""
    current = read_lease(kube, namespace, instance)
    if current is None:
        return None
    who = decide.holder(current)
    name = c.lease_name(instance)
    kube.send(r.replace(r.LEASE, namespace, name, decide.released(current), c.FIELD_MANAGER))
    return who.identity if who else None
