"""The work queue of `driftctl watch`: WebApps waiting to be reconciled, keyed by place.

The rules of client-go's workqueue, as a state machine (the shell adds the locking and the
waiting, pipeline.watch):
- a key is waiting at most once: changes that arrive before its reconcile starts are
  coalesced into that one reconcile;
- a key being reconciled is never handed to a second worker; a change that arrives
  meanwhile makes it wait again, and it is handed out once the first worker is done;
- a key may wait until a time (a backoff, core.watch.backoff): `promote` moves it to the
  ready line when that time has come;
- `pause` stops handing keys out (a stop drains the workers); what arrives while paused
  waits, coalesced, for `resume`.

Drift first: each waiting key has an `Urgency`, and `take` hands out the most urgent key
first, in arrival order within one urgency. A key asked for again at a greater urgency
moves up (a status refresh that turns out to be drift waits no longer than drift); asked
for at a lesser one, it keeps its place. And with `others_at_most`, no more than that many
keys of lesser urgency are in progress at once: the workers left over are kept for drift.
So a correction of drift waits only for the corrections that arrived before it, never for
the rest of a full pass or for status refreshes, however many wait, nor for a worker busy
with one of them.
Pure: time is passed in.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Urgency(enum.IntEnum):
    """Why a key waits, most urgent first."""

    DRIFT = 0  # a person or another controller changed an object driftctl owns
    PASS = 1  # a full pass (start, Git moved, resync) found work for it
    STATUS = 2  # only its Deployment's status moved: the WebApp's status may follow


@dataclass
class WorkQueue(Generic[K]):
    """Keys waiting (each at one urgency), keys in progress, keys waiting until a time."""

    _lines: dict[Urgency, deque[K]] = field(
        default_factory=lambda: {urgency: deque() for urgency in Urgency}
    )
    _dirty: dict[K, Urgency] = field(default_factory=dict)
    _processing: dict[K, Urgency] = field(default_factory=dict)
    _later: dict[K, tuple[float, Urgency]] = field(default_factory=dict)
    paused: bool = False
    others_at_most: int | None = None  # keys of lesser urgency than drift in progress at once

    def add(self, key: K, urgency: Urgency = Urgency.DRIFT) -> None:
        """`key` changed: reconcile it (once, however many changes arrive before it starts),
        at the greatest urgency any of them asked for."""
        waiting = self._dirty.get(key)
        if waiting is not None and waiting <= urgency:
            return
        self._dirty[key] = urgency
        if key not in self._processing:
            self._lines[urgency].append(key)  # an entry left in a lesser line is skipped

    def add_all(self, keys: Iterable[K], urgency: Urgency = Urgency.DRIFT) -> None:
        for key in keys:
            self.add(key, urgency)

    def add_at(self, key: K, when: float, urgency: Urgency = Urgency.DRIFT) -> None:
        """Reconcile `key` at `when` (the earliest of the times asked for), unless sooner."""
        earlier = self._later.get(key)
        if earlier is not None:
            when, urgency = min(when, earlier[0]), min(urgency, earlier[1])
        self._later[key] = (when, urgency)

    def forget(self, key: K) -> None:
        """Drop `key`'s timed retry (it just reconciled well)."""
        self._later.pop(key, None)

    def promote(self, now: float) -> float | None:
        """Move the keys whose time has come to their line; the next time due, if any."""
        due = sorted((when, key) for key, (when, _) in self._later.items() if when <= now)
        for _when, key in due:
            _, urgency = self._later.pop(key)
            self.add(key, urgency)
        return min((when for when, _ in self._later.values()), default=None)

    def take(self) -> tuple[K, Urgency] | None:
        """The most urgent key to reconcile (now in progress) and its urgency, or None."""
        if self.paused:
            return None
        for urgency, line in self._lines.items():
            if urgency is not Urgency.DRIFT and self._no_room_for_others():
                return None
            while line:
                key = line.popleft()
                if self._dirty.get(key) is urgency and key not in self._processing:
                    del self._dirty[key]
                    self._processing[key] = urgency
                    return key, urgency
        return None

    def _no_room_for_others(self) -> bool:
        if self.others_at_most is None:
            return False
        others = sum(1 for each in self._processing.values() if each is not Urgency.DRIFT)
        return others >= self.others_at_most

    def done(self, key: K) -> None:
        """A worker finished `key`; if it changed meanwhile, it is ready again."""
        self._processing.pop(key, None)
        urgency = self._dirty.get(key)
        if urgency is not None:
            self._lines[urgency].append(key)

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False

    @property
    def idle(self) -> bool:
        """No key in progress (after `pause`: the workers may stop)."""
        return not self._processing

    @property
    def depth(self) -> int:
        """Keys waiting: ready now, or at a later time."""
        return len(self._dirty) + sum(1 for key in self._later if key not in self._dirty)

    def waiting(self, urgency: Urgency) -> int:
        """Keys ready now at `urgency`."""
        return sum(1 for each in self._dirty.values() if each is urgency)
