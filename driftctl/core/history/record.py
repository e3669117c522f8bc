"""The record of one run that wrote something: per WebApp, what was applied to it.

Pure. A run's plan and its report say it: each WebApp whose WebApp or Deployment the run
wrote (created, updated, replaced, pruned, cleaned up, orphaned, marked for removal) gets
one `Change`: the outcome apply reported (the gravest of its objects'), the fields changed
(a Deployment's prefixed `Deployment `; none known for a watch reconcile, which sends no
dry-run), whether Git or drift caused it, the revision it was at before (its live revision
annotation) and the labels it carries, minus driftctl's own (what `history -l` matches,
after the WebApp itself is gone). What writes nothing (an
unchanged object, a held one, a conflict, a status written alone) is not recorded, so a
run that changed nothing has no record (`record_of` answers None) and costs no request.

A record is one JSON line; one larger than `PART_BYTES` (a first apply of a large fleet)
is cut into parts with the same run, time and revision (`lines_of`), so that every part
fits a ConfigMap of the ring (core.history.ring).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.actions import Action, Cleanup, Plan, Update, changes_of, is_changing
from driftctl.core.planning.objects import Obj, ObjectKey, annotations_of, labels_of, metadata
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome
from driftctl.core.source.model import Place

PART_BYTES = 64 * 1024  # one line of the ring at most: a record is cut into such parts
MAX_FIELDS = 20  # fields listed per WebApp; more are counted
MAX_REASON = 300  # characters of a failure's reason
# The outcome a WebApp's change shows when its objects had several: the gravest first.
GRAVITY = (
    Outcome.FAILED,
    Outcome.DELETED,
    Outcome.ORPHANED,
    Outcome.CREATED,
    Outcome.CONFIGURED,
    Outcome.WAITING,
)
OWN_LABELS = frozenset({c.INSTANCE_LABEL, c.MANAGED_BY_LABEL})


class Cause:
    """What made a change: Git (a commit), drift (a field changed in the cluster, put back),
    or a deletion someone asked for in the cluster (its cleanup)."""

    GIT = "git"
    DRIFT = "drift"
    CLEANUP = "cleanup"


@dataclass(frozen=True)
class Change:
    """What one run applied to one WebApp (module docstring)."""

    webapp: str  # namespace/name
    outcome: str
    cause: str
    fields: tuple[str, ...] = ()
    previous: str = ""  # the revision it was at before ("": none)
    reason: str = ""  # why it failed
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def place(self) -> Place:
        namespace, _, name = self.webapp.partition("/")
        return Place(namespace, name)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"webapp": self.webapp, "outcome": self.outcome, "cause": self.cause}
        optional = {"fields": list(self.fields), "previous": self.previous, "reason": self.reason}
        out |= {key: value for key, value in optional.items() if value}
        if self.labels:
            out["labels"] = dict(self.labels)
        return out

    @classmethod
    def of_json(cls, body: Mapping[str, Any]) -> Change:
        return cls(
            str(body["webapp"]), str(body["outcome"]), str(body.get("cause") or Cause.GIT),
            tuple(str(each) for each in body.get("fields") or ()), str(body.get("previous") or ""),
            str(body.get("reason") or ""), dict(body.get("labels") or {}),
        )  # fmt: skip


@dataclass(frozen=True)
class RunRecord:
    """One run's record: when (API time), which run (its host: a CronJob's Pod), the
    revision it applied, and its changes. `part`: a line after the first of a record cut
    into parts (`lines_of`) says which; 0 on a record's first line. Two runs of one host
    within one second at one revision are two records, not one: only a part joins the line
    before it."""

    at: str
    run: str
    revision: str
    changes: tuple[Change, ...]
    part: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "run": self.run,
            "revision": self.revision,
            **({"part": self.part} if self.part else {}),
            "changes": [each.as_json() for each in self.changes],
        }

    @classmethod
    def of_json(cls, body: Mapping[str, Any]) -> RunRecord:
        changes = tuple(Change.of_json(each) for each in body.get("changes") or ())
        run, revision = str(body.get("run") or ""), str(body.get("revision") or "")
        return cls(str(body["at"]), run, revision, changes, int(body.get("part") or 0))


@dataclass(frozen=True)
class RunOf:
    """What a record says of the run itself, beside its plan and report."""

    at: str  # API time
    run: str  # its host
    webapps: Mapping[Place, Obj]  # the live WebApps the plan was made from


def record_of(plan: Plan, report: ApplyReport, run: RunOf) -> RunRecord | None:
    """The record of a run (module docstring); None when it wrote nothing."""
    outcomes: dict[ObjectKey, list[ObjectOutcome]] = {}
    for each in report.outcomes:  # an object may have two: a cleanup, then a create
        outcomes.setdefault(each.key, []).append(each)
    acted: dict[Place, list[Action]] = {}
    for action in plan.actions:
        if is_changing(action) and action.key in outcomes:
            acted.setdefault(action.key.place, []).append(action)
    changes = []
    for place, actions in acted.items():
        keys = dict.fromkeys(action.key for action in actions)
        found = [outcome for key in keys for outcome in outcomes[key]]
        outcome = _gravest(each.outcome for each in found)
        if outcome is None:
            continue
        live = run.webapps.get(place)
        previous = _previous(live)
        reason = next((each.reason for each in found if each.outcome is Outcome.FAILED), "")
        changes.append(
            Change(
                f"{place.namespace}/{place.name}",
                str(outcome),
                _cause(actions, previous, plan.revision),
                _fields(actions),
                previous,
                reason[:MAX_REASON],
                _labels(actions, live),
            )
        )
    if not changes:
        return None
    return RunRecord(run.at, run.run, plan.revision, tuple(changes))


def _gravest(outcomes: Iterable[Outcome]) -> Outcome | None:
    present = set(outcomes)
    return next((each for each in GRAVITY if each in present), None)


def _cause(actions: Sequence[Action], previous: str, revision: str) -> str:
    """Cleanup, for a deletion asked for in the cluster; drift, when every field changed
    was another manager's (or set outside Git), or, where the fields are not known (watch
    sends no dry-run), when the WebApp was at this revision already; else Git."""
    if any(isinstance(action, Cleanup) for action in actions):
        return Cause.CLEANUP
    changes = [change for action in actions for change in changes_of(action)]
    if changes:
        drifted = all(change.managers or change.note for change in changes)
    else:
        updates = all(isinstance(action, Update) for action in actions)
        drifted = updates and bool(previous) and previous == revision
    return Cause.DRIFT if drifted else Cause.GIT


# What every change from Git rewrites besides its fields: not worth a line of history.
_BOOKKEEPING = (c.REVISION_ANNOTATION, c.SOURCE_ANNOTATION)


def _fields(actions: Sequence[Action]) -> tuple[str, ...]:
    paths = [
        change.path if action.key.kind == c.KIND else f"{action.key.kind} {change.path}"
        for action in actions
        for change in changes_of(action)
        if not any(change.path.endswith(mark) for mark in _BOOKKEEPING)
    ]
    unique = list(dict.fromkeys(paths))
    if len(unique) <= MAX_FIELDS:
        return tuple(unique)
    return (*unique[:MAX_FIELDS], f"and {len(unique) - MAX_FIELDS} more")


def _previous(live: Obj | None) -> str:
    return annotations_of(live).get(c.REVISION_ANNOTATION, "") if live else ""


def _labels(actions: Sequence[Action], live: Obj | None) -> dict[str, str]:
    """The WebApp's labels as applied (its manifest's), else as it was live."""
    for action in actions:
        manifest = getattr(action, "manifest", None)
        if action.key.kind == c.KIND and isinstance(manifest, dict):
            return _theirs(metadata(manifest).get("labels") or {})
    return _theirs(labels_of(live)) if live else {}


def _theirs(labels: Mapping[str, str]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(labels.items()) if k not in OWN_LABELS}


def lines_of(record: RunRecord) -> list[str]:
    """The record as lines of the ring, each at most PART_BYTES (cut between changes)."""
    head = {"at": record.at, "run": record.run, "revision": record.revision}
    base = len(_line({**head, "part": 999_999, "changes": []}))
    lines: list[str] = []
    part: list[dict[str, Any]] = []
    size = base
    for change in record.changes:
        body = change.as_json()
        cost = len(_line(body)) + 1
        if part and size + cost > PART_BYTES:
            lines.append(_part_line(head, len(lines), part))
            part, size = [], base
        part.append(body)
        size += cost
    lines.append(_part_line(head, len(lines), part))
    return lines


def _part_line(head: Mapping[str, str], index: int, changes: list[dict[str, Any]]) -> str:
    return _line({**head, **({"part": index} if index else {}), "changes": changes})


def _line(body: Mapping[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def parsed(line: str) -> RunRecord | None:
    """A line of the ring as a record (None: not one: a line from a newer driftctl, or
    damaged, is passed over rather than stopping `history`)."""
    try:
        body = json.loads(line)
        return RunRecord.of_json(body) if isinstance(body, dict) else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
