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
The curves are values of core.retries' one backoff type, as the API server's and the
receivers' are. Pure: the time and the random number are passed in.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from driftctl.core import retries

# The curve per WebApp: from 1 s, doubling up to 5 minutes, jittered (module docstring).
PER_WEBAPP = retries.Backoff(base=1.0, cap=300.0)


@dataclass
class Backoff:
    """Failures in a row, per object, and when each may be tried again."""

    schedule: retries.Backoff = PER_WEBAPP
    _failures: dict[Hashable, int] = field(default_factory=dict)

    def failed(self, key: Hashable, now: float, jitter: float) -> float:
        """Record one more failure (or look) of `key` in a row; the time of the next try."""
        count = self._failures.get(key, 0) + 1
        self._failures[key] = count
        return now + self.schedule.delay(count - 1, jitter)

    def succeeded(self, key: Hashable) -> None:
        """`key` reconciled (or changed): its next failure starts the curve again."""
        self._failures.pop(key, None)

    def failures(self, key: Hashable) -> int:
        """Failures (or looks) in a row of `key` (0: none since its last success)."""
        return self._failures.get(key, 0)


# A rollout in progress is looked at again after 5, 10, 20 and 40 s (module docstring).
ROLLOUT_LOOKS = retries.Backoff(base=5.0, cap=40.0)
MAX_ROLLOUT_LOOKS = 4
