"""A run's digest, for people: one message naming each object and what happened.

Pure: returns strings, sends nothing. One digest per run (or per watch window), made of
what a receiver is told (core.notify.outbox.Digest): the new items and reminders, grouped
by category in the order of core.notify.facts.KINDS (what needs a person first), then the
conditions resolved since, then a count of what stands as last told. Every body carries
the digest's id (a receiver drops a repeat by it); one a later run delivers from the
outbox is marked late, with its own run's time and revision. The summary of digests an
outbox no longer keeps in full (core.notify.outbox.Missed) is a digest of its own: how
many, from which runs, their items counted by category.

The digest stays within `max_bytes` (UTF-8): its first line (the run and the counts) is
always kept; whole items are cut from the end, and a last line says how many were cut, so
a run that touches ten thousand objects still sends one bounded message. Field values
arrive masked (core.planning.redaction). `text` is Markdown (`**` bold) or Slack's mrkdwn
(`*` bold); `json_body` is the generic webhook's body, `slack_body` the incoming webhook's.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from driftctl.core.notify.facts import KINDS, RUN, Category, Item
from driftctl.core.notify.outbox import Digest, Letter, Missed
from driftctl.core.notify.record import Resolved
from driftctl.kube_formats import api_time
from driftctl.render.plan import change_text

JSON_VERSION = 1  # of the webhook's body: keys may be added, never change meaning
FIELDS_SHOWN = 3  # field changes an item lists; the others are counted


@dataclass(frozen=True)
class _Block:
    """Lines that are kept or cut together (an item with its fields)."""

    lines: tuple[str, ...]

    @property
    def size(self) -> int:
        return sum(len(line.encode()) + 1 for line in self.lines)


def text(letter: Letter, max_bytes: int, *, bold: str = "**") -> str:
    """The digest as Markdown (`bold="**"`) or mrkdwn (`bold="*"`), within `max_bytes`."""
    if isinstance(letter, Missed):
        return _fitted([_missed_line(letter, bold)], _counted(letter, bold), [], max_bytes)
    top = [_first_line(letter, bold)]
    blocks: list[_Block] = []
    for category, items in _grouped(letter):
        blocks.append(_Block((f"{bold}{KINDS[category].title}{bold}",)))
        reminded = {item.key for item in letter.reminded}
        blocks += [_Block(_item_lines(item, item.key in reminded)) for item in items]
    if letter.resolved:
        blocks.append(_Block((f"{bold}Resolved{bold}",)))
        blocks += [_Block((_resolved_line(each),)) for each in letter.resolved]
    tail = [_quiet_line(letter.unchanged)] if letter.unchanged else []
    return _fitted(top, blocks, tail, max_bytes, letter.cut)


def _first_line(digest: Digest, bold: str) -> str:
    heading = digest.heading
    at = heading.revision[:12] or "no commit"
    counts = [f"{len(digest.new)} new"]
    counts += [f"{len(digest.reminded)} still as told"] if digest.reminded else []
    counts += [f"{len(digest.resolved)} resolved"] if digest.resolved else []
    late = f"; late: from the run at {_when(heading.at)}" if digest.late else ""
    return (
        f"{bold}driftctl{bold} {_code(heading.who)} at {_code(at)}: "
        f"{', '.join(counts)} (exit {heading.exit_code}){late}"
    )


def _missed_line(missed: Missed, bold: str) -> str:
    last = missed.heading
    runs = "digest was" if missed.digests == 1 else "digests were"
    first = f"{_when(missed.first_at)} at {_code(missed.first_revision[:12] or 'no commit')}"
    since = f"{first} to {_when(last.at)} at {_code(last.revision[:12] or 'no commit')}"
    return (
        f"{bold}driftctl{bold} {_code(last.who)}: {missed.digests} earlier {runs} not "
        f"delivered and only counted (runs from {since}); late"
    )


def _counted(missed: Missed, bold: str) -> list[_Block]:
    counts = dict(missed.items)
    lines = [
        f"• {KINDS[category].title}: {counts[str(category)]}"
        for category in KINDS
        if counts.get(str(category))
    ]
    lines += [f"• Resolved: {missed.resolved}"] if missed.resolved else []
    lines += [f"• Left out of those digests already: {missed.cut}"] if missed.cut else []
    return [_Block((f"{bold}They told{bold}",)), *(_Block((line,)) for line in lines)]


def _when(seconds: float) -> str:
    return api_time(datetime.datetime.fromtimestamp(seconds, datetime.UTC))


def _grouped(digest: Digest) -> list[tuple[Category, list[Item]]]:
    items = digest.told
    return [
        (category, [item for item in items if item.category is category])
        for category in KINDS
        if any(item.category is category for item in items)
    ]


def _item_lines(item: Item, reminder: bool) -> tuple[str, ...]:
    subject = "the run" if item.subject == RUN else _code(item.subject)
    again = " (unchanged; a reminder)" if reminder else ""
    lines = [f"• {subject}: {item.what}{again}"]
    lines += [f"    {line}" for line in item.lines]
    lines += [f"    {change_text(change)}" for change in item.changes[:FIELDS_SHOWN]]
    more = len(item.changes) - FIELDS_SHOWN
    if more > 0:
        lines.append(f"    ... and {more} more fields")
    return tuple(lines)


def _resolved_line(resolved: Resolved) -> str:
    subject = "the run" if resolved.subject == RUN else _code(resolved.subject)
    return f"• {subject}: {KINDS[resolved.category].title.lower()} no more"


def _quiet_line(count: int) -> str:
    noun = "item stands" if count == 1 else "items stand"
    return f"{count} more {noun} as last told."


def _fitted(
    top: list[str], blocks: list[_Block], tail: list[str], max_bytes: int, cut: int = 0
) -> str:
    """`top`, as many whole blocks as fit from the front, a note of the cut (`cut`: items
    left out before), `tail`."""
    fixed = sum(len(line.encode()) + 1 for line in (*top, *tail))
    if fixed + sum(block.size for block in blocks) <= max_bytes and not cut:
        return _joined([*top, *(line for b in blocks for line in b.lines), *tail])
    room = max_bytes - fixed - len(_cut_note(len(blocks) + cut).encode()) - 1
    kept: list[str] = []
    used = shown = 0
    for block in blocks:
        if used + block.size > room:
            break
        kept += block.lines
        used += block.size
        shown += 1
    return _joined([*top, *kept, _cut_note(len(blocks) - shown + cut), *tail])


def _cut_note(count: int) -> str:
    return f"... {count} more lines of this digest were cut (`driftctl plan` lists every object)."


def _joined(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n"


def _code(value: str) -> str:
    quoted = value.replace("`", "'")
    return f"`{quoted}`"


# ---- bodies -----------------------------------------------------------------------------


def slack_body(letter: Letter, max_bytes: int) -> bytes:
    """A Slack-compatible incoming webhook's body: the digest as mrkdwn text."""
    return _encoded({"text": text(letter, max_bytes, bold="*")})


