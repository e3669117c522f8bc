"""`driftctl history` as text and JSON, and the last change `status` shows per WebApp.
Pure: returns strings.

Text is a table for a person, newest first: the runs that wrote something (no NAME), or
each change of the WebApps asked for, with the fields it changed; then, for a change from
Git, the command that undoes it (rollback is Git's: `git revert`). JSON is stable:

    runs      one per run: at, run, revision, changes {outcome: count}
    entries   (NAME... or -l) one per change: at, run, revision, webapp, outcome, cause,
              fields, previous (the revision before), reason (failed), labels
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from typing import Any

from driftctl.core.history.query import Entry, tally
from driftctl.core.history.record import Cause, RunRecord
from driftctl.durations import text as duration_text
from driftctl.kube_formats import api_time

_RUNS = ("WHEN", "RUN", "REVISION", "CHANGES")
_ENTRIES = ("WHEN", "WEBAPP", "OUTCOME", "CAUSE", "REVISION", "RUN", "FIELDS")


def short(revision: str) -> str:
    """A revision as tables show it: a SHA's first 12 characters."""
    sha, dirty, rest = revision.partition("-")
    return sha[:12] + dirty + rest if len(sha) == 40 else revision or "-"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    table = [tuple(header), *(tuple(row) for row in rows)]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()
        for cells in table
    ]


def runs_text(found: Sequence[RunRecord]) -> str:
    """The runs that wrote something, newest first."""
    if not found:
        return "No run has written anything yet (or none within --since).\n"
    rows = [
        (
            record.at,
            record.run or "-",
            short(record.revision),
            ", ".join(f"{count} {outcome}" for outcome, count in tally(record)),
        )
        for record in found
    ]
    return "\n".join(_table(_RUNS, rows)) + "\n"


def entries_text(found: Sequence[Entry], asked: str) -> str:
    """The changes of the WebApps asked for (`asked`: NAME... or -l), newest first, and how
    to undo the newest from Git."""
    if not found:
        return f"No change of {asked} is recorded (or none within --since).\n"
    rows = [
        (
            api_time(entry.at) if entry.at else "-",
            entry.change.webapp,
            entry.change.outcome,
            entry.change.cause,
            short(entry.revision),
            entry.run or "-",
            _fields(entry),
        )
        for entry in found
    ]
    lines = _table(_ENTRIES, rows)
    undo = next((entry for entry in found if entry.change.cause == Cause.GIT), None)
    if undo is not None:
        lines += ["", *_undo(undo)]
    return "\n".join(lines) + "\n"


def _fields(entry: Entry) -> str:
    if entry.change.reason:
        return entry.change.reason
    return ", ".join(entry.change.fields) or "-"


def _undo(entry: Entry) -> list[str]:
    """Rollback is Git's: the revert of the commit that run applied."""
    revision, previous = entry.revision.removesuffix("-dirty"), entry.change.previous
    said = [
        f"Rollback is Git's: `git revert {short(revision)}` undoes the commit the newest "
        f"change of {entry.change.webapp} applied"
    ]
    if previous and previous != revision:
        said.append(
            f"(`git log {short(previous)}..{short(revision)}` lists every commit that run "
            "carried), and the next run applies it."
        )
    else:
        said[-1] += ", and the next run applies it."
    return said


def history_json(runs: Sequence[RunRecord], entries: Sequence[Entry] | None) -> str:
    """The history as stable JSON (keys in the module docstring)."""
    document: dict[str, Any] = {
        "runs": [
            {
                "at": record.at,
                "run": record.run,
                "revision": record.revision,
                "changes": dict(tally(record)),
            }
            for record in runs
        ]
    }
    if entries is not None:
        document["entries"] = [entry_json(entry) for entry in entries]
    return json.dumps(document, indent=2) + "\n"


def entry_json(entry: Entry) -> dict[str, Any]:
    """One change, as `history -o json` and `status -o json` write it."""
    return {
        "at": api_time(entry.at) if entry.at else None,
        "run": entry.run,
        "revision": entry.revision,
        **entry.change.as_json(),
    }


def last_change_cell(entry: Entry | None, now: datetime.datetime) -> str:
    """`status`'s LAST CHANGE: the outcome and how long ago (`-`: none recorded)."""
    if entry is None or entry.at is None:
        return "-"
    age = max(now - entry.at, datetime.timedelta(0))
    return f"{entry.change.outcome} {duration_text(_whole(age))} ago"


def _whole(age: datetime.timedelta) -> datetime.timedelta:
    """An age to the second, or the minute past an hour (as kubectl's AGE reads)."""
    seconds = int(age.total_seconds())
    return datetime.timedelta(seconds=seconds if seconds < 3600 else seconds - seconds % 60)
