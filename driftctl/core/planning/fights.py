"""Fights: drift driftctl corrected before and finds again, made by the same manager.

The WebApp status keeps a short record of recent corrections, one entry per field of the
WebApp or its Deployment: who changed it, how many runs in a row corrected a change by
that manager, and when last. "In a row" counts corrections: a run that finds the field
as Git says writes nothing (a run without drift costs only its LIST requests), so it
neither adds to nor resets the count; a correction of a change by another manager starts
the count again. Pure: the record is read from the listed WebApp, the time is passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.objects import Obj, ObjectKey
from driftctl.core.source.model import MAX_CORRECTIONS

Record = Mapping[tuple[str, str], Obj]  # (kind, field) -> the status entry


def record_of(webapp: Obj | None) -> Record:
    """The corrections a live WebApp's status records, by (kind, field)."""
    entries = ((webapp or {}).get("status") or {}).get("corrections") or []
    return {
        (str(entry.get("kind")), str(entry.get("field"))): entry
        for entry in entries
        if isinstance(entry, dict)
    }


def corrector(change: FieldChange) -> str | None:
    """The manager whose change a field change corrects (None: Git changed it)."""
    return change.managers[0] if change.managers else None


def counted(changes: Iterable[FieldChange], kind: str, record: Record) -> tuple[FieldChange, ...]:
    """Each change with how many runs in a row corrected that field, changed by that manager."""
    out = []
    for change in changes:
        entry = record.get((kind, change.path))
        manager = corrector(change)
        same = entry is not None and manager is not None and entry.get("manager") == manager
        out.append(replace(change, corrected=int(entry["count"]) if same and entry else 0))
    return tuple(out)


def fight_note(change: FieldChange) -> str:
    """`corrected 3 runs in a row; changed again by kubectl-set`."""
    runs = "run" if change.corrected == 1 else "runs"
    again = (
        change.note.replace("added by", "added again by")
        if change.note
        else (f"changed again by {', '.join(change.managers)}")
    )
    return f"corrected {change.corrected} {runs} in a row; {again}"


def fight_message(key: ObjectKey, changes: Iterable[FieldChange]) -> str | None:
    """The Warning Event of a fight on one object, or None when there is none."""
    fights = [change for change in changes if change.corrected]
    if not fights:
        return None
    return f"{key.display}: " + "; ".join(f"{c.path} {c.note or fight_note(c)}" for c in fights)


def recorded(record: Record, corrected: Iterable[tuple[str, FieldChange]], now: str) -> list[Obj]:
    """The status record after this run's corrections: counts grown, newest first, bounded."""
    entries = {key: dict(entry) for key, entry in record.items()}
    for kind, change in corrected:
        manager = corrector(change)
        if manager is None:
            continue
        old = entries.get((kind, change.path))
        count = int(old["count"]) + 1 if old and old.get("manager") == manager else 1
        entries[(kind, change.path)] = {
            "kind": kind,
            "field": change.path,
            "manager": manager,
            "count": count,
            "lastCorrected": now,
        }
    newest = sorted(
        entries.values(),
        key=lambda entry: (str(entry.get("lastCorrected", "")), entry["kind"], entry["field"]),
        reverse=True,
    )
    return newest[:MAX_CORRECTIONS]
