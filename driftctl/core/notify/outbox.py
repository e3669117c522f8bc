"""What goes out, and what waits to go out: digests, each receiver's outbox, the requests.

Pure values and decisions. A `Digest` is what one receiver is told about one run (or one
watch window): its `Heading` (which run), what is new, reminded and resolved, and a stable
`id`. A digest a receiver could not take waits in that receiver's `Outbox`, kept in the
instance's notification record (shell.notify_record), and the next run that reaches the
receiver delivers it, oldest first, marked late:

- **at least once**: a run claims the entries it is about to send (`claimed`: a `Claim`
  with its run's id and an end) in a guarded write of the record, before it sends; an
  entry claimed by another run that has not ended is left to it; an entry leaves the
  outbox only once the receiver answered 2xx (`delivered`), and a run's claims it did not
  deliver are released (`released`). A run that dies between its send and its write
  leaves its claims to lapse, and a later run sends those entries again: each body
  carries its digest's `id`, so a receiver can drop a repeat;
- **bounded**: the newest MAX_ENTRIES digests are kept in full, each within its bytes,
  and within MAX_OUTBOX_BYTES in all (`kept`); older ones are folded into one `Missed`,
  which counts them exactly (how many digests, their runs' times and revisions, their
  items by category) and goes out first, as one late digest of its own.

Only digest receivers (a webhook, Slack) have an outbox: Alertmanager and the forges are
told states, not events, and get only the newest (pipeline.receivers). A `Post` is one
HTTP request, built by render.sinks and sent by shell.notify_http; it names where it goes
for messages (`what`, never a URL that may hold a secret) and carries its secret-bearing
headers apart (`secret_headers`), so that nothing that prints a request can print a secret.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from driftctl.core.notify.facts import Category, Item
from driftctl.core.notify.record import (
    Record,
    Resolved,
    Tidings,
    Told,
    beside,
    decoded,
    encoded,
)
from driftctl.core.planning.changes import FieldChange

MAX_ENTRIES = 20  # digests an outbox keeps in full; older ones are folded into `Missed`
MAX_OUTBOX_BYTES = 128 * 1024  # of one receiver's outbox as kept: a ConfigMap holds 1 MiB


@dataclass(frozen=True)
class Post:
    """One POST: where, its JSON body, its headers (secret ones apart)."""

    url: str
    body: bytes
    what: str  # "the webhook at http://host/path", "GitHub commit status": for messages
    headers: Mapping[str, str] = field(default_factory=dict)
    secret_headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Heading:
    """Which run a digest is about: instance, shard, the commit, the exit code, when."""

    instance: str
    revision: str
    exit_code: int
    at: float  # seconds since the epoch
    shard_index: int = 0
    shard_count: int = 1

    @property
    def who(self) -> str:
        """`default`, or `default (shard 1 of 3)`."""
        if self.shard_count <= 1:
            return self.instance
        return f"{self.instance} (shard {self.shard_index} of {self.shard_count})"


@dataclass(frozen=True)
class Digest:
    """What one receiver is told about one run: new items, reminders, conditions resolved,
    a count of those standing as last told, and how many items were left out to keep it
    within its bytes when it was kept (`cut`). `late`: delivered by a later run."""

    id: str
    heading: Heading
    new: tuple[Item, ...] = ()
    reminded: tuple[Item, ...] = ()
    resolved: tuple[Resolved, ...] = ()
    unchanged: int = 0
    cut: int = 0
    late: bool = False

    @property
    def told(self) -> tuple[Item, ...]:
        """The items told, in the digest's order."""
        return self.new + self.reminded


def digest_of(heading: Heading, told: Tidings) -> Digest:
    """The digest of `told`, its id made of what it tells (stable wherever it is kept)."""
    made = Digest("", heading, told.new, told.reminded, told.resolved, len(told.quiet))
    return dataclasses.replace(made, id=identity(made))


