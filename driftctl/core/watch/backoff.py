"""When a WebApp whose reconcile failed is tried again: per-object exponential backoff.

From 1 s, doubling with each failure in a row, up to 5 minutes; each wait is jittered
(between half and all of its ceiling), so WebApps that failed together do not come back
together. A success forgets the object's failures: its next failure waits 1 s again.

The same curve, from 5 s, paces the looks at a rollout in progress that nothing told the
watch about (`ROLLOUT_LOOKS`): a new Pod that cannot pull its image or crash-loops changes
nothing the watch sees, and shows within a minute or so of its start; so a rollout is
looked at after 5, 10, 20 and 40 s (jittered), then no more until one of its objects
changes: past that, the Deployment's progress deadline (the controller's condition, an
event) tells a rollout that never completes. Looks at thousands of rollouts stuck for
good (Pods no node runs) would otherwise cost two LISTs each every 5 s.
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
        """Record one more failure (or look) of `key` in a row; the time of the next try."""
        count = self._failures.get(key, 0) + 1
        self._failures[key] = count
        return now + self.schedule.delay(count, jitter)

    def succeeded(self, key: Hashable) -> None:
        """`key` reconciled (or changed): its next failure starts the curve again."""
        self._failures.pop(key, None)

    def failures(self, key: Hashable) -> int:
        """Failures (or looks) in a row of `key` (0: none since its last success)."""
        return self._failures.get(key, 0)


# A rollout in progress is looked at again after 5, 10, 20 and 40 s (module docstring).
ROLLOUT_LOOKS = Schedule(base=5.0, cap=40.0)
MAX_ROLLOUT_LOOKS = 4
