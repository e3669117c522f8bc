"""When a WebApp whose reconcile failed is tried again: per-object exponential backoff.

From 1 s, doubling with each failure in a row, up to 5 minutes; each wait is jittered
(between half and all of its ceiling), so WebApps that failed together do not come back
together. A success forgets the object's failures: its next failure waits 1 s again.
Pure: the time and the random number are passed in.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

BASE_SECONDS = 1.0
CAP_SECONDS = 300.0


@dataclass(frozen=True)
class Schedule:
    """The backoff curve: `base` seconds after the first failure, doubling up to `cap`."""

    base: float = BASE_SECONDS
    cap: float = CAP_SECONDS

    def ceiling(self, failures: int) -> float:
        """The longest wait after `failures` failures in a row (1 or more)."""
        exponent = min(max(failures - 1, 0), 64)  # 2**64 s is far past any cap
        return min(self.cap, self.base * 2.0**exponent)

    def delay(self, failures: int, jitter: float) -> float:
        """Seconds to wait after `failures` failures in a row; `jitter` is uniform in [0, 1)."""
        ceiling = self.ceiling(failures)
        return ceiling / 2 + jitter * ceiling / 2


@dataclass
class Backoff:
    """Failures in a row, per object, and when each may be tried again."""

    schedule: Schedule = Schedule()
    _failures: dict[Hashable, int] = field(default_factory=dict)

    def failed(self, key: Hashable, now: float, jitter: float) -> float:
        """Record one more failure of `key`; the time it may be tried again."""
        count = self._failures.get(key, 0) + 1
        self._failures[key] = count
        return now + self.schedule.delay(count, jitter)

    def succeeded(self, key: Hashable) -> None:
        """`key` reconciled: its next failure starts the curve again."""
        self._failures.pop(key, None)

    def failures(self, key: Hashable) -> int:
        """Failures in a row of `key` (0: none since its last success)."""
        return self._failures.get(key, 0)