def identity(digest: Digest) -> str:
    """A digest's id: the same digest, the same id; another run's, another."""
    heading = dataclasses.astuple(digest.heading)
    told = [[item.key, item.fingerprint] for item in digest.told]
    resolved = [[str(each.category), each.subject] for each in digest.resolved]
    text = json.dumps([heading, told, resolved], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Missed:
    """Digests an outbox no longer keeps in full: counted exactly, with their runs' times
    and revisions (the first's and, in `heading`, the last's), their items by category,
    the conditions they resolved and the items their digests had left out already. It
    goes out as one late digest of its own, first."""

    id: str
    heading: Heading
    digests: int
    first_at: float
    first_revision: str
    items: tuple[tuple[str, int], ...] = ()  # (category, how many items told)
    resolved: int = 0
    cut: int = 0


def folded(missed: Missed | None, digest: Digest) -> Missed:
    """`missed` with `digest` (the oldest one kept in full) folded in. Its id is the first
    digest's with the count, so a summary that grew is another letter."""
    counts: Counter[str] = Counter(dict(missed.items) if missed is not None else {})
    counts.update(str(item.category) for item in digest.told)
    items = tuple(counts.items())
    if missed is None:
        first = digest.heading
        return Missed(
            f"{digest.id}/1", first, 1, first.at, first.revision, items, len(digest.resolved),
            digest.cut,
        )  # fmt: skip
    return dataclasses.replace(
        missed,
        id=f"{missed.id.partition('/')[0]}/{missed.digests + 1}",
        heading=digest.heading,
        digests=missed.digests + 1,
        items=items,
        resolved=missed.resolved + len(digest.resolved),
        cut=missed.cut + digest.cut,
    )


Letter = Digest | Missed  # what an outbox holds and a receiver is sent


@dataclass(frozen=True)
class Claim:
    """A run sending an entry: which run, and until when (its notify timeout and a margin,
    seconds since the epoch) no other run sends it."""

    by: str
    until: float


@dataclass(frozen=True)
class Entry:
    letter: Letter
    claim: Claim | None = None

    def free_for(self, run: str, now: float) -> bool:
        """Whether `run` may send it: nobody claims it, or `run` does, or the claim lapsed."""
        return self.claim is None or self.claim.by == run or self.claim.until <= now


@dataclass(frozen=True)
class Outbox:
    """A receiver's letters not delivered yet, oldest first (a `Missed`, if any, first)."""

    entries: tuple[Entry, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(entry.letter.id for entry in self.entries)


def kept(outbox: Outbox, digest: Digest, max_bytes: int) -> Outbox:
    """`outbox` with `digest` at its end (within `max_bytes`: `bounded`), and within its
    own bounds: the oldest digests folded into the `Missed` at its front while more than
    MAX_ENTRIES are kept in full or the outbox weighs more than MAX_OUTBOX_BYTES."""
    entries = [*outbox.entries, Entry(bounded(digest, min(max_bytes, MAX_OUTBOX_BYTES // 4)))]
    while _over(entries):
        entries = _fold_oldest(entries)
    return Outbox(tuple(entries))


def _over(entries: list[Entry]) -> bool:
    full = sum(1 for entry in entries if isinstance(entry.letter, Digest))
    if full <= 1:
        return False
    return full > MAX_ENTRIES or weight(Outbox(tuple(entries))) > MAX_OUTBOX_BYTES


def _fold_oldest(entries: list[Entry]) -> list[Entry]:
    """The entries with the oldest digest folded into the Missed at the front."""
    first = entries[0].letter
    missed = first if isinstance(first, Missed) else None
    rest = entries[1:] if missed is not None else entries
    digest = rest[0].letter
    assert isinstance(digest, Digest)  # a Missed is only ever first
    return [Entry(folded(missed, digest)), *rest[1:]]


def claimed(
    outbox: Outbox, run: str, now: float, until: float
) -> tuple[Outbox, tuple[Letter, ...]]:
    """The outbox with every entry `run` may send claimed by it until `until`, and those
    letters, oldest first; entries another run claims (until later than `now`) are left."""
    entries = tuple(
        Entry(entry.letter, Claim(run, until)) if entry.free_for(run, now) else entry
        for entry in outbox.entries
    )
    letters = tuple(entry.letter for entry in entries if _claimed_by(entry, run))
    return Outbox(entries), letters


def settled(outbox: Outbox, run: str, delivered: Iterable[str]) -> Outbox:
    """The outbox once `run` delivered the letters of ids `delivered` (gone) and released
    its claims of the rest. Entries another run added or claimed since are kept as they are."""
    gone = set(delivered)
    return Outbox(
        tuple(
            Entry(entry.letter, None if _claimed_by(entry, run) else entry.claim)
            for entry in outbox.entries
            if entry.letter.id not in gone
        )
    )


def _claimed_by(entry: Entry, run: str) -> bool:
    return entry.claim is not None and entry.claim.by == run


# ---- as kept in the record (JSON) --------------------------------------------------------

OUTBOX = "outbox"  # the key of a digest receiver's outbox in its record's JSON


def document_of(text: str | None) -> tuple[dict[str, Told], Outbox]:
    """A digest receiver's record: what it was told, and its outbox."""
    return decoded(text), outbox_of(beside(text, OUTBOX))


def document_text(told: Record, outbox: Outbox) -> str:
    """A digest receiver's record as kept: what it was told, and its outbox (if any)."""
    return encoded(told, {OUTBOX: outbox_json(outbox)} if outbox.entries else None)


def bounded(digest: Digest, max_bytes: int) -> Digest:
    """`digest` within `max_bytes` as kept: whole items from its end left out (`cut`)."""
    if len(_encoded(_digest_json(digest))) <= max_bytes:
        return digest
    base = dataclasses.replace(digest, new=(), reminded=())
    room = max_bytes - len(_encoded(_digest_json(base)))
    new, used = _fitting(digest.new, room)
    reminded = _fitting(digest.reminded, room - used)[0] if len(new) == len(digest.new) else ()
    cut = len(digest.told) - len(new) - len(reminded) + digest.cut
    return dataclasses.replace(digest, new=new, reminded=reminded, cut=cut)


def _fitting(items: Sequence[Item], room: int) -> tuple[tuple[Item, ...], int]:
    """The longest prefix of `items` within `room` bytes, and the bytes it uses."""
    used, fit = 0, []
    for item in items:
        size = len(_encoded(_item_json(item))) + 1
        if used + size > room:
            break
        fit.append(item)
        used += size
    return tuple(fit), used


def weight(outbox: Outbox) -> int:
    """The bytes `outbox` weighs as kept."""
    return len(_encoded(outbox_json(outbox)))


def outbox_json(outbox: Outbox) -> list[dict[str, Any]]:
    """An outbox as the record keeps it (under the receiver's document's `outbox`)."""
    return [_entry_json(entry) for entry in outbox.entries]


def outbox_of(document: object) -> Outbox:
    """An outbox from the record's JSON; an entry that cannot be read is left out."""
    if not isinstance(document, list):
        return Outbox()
    entries = []
    for each in document:
        try:
            entries.append(_entry_of(each))
        except (ValueError, TypeError, AttributeError, IndexError, KeyError):
            continue
    return Outbox(tuple(entries))


def _entry_json(entry: Entry) -> dict[str, Any]:
    letter = entry.letter
    body = _digest_json(letter) if isinstance(letter, Digest) else _missed_json(letter)
    if entry.claim is not None:
        body["claim"] = [entry.claim.by, round(entry.claim.until, 3)]
    return body


def _entry_of(document: dict[str, Any]) -> Entry:
    claim = document.get("claim")
    letter = _missed_of(document) if "digests" in document else _digest_of(document)
    return Entry(letter, Claim(str(claim[0]), float(claim[1])) if claim else None)


def _heading_json(heading: Heading) -> list[Any]:
    return [
        heading.instance,
        heading.revision,
        heading.exit_code,
        round(heading.at, 3),
        heading.shard_index,
        heading.shard_count,
    ]


def _heading_of(row: list[Any]) -> Heading:
    instance, revision, code, at, index, count = row
    return Heading(str(instance), str(revision), int(code), float(at), int(index), int(count))


def _digest_json(digest: Digest) -> dict[str, Any]:
    return {
        "id": digest.id,
        "run": _heading_json(digest.heading),
        "new": [_item_json(item) for item in digest.new],
        "reminded": [_item_json(item) for item in digest.reminded],
        "resolved": [[str(r.category), r.subject, round(r.since, 3)] for r in digest.resolved],
        "unchanged": digest.unchanged,
        "cut": digest.cut,
    }


def _digest_of(document: dict[str, Any]) -> Digest:
    return Digest(
        str(document["id"]),
        _heading_of(document["run"]),
        tuple(_item_of(row) for row in document.get("new") or []),
        tuple(_item_of(row) for row in document.get("reminded") or []),
        tuple(
            Resolved(Category(category), str(subject), float(since))
            for category, subject, since in document.get("resolved") or []
        ),
        int(document.get("unchanged") or 0),
        int(document.get("cut") or 0),
    )


def _missed_json(missed: Missed) -> dict[str, Any]:
    return {
        "id": missed.id,
        "run": _heading_json(missed.heading),
        "digests": missed.digests,
        "first": [round(missed.first_at, 3), missed.first_revision],
        "items": [list(pair) for pair in missed.items],
        "resolved": missed.resolved,
        "cut": missed.cut,
    }


def _missed_of(document: dict[str, Any]) -> Missed:
    at, revision = document["first"]
    return Missed(
        str(document["id"]),
        _heading_of(document["run"]),
        int(document["digests"]),
        float(at),
        str(revision),
        tuple((str(category), int(n)) for category, n in document.get("items") or []),
        int(document.get("resolved") or 0),
        int(document.get("cut") or 0),
    )


def _item_json(item: Item) -> list[Any]:
    changes = [
        [c.path, c.op, c.before, c.after, list(c.managers), c.note, c.corrected]
        for c in item.changes
    ]
    return [str(item.category), item.subject, item.what, list(item.lines), changes]


def _item_of(row: list[Any]) -> Item:
    category, subject, what, lines, changes = row
    return Item(
        Category(category),
        str(subject),
        str(what),
        tuple(
            FieldChange(str(path), str(op), before, after, tuple(managers), (), str(note), int(n))
            for path, op, before, after, managers, note, n in changes
        ),
        tuple(str(line) for line in lines),
    )


def _encoded(document: object) -> bytes:
    return json.dumps(document, separators=(",", ":"), default=str).encode()
