"""What was last told, and what is worth telling now: no duplicates across runs.

Pure. Each receiver has its own `Record`: for each item it was told of, the item's
fingerprint and when it was told. A run (or a watch window) compares its items with it:

- an item never told, or told with another fingerprint, is **new**: told now;
- an item told with the same fingerprint is told again only once `repeat` seconds passed
  since (a **reminder**; 0: never);
- a condition told before and no longer found is **resolved**: told once, then forgotten;
  a happening that stops is forgotten silently.

Nothing is worth sending when there is nothing new, no reminder and nothing resolved.
The record after a send keeps exactly the items found now (at most MAX_RECORDED), so a
condition that comes back after a clean run is new again. A digest receiver's record moves
on once its digest is kept to be delivered (in its outbox, core.notify.outbox): what waits
there is delivered late, not told again. A state receiver's (Alertmanager, a forge) stays
as it was when a send failed, so the next run tells it the newest state. The record is
kept in the cluster (shell.notify_record) as JSON, one document per receiver.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from driftctl.core.notify.facts import KINDS, Category, Item, parse_key
from driftctl.core.source.model import Place

MAX_RECORDED = 2_000  # items a receiver's record keeps (about 60 bytes each in JSON)
FORMAT = 1  # of the JSON of a record


@dataclass(frozen=True)
class Told:
    """What a receiver was told of one item, and when (seconds since the epoch)."""

    fingerprint: str
    at: float


Record = Mapping[str, Told]  # by item key (core.notify.facts.key_of)


@dataclass(frozen=True)
class Resolved:
    """A condition told before and gone now."""

    category: Category
    subject: str
    since: float  # when it was last told


@dataclass(frozen=True)
class Tidings:
    """What one receiver is told now, and what it was told already."""

    new: tuple[Item, ...] = ()
    reminded: tuple[Item, ...] = ()
    resolved: tuple[Resolved, ...] = ()
    quiet: tuple[Item, ...] = ()  # as last told, not repeated

    @property
    def worth_sending(self) -> bool:
        return bool(self.new or self.reminded or self.resolved)

    @property
    def told(self) -> tuple[Item, ...]:
        """The items told now, in the digest's order."""
        return self.new + self.reminded


def tidings(items: Sequence[Item], record: Record, now: float, repeat: float) -> Tidings:
    """Compare a run's items with what a receiver was told (module docstring)."""
    new, reminded, quiet = [], [], []
    for item in items:
        told = record.get(item.key)
        if told is None or told.fingerprint != item.fingerprint:
            new.append(item)
        elif repeat > 0 and now - told.at >= repeat:
            reminded.append(item)
        else:
            quiet.append(item)
    found = {item.key for item in items}
    resolved = [
        Resolved(parsed[0], parsed[1], told.at)
        for key, told in sorted(record.items())
        if key not in found and (parsed := parse_key(key)) is not None and KINDS[parsed[0]].lasting
    ]
    return Tidings(tuple(new), tuple(reminded), tuple(resolved), tuple(quiet))


def recorded(told: Tidings, record: Record, now: float) -> dict[str, Told]:
    """The record once `told` was sent: what was told now at `now`, the rest as before."""
    after = {item.key: Told(item.fingerprint, now) for item in told.told}
    for item in told.quiet:
        after[item.key] = record[item.key]
    return dict(list(after.items())[:MAX_RECORDED])


def merged(
    current: Sequence[Item], found: Sequence[Item], scope: frozenset[Place] | None
) -> tuple[Item, ...]:
    """watch: the items standing after a reconcile of the WebApps of `scope` found `found`.

    A condition is replaced: a whole run (None) replaces every condition, a reconcile its
    WebApps' conditions and the run items of the same key. A happening (a correction, a
    prune, a commit applied) stays until it is told (the gatherer keeps only the conditions
    once it told them: `lasting`), so a later reconcile of its WebApp that finds nothing
    (a status refresh) does not lose it; a newer one of the same key replaces it.
    """
    keys = {item.key for item in found}

    def stays(item: Item) -> bool:
        if item.key in keys:
            return False
        if not KINDS[item.category].lasting:
            return True
        return scope is not None and (item.place is None or item.place not in scope)

    return (*(item for item in current if stays(item)), *found)


def encoded(record: Record, beside: Mapping[str, object] | None = None) -> str:
    """A record as the JSON kept in the cluster (with what is kept `beside` it: a digest
    receiver's outbox, core.notify.outbox)."""
    items = {key: [told.fingerprint, round(told.at, 3)] for key, told in record.items()}
    document = {"format": FORMAT, "told": items, **(beside or {})}
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def beside(text: str | None, key: str) -> object:
    """What a record's JSON keeps beside what was told, under `key` (None: nothing)."""
    try:
        document = json.loads(text or "{}")
    except ValueError:
        return None
    return document.get(key) if isinstance(document, dict) else None


def decoded(text: str | None) -> dict[str, Told]:
    """A record from its JSON; an unreadable or unknown one is empty (everything is new)."""
    try:
        document = json.loads(text or "{}")
        told = document.get("told", {}) if document.get("format") == FORMAT else {}
        return {str(key): Told(str(value[0]), float(value[1])) for key, value in told.items()}
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):
        return {}


def lasting(items: Iterable[Item]) -> tuple[Item, ...]:
    """The conditions among `items` (what Alertmanager is told of)."""
    return tuple(item for item in items if KINDS[item.category].lasting)
