"""Which watch events are driftctl's own writes coming back, kept bounded.

Each write driftctl makes (a PATCH, not a dry-run) is answered with the object's new
resourceVersion; the watch event carrying that version is the write coming back and is
not worth a reconcile. What is remembered per object is the versions of its writes whose
events have not come yet, in the order the writes were answered (one object's writes are
answered, and its events told, in the order of its versions). Nothing stays there longer
than the object's next event:
- a write whose event came first (the watch can be faster than the answer), or that
  changed nothing (the object's version stays, and no event follows), is not remembered:
  the informer already holds the object at that version, or that version is remembered
  already (an earlier write of ours made it, and its event is still to come);
- an event at a remembered version is ours: it and the versions before it are dropped,
  the later ones (writes still to come back) stay;
- any other event of the object (someone else's change, its deletion, a fresh list)
  drops everything remembered for it: a version is never told twice, so what was
  remembered can only be an event already gone by; at worst, one of ours still to come is
  then reconciled once more, which finds nothing to do and writes nothing.
So the map holds at most the objects written since their last event, each with at most
MAX_PENDING versions, and it never hides anyone else's change.

A write's answer is also the object as it now is, newer than what the informer holds
until the event comes back: the watch's memory takes it (`newer_than_held`), so that a
reconcile of the same WebApp before that event (one queued by an event that came faster
than an answer) reads what was written, not the object before it, and sends nothing
again. Only an answer newer than a version held counts: resourceVersions are compared
as the numbers the API server gives (etcd revisions, as client-go's mutation cache does),
and a version that is not a number, or an object not held (created, or gone already), is
left to its event. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from driftctl.core.planning.objects import ObjectKey

MAX_PENDING = 8  # one reconcile writes an object at most a few times (spec, then status)


@dataclass
class OwnWrites:
    """The versions of driftctl's writes whose events have not come back yet, per object."""

    _pending: dict[ObjectKey, tuple[str, ...]] = field(default_factory=dict)

    def wrote(self, key: ObjectKey, version: str, held: str | None) -> None:
        """A write of `key` was answered at `version`; `held`: the version the informer holds."""
        pending = self._pending.get(key, ())
        if version == held or version in pending:  # a write that changed nothing
            return
        self._pending[key] = (*pending, version)[-MAX_PENDING:]

    def seen(self, key: ObjectKey, version: str | None) -> bool:
        """An event of `key` at `version` (None: gone): whether it is one of our writes."""
        pending = self._pending.pop(key, ())
        if version is None or version not in pending:
            return False
        later = pending[pending.index(version) + 1 :]
        if later:
            self._pending[key] = later
        return True

    def __len__(self) -> int:
        """How many objects have writes still to come back."""
        return len(self._pending)


def newer_than_held(version: str, held: str | None) -> bool:
    """Whether a write answered at `version` is newer than the informer's `held` version
    (module docstring: both numbers, the object held)."""
    if held is None or not (version.isdigit() and held.isdigit()):
        return False
    return int(version) > int(held)
