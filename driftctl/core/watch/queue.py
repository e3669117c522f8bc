"""The work queue of `driftctl watch`: WebApps waiting to be reconciled, keyed by place.

The rules of client-go's workqueue, as a state machine (the shell adds the locking and the
waiting, pipeline.watch):
- a key is waiting at most once: changes that arrive before its reconcile starts are
  coalesced into that one reconcile;
- a key being reconciled is never handed to a second worker; a change that arrives
  meanwhile makes it wait again, and it is handed out once the first worker is done;
- a key may wait until a time (a backoff, core.watch.backoff): `promote` moves it to the
  ready line when that time has come;
- `pause` stops handing keys out (a full plan and apply runs alone: nothing else may touch
  a WebApp meanwhile); what arrives while paused waits, coalesced, for `resume`.
Pure: time is passed in.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


@dataclass
class WorkQueue(Generic[K]):
    """Keys waiting, keys in progress, keys waiting until a time."""

    _ready: deque[K] = field(default_factory=deque)
    _dirty: set[K] = field(default_factory=set)
    _processing: set[K] = field(default_factory=set)
    _later: dict[K, float] = field(default_factory=dict)
    paused: bool = False

    def add(self, key: K) -> None:
        """`key` changed: reconcile it (once, however many changes arrive before it starts)."""
        if key in self._dirty:
            return
        self._dirty.add(key)
        if key not in self._processing:
            self._ready.append(key)

    def add_all(self, keys: Iterable[K]) -> None:
        for key in keys:
            self.add(key)

    def add_at(self, key: K, when: float) -> None:
        """Reconcile `key` at `when` (the earliest of the times asked for), unless sooner."""
        self._later[key] = min(when, self._later.get(key, when))

    def forget(self, key: K) -> None:
        """Drop `key`'s timed retry (it just reconciled well)."""
        self._later.pop(key, None)

    def promote(self, now: float) -> float | None:
        """Move the keys whose time has come to the ready line; the next time due, if any."""
        due = [key for key, when in self._later.items() if when <= now]
        for key in sorted(due, key=lambda each: self._later[each]):
            del self._later[key]
            self.add(key)
        return min(self._later.values(), default=None)

    def take(self) -> K | None:
        """The next key to reconcile (now in progress), or None when none is ready."""
        if self.paused or not self._ready:
            return None
        key = self._ready.popleft()
        self._dirty.discard(key)
        self._processing.add(key)
        return key

    def done(self, key: K) -> None:
        """A worker finished `key`; if it changed meanwhile, it is ready again."""
        self._processing.discard(key)
        if key in self._dirty:
            self._ready.append(key)

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False

    @property
    def idle(self) -> bool:
        """No key in progress (after `pause`: a full pass may start)."""
        return not self._processing

    @property
    def depth(self) -> int:
        """Keys waiting: ready now, or at a later time."""
        return len(self._dirty) + sum(1 for key in self._later if key not in self._dirty)
