"""A run's digest, for people: one message naming each object and what happened.

Pure: returns strings, sends nothing. One digest per run (or per watch window), made of
what a receiver is told now (core.notify.record.Tidings): the new items and reminders,
grouped by category in the order of core.notify.facts.KINDS (what needs a person first),
then the conditions resolved since, then a count of what stands as last told.

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
from driftctl.core.notify.outbox import Heading
from driftctl.core.notify.record import Resolved, Tidings
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


def text(heading: Heading, told: Tidings, max_bytes: int, *, bold: str = "**") -> str:
    """The digest as Markdown (`bold="**"`) or mrkdwn (`bold="*"`), within `max_bytes`."""
    top = [_first_line(heading, told, bold)]
    blocks: list[_Block] = []
    for category, items in _grouped(told):
        blocks.append(_Block((f"{bold}{KINDS[category].title}{bold}",)))
        reminded = {item.key for item in told.reminded}
        blocks += [_Block(_item_lines(item, item.key in reminded)) for item in items]
    if told.resolved:
        blocks.append(_Block((f"{bold}Resolved{bold}",)))
        blocks += [_Block((_resolved_line(each),)) for each in told.resolved]
    tail = [_quiet_line(len(told.quiet))] if told.quiet else []
    return _fitted(top, blocks, tail, max_bytes)


def _first_line(heading: Heading, told: Tidings, bold: str) -> str:
    at = heading.revision[:12] or "no commit"
    counts = [f"{len(told.new)} new"]
    counts += [f"{len(told.reminded)} still as told"] if told.reminded else []
    counts += [f"{len(told.resolved)} resolved"] if told.resolved else []
    return (
        f"{bold}driftctl{bold} {_code(heading.who)} at {_code(at)}: "
        f"{', '.join(counts)} (exit {heading.exit_code})"
    )


def _grouped(told: Tidings) -> list[tuple[Category, list[Item]]]:
    items = told.told
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


def _fitted(top: list[str], blocks: list[_Block], tail: list[str], max_bytes: int) -> str:
    """`top`, as many whole blocks as fit from the front, a note of the cut, `tail`."""
    fixed = sum(len(line.encode()) + 1 for line in (*top, *tail))
    if fixed + sum(block.size for block in blocks) <= max_bytes:
        return _joined([*top, *(line for b in blocks for line in b.lines), *tail])
    room = max_bytes - fixed - len(_cut_note(len(blocks)).encode()) - 1
    kept: list[str] = []
    used = shown = 0
    for block in blocks:
        if used + block.size > room:
            break
        kept += block.lines
        used += block.size
        shown += 1
    return _joined([*top, *kept, _cut_note(len(blocks) - shown), *tail])


def _cut_note(count: int) -> str:
    return f"... {count} more lines of this digest were cut (`driftctl plan` lists every object)."


def _joined(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n"


def _code(value: str) -> str:
    quoted = value.replace("`", "'")
    return f"`{quoted}`"


# ---- bodies -----------------------------------------------------------------------------


def slack_body(heading: Heading, told: Tidings, max_bytes: int) -> bytes:
    """A Slack-compatible incoming webhook's body: the digest as mrkdwn text."""
    return _encoded({"text": text(heading, told, max_bytes, bold="*")})


def json_body(heading: Heading, told: Tidings, max_bytes: int) -> bytes:
    """The generic webhook's body (docs/operations/notifications.md lists its keys): the
    digest's text within half of `max_bytes`, and as many items as fit in the rest."""
    document: dict[str, Any] = {
        "version": JSON_VERSION,
        "instance": heading.instance,
        "shard": {"index": heading.shard_index, "count": heading.shard_count},
        "revision": heading.revision,
        "exitCode": heading.exit_code,
        "time": api_time(datetime.datetime.fromtimestamp(heading.at, datetime.UTC)),
        "summary": {
            "new": len(told.new),
            "reminded": len(told.reminded),
            "resolved": len(told.resolved),
            "unchanged": len(told.quiet),
        },
        "items": [],
        "resolved": [
            {"category": str(each.category), "object": each.subject} for each in told.resolved
        ],
        "truncated": 0,
        "text": text(heading, told, max_bytes // 2),
    }
    reminded = {item.key for item in told.reminded}
    rows = [_item_json(item, item.key in reminded) for item in told.told]
    used = len(_encoded(document))
    for index, row in enumerate(rows):
        size = len(_encoded(row)) + 1
        if used + size > max_bytes:
            document["truncated"] = len(rows) - index
            break
        document["items"].append(row)
        used += size
    return _encoded(document)


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