def json_body(letter: Letter, max_bytes: int) -> bytes:
    """The generic webhook's body (docs/operations/notifications.md lists its keys): the
    digest's text within half of `max_bytes`, and as many items as fit in the rest."""
    heading = letter.heading
    document: dict[str, Any] = {
        "version": JSON_VERSION,
        "id": letter.id,
        "late": letter.late if isinstance(letter, Digest) else True,
        "instance": heading.instance,
        "shard": {"index": heading.shard_index, "count": heading.shard_count},
        "revision": heading.revision,
        "exitCode": heading.exit_code,
        "time": _when(heading.at),
    }
    if isinstance(letter, Missed):
        document |= _missed_json(letter)
        document["text"] = text(letter, max_bytes // 2)
        return _encoded(document)
    document |= {
        "summary": {
            "new": len(letter.new),
            "reminded": len(letter.reminded),
            "resolved": len(letter.resolved),
            "unchanged": letter.unchanged,
        },
        "items": [],
        "resolved": [
            {"category": str(each.category), "object": each.subject} for each in letter.resolved
        ],
        "truncated": letter.cut,
        "text": text(letter, max_bytes // 2),
    }
    reminded = {item.key for item in letter.reminded}
    rows = [_item_json(item, item.key in reminded) for item in letter.told]
    used = len(_encoded(document))
    for index, row in enumerate(rows):
        size = len(_encoded(row)) + 1
        if used + size > max_bytes:
            document["truncated"] = len(rows) - index + letter.cut
            break
        document["items"].append(row)
        used += size
    return _encoded(document)


def _missed_json(missed: Missed) -> dict[str, Any]:
    """What a summary of digests not kept in full says, besides the usual keys (empty)."""
    return {
        "summary": {"new": 0, "reminded": 0, "resolved": 0, "unchanged": 0},
        "items": [],
        "resolved": [],
        "truncated": 0,
        "missed": {
            "digests": missed.digests,
            "from": {"time": _when(missed.first_at), "revision": missed.first_revision},
            "to": {"time": _when(missed.heading.at), "revision": missed.heading.revision},
            "items": dict(missed.items),
            "resolved": missed.resolved,
            "truncated": missed.cut,
        },
    }


def _item_json(item: Item, reminder: bool) -> dict[str, Any]:
    return {
        "category": str(item.category),
        "object": item.subject,
        "what": item.what,
        "lines": list(item.lines),
        "fields": [change_text(change) for change in item.changes],
        "told": "reminder" if reminder else "new",
    }


def _encoded(document: object) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
