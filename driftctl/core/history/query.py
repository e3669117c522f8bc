"""What `history` and `status` read of the ring: the runs that wrote something, each
WebApp's changes, newest first, picked by name or by the labels they were applied with,
and by age.

Pure: the lines come from the ring as the shell read it (core.history.ring.in_order),
oldest first; the parts of one record are joined again (`records`).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from driftctl.core.history.record import Change, RunRecord, parsed
from driftctl.core.source.model import Place
from driftctl.kube_formats import parse_api_time
from driftctl.settings import Selection


@dataclass(frozen=True)
class Entry:
    """One change of one run: when, which run, the revision it applied, and the change."""

    at: datetime.datetime | None
    run: str
    revision: str
    change: Change


def records(lines: Iterable[str]) -> list[RunRecord]:
    """The records the lines hold, oldest first, the parts of one run joined (a part joins
    the line before it when that is of the same run, time and revision)."""
    out: list[RunRecord] = []
    for line in lines:
        record = parsed(line)
        if record is None:
            continue
        last = out[-1] if out else None
        if last is not None and record.part and _same_run(last, record):
            out[-1] = RunRecord(last.at, last.run, last.revision, last.changes + record.changes)
        else:
            out.append(record)
    return out


def _same_run(one: RunRecord, other: RunRecord) -> bool:
    return (one.at, one.run, one.revision) == (other.at, other.run, other.revision)


def _after(record: RunRecord, cutoff: datetime.datetime | None) -> bool:
    at = parse_api_time(record.at)
    return cutoff is None or (at is not None and at >= cutoff)


def runs(found: Sequence[RunRecord], cutoff: datetime.datetime | None) -> list[RunRecord]:
    """The runs that wrote something, newest first, since `cutoff` (None: all kept)."""
    return [record for record in reversed(found) if _after(record, cutoff)]


def entries(
    found: Sequence[RunRecord], selection: Selection, cutoff: datetime.datetime | None
) -> list[Entry]:
    """The changes of the WebApps `selection` picks, newest first, since `cutoff`."""
    return [
        Entry(parse_api_time(record.at), record.run, record.revision, change)
        for record in reversed(found)
        if _after(record, cutoff)
        for change in record.changes
        if _picks(selection, change)
    ]


def _picks(selection: Selection, change: Change) -> bool:
    if selection.names:
        return selection.names_place(*change.place)
    return all(requirement.matches(change.labels) for requirement in selection.requirements)


def last_entries(found: Sequence[RunRecord]) -> dict[Place, Entry]:
    """Each WebApp's newest change (what `status` shows)."""
    last: dict[Place, Entry] = {}
    for record in found:
        for change in record.changes:
            last[change.place] = Entry(
                parse_api_time(record.at), record.run, record.revision, change
            )
    return last


def tally(record: RunRecord) -> list[tuple[str, int]]:
    """How many WebApps of a run had each outcome, in the order they first appear."""
    counts: dict[str, int] = {}
    for change in record.changes:
        counts[change.outcome] = counts.get(change.outcome, 0) + 1
    return list(counts.items())
