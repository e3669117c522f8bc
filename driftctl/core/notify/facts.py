"""What a run did or found, as items of the digest: one per object and category.

Pure. A run's facts (its plan, the outcome of each object, the guards' refusals, the
error that stopped it, and the rollouts that failed) become `Item`s, each of one
`Category`. The categories are the words of `--notify-on`; each says whether it is a
*condition* (it lasts until a later run no longer finds it: a conflict, an invalid commit,
a failed rollout...) or a *happening* (a run did it: applied a change, corrected drift,
pruned). A condition that goes away is told as resolved; a happening simply stops.

How an action and its outcome become items:

| outcome | action | category |
|---|---|---|
| created / configured | a field another manager changed (core.planning.fights.corrector) | drift |
| created / configured | the rest: what Git changed | applied |
| deleted | prune, cleanup | prune |
| orphaned / configured | orphan; quarantine, confirm (a removal started) | prune |
| skipped | drift that stays (a replace without --recreate): `held_reason` | held |
| held | what a control holds (a suspension, a policy, a window): `held_reason` | held |
| created / configured | its fields a control keeps as they are (drift under warn) | held |

A held item carries its fields and values like every other item (`held_fields`: each field
a control keeps, as `live -> Git`), so a held drift that takes another value is told again
and the same value is not.
| failed | conflict | conflict |
| failed | refused (the API server refused Git's object) | invalid |
| failed | any other | error |

Besides: the guards' refusals are one `guard` item; an error that stopped the run is one
`invalid` (exit 3) or `error` item; each failed rollout a `rollout` item. Field values are
masked (core.planning.redaction) before anything is kept or hashed.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import re
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass

from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Confirm,
    Conflict,
    Create,
    Held,
    Orphan,
    Plan,
    Prune,
    Quarantine,
    Refused,
    Skip,
    changes_of,
    kept_of,
)
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.fights import corrector
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.planning.redaction import masked_change, masked_text
from driftctl.core.planning.verbs import Verb, meaning
from driftctl.core.source.model import Place
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState

RUN = "run"  # the subject of an item about the whole run (an error, the guards)
MAX_PROBLEMS = 5  # problems of an invalid commit an item lists


class Category(enum.StrEnum):
    """What an item is about; the values are the words `--notify-on` takes."""

    APPLIED = "applied"  # changes from Git applied
    DRIFT = "drift"  # drift corrected
    PRUNE = "prune"  # pruned, or a deletion's cleanup finished
    GUARD = "guard"  # a prune guard refused (--max-prune, an empty Git)
    HELD = "held"  # an action held back: drift that stays
    CONFLICT = "conflict"  # another owner's object under a name Git declares
    ROLLOUT = "rollout"  # a rollout that failed
    INVALID = "invalid"  # refused input: an invalid commit, an object the API server refused
    ERROR = "error"  # an object that failed, a run that stopped


@dataclass(frozen=True)
class Kind:
    """One category's row: how digests title it, whether it lasts, how alerts name it."""

    title: str
    lasting: bool  # a condition (resolves when gone) rather than a happening
    alert: str = ""  # Alertmanager's alertname (conditions only)
    severity: str = ""


# In the order a digest lists them: what needs a person first.
# fmt: off
KINDS: dict[Category, Kind] = {
    Category.ERROR: Kind("Errors", True, "DriftctlRunError", "critical"),
    Category.INVALID: Kind("Refused input", True, "DriftctlInvalidInput", "critical"),
    Category.ROLLOUT: Kind("Failed rollouts", True, "DriftctlRolloutFailed", "critical"),
    Category.CONFLICT: Kind("Conflicts", True, "DriftctlConflict", "warning"),
    Category.GUARD: Kind("Prunes refused by a guard", True, "DriftctlPruneRefused", "warning"),
    Category.HELD: Kind("Held actions", True, "DriftctlActionHeld", "warning"),
    Category.DRIFT: Kind("Drift corrected", False),
    Category.PRUNE: Kind("Pruned", False),
    Category.APPLIED: Kind("Applied from Git", False),
}
# fmt: on
CATEGORIES = tuple(KINDS)


@dataclass(frozen=True)
class Item:
    """One thing worth telling: a category, an object (or the run), what, and its fields.

    `key` names it across runs (what was told is recorded by key); `fingerprint` changes
    when what is told about it changes (another field, another value, another reason).
    """

    category: Category
    subject: str  # `Kind/namespace/name`, or RUN
    what: str  # one line: what happened, or why
    changes: tuple[FieldChange, ...] = ()  # masked
    lines: tuple[str, ...] = ()  # further lines (the problems of an invalid commit)
    place: Place | None = None  # the WebApp it belongs to (None: the whole run)

    @property
    def key(self) -> str:
        return key_of(self.category, self.subject)

    @property
    def fingerprint(self) -> str:
        what = plain(self.what) if self.category is Category.ERROR else self.what
        told = [what, *self.lines, *(_change_facts(change) for change in self.changes)]
        text = json.dumps(told, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def key_of(category: Category, subject: str) -> str:
    """`drift Deployment/web/shop`: how the record names an item (split by `parse_key`)."""
    return f"{category} {subject}"


def parse_key(key: str) -> tuple[Category, str] | None:
    """The category and subject of a recorded key; None for a key of no known category."""
    category, _, subject = key.partition(" ")
    try:
        return Category(category), subject
    except ValueError:
        return None


def _change_facts(change: FieldChange) -> list[object]:
    return [change.path, change.op, change.before, change.after, list(change.managers)]


@dataclass(frozen=True)
class RolloutFailure:
    """A rollout that failed: the WebApp, and why (its Stalled condition, or the wait's end)."""

    key: ObjectKey
    reason: str


@dataclass(frozen=True)
class RunFacts:
    """What one run (or one watch reconcile) did or found.

    `scope`: the WebApps these facts cover, for watch's reconciles of some WebApps
    (core.notify.record.merged); None for a whole run.
    """

    revision: str = ""
    plan: Plan | None = None
    report: ApplyReport | None = None
    error: DriftctlError | None = None
    rollouts: tuple[RolloutFailure, ...] = ()
    rolling: tuple[ObjectKey, ...] = ()  # rollouts still in progress
    scope: frozenset[Place] | None = None

    @classmethod
    def of_report(
        cls,
        revision: str,
        plan: Plan,
        report: ApplyReport,
        *,
        scope: frozenset[Place] | None = None,
    ) -> RunFacts:
        """The facts of a run (or reconcile) that carried `plan` out: its rollouts, failed
        and in progress, as its report last saw them."""
        conflicts = {action.key.place for action in plan.actions if isinstance(action, Conflict)}
        failed, rolling = rollouts_of(report, told_apart=conflicts)
        return cls(revision, plan, report, rollouts=failed, rolling=rolling, scope=scope)

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return int(self.error.exit_code)
        return int(self.report.exit_code) if self.report is not None else int(ExitCode.OK)


def rollouts_of(
    report: ApplyReport, told_apart: Container[Place] = ()
) -> tuple[tuple[RolloutFailure, ...], tuple[ObjectKey, ...]]:
    """The rollouts a run saw fail (stalled, or still rolling out when `apply --wait` gave
    up), with why; and those still in progress. A WebApp at a place `told_apart` (its
    Deployment is another owner's: told as a conflict) is not a failed rollout too."""
    whys = dict(report.stalls)
    failed = tuple(
        RolloutFailure(key, whys.get(key) or _FAILED_ROLLOUT[state])
        for key, state in report.rollouts
        if state in _FAILED_ROLLOUT and key.place not in told_apart
    )
    rolling = tuple(key for key, state in report.rollouts if state is RolloutState.PROGRESSING)
    return failed, rolling


_FAILED_ROLLOUT = {
    RolloutState.STALLED: "its rollout stalled",
    RolloutState.TIMED_OUT: "still rolling out when --wait-timeout ran out",
}


def items_of(facts: RunFacts, wanted: Iterable[Category] = CATEGORIES) -> tuple[Item, ...]:
    """Every item of `facts` in a wanted category, in the digest's order."""
    found: list[Item] = []
    if facts.error is not None:
        found.append(_error_item(facts.error))
    if facts.plan is not None and facts.report is not None:
        found += _outcome_items(facts.plan, facts.report)
        if facts.report.refusals:
            found.append(Item(Category.GUARD, RUN, "prunes refused", lines=facts.report.refusals))
    found += [
        Item(Category.ROLLOUT, f.key.display, masked_text(f.reason), place=f.key.place)
        for f in facts.rollouts
    ]
    chosen = set(wanted)
    order = {category: index for index, category in enumerate(CATEGORIES)}
    return tuple(
        sorted((i for i in found if i.category in chosen), key=lambda i: order[i.category])
    )


def _error_item(error: DriftctlError) -> Item:
    if isinstance(error, InvalidDesiredState):
        problems = tuple(masked_text(str(p)) for p in error.problems[:MAX_PROBLEMS])
        more = len(error.problems) - len(problems)
        tail = (f"... and {more} more",) if more > 0 else ()
        return Item(Category.INVALID, RUN, masked_text(error.message), lines=problems + tail)
    category = Category.INVALID if error.exit_code is ExitCode.INVALID_INPUT else Category.ERROR
    return Item(category, RUN, masked_text(error.message))


def _outcome_items(plan: Plan, report: ApplyReport) -> list[Item]:
    outcomes = {item.key: item for item in report.outcomes}
    found: list[Item] = []
    for action in plan.actions:
        outcome = outcomes.get(action.key)
        if outcome is not None:
            found += items_of_action(action, outcome)
    return found


def items_of_action(action: Action, outcome: ObjectOutcome) -> list[Item]:
    """The items one action and its outcome make (module docstring's table)."""
    subject, place = action.key.display, action.key.place
    if outcome.outcome is Outcome.FAILED:
        reason = masked_text(outcome.reason or action.reason)
        return [Item(_failure(action), subject, reason, place=place)]
    if isinstance(action, Orphan | Quarantine | Confirm):
        done = meaning(action.verb).past
        return [Item(Category.PRUNE, subject, f"{done}: {action.reason}", place=place)]
    if outcome.outcome in (Outcome.CREATED, Outcome.CONFIGURED):
        return _changed(action, subject, place)
    if outcome.outcome is Outcome.DELETED and isinstance(action, Prune | Cleanup):
        done = meaning(action.verb).past
        return [Item(Category.PRUNE, subject, f"{done}: {action.reason}", place=place)]
    waiting = (Outcome.SKIPPED, Outcome.HELD, Outcome.WAITING)
    if outcome.outcome in waiting and (why := held_reason(action)):
        fields = _masked((*changes_of(action), *held_fields(action)))
        return [Item(Category.HELD, subject, why, fields, place=place)]
    return []


HELD_NOTE = "held"  # the note of a field a control keeps as the cluster has it


def held_fields(action: Action) -> tuple[FieldChange, ...]:
    """The fields a control keeps as the cluster has them (drift under warn, Git's changes
    held), each as the change it holds back: the cluster's value, then Git's."""
    return tuple(
        dataclasses.replace(FieldChange.of(kept.path, kept.live, kept.git), note=HELD_NOTE)
        for kept in kept_of(action)
        if kept.held
    )


def held_reason(action: Action) -> str | None:
    """Why an action is held back for a person, or None when it is not.

    Drift that stays, because a replace needs --recreate; and what a control holds (a
    suspension, a change or drift policy, a window, a removal waiting): what it would have
    done, and why.
    """
    if isinstance(action, Skip) and action.changes:
        return action.reason
    if isinstance(action, Held):
        return masked_text(f"{action.would} held: {action.reason}")
    return None


def _failure(action: Action) -> Category:
    if isinstance(action, Conflict):
        return Category.CONFLICT
    if isinstance(action, Refused):
        return Category.INVALID
    return Category.ERROR


def _changed(action: Action, subject: str, place: Place) -> list[Item]:
    found = _written(action, subject, place)
    if held := _masked(held_fields(action)):  # written, but some of its fields are held
        # as the next run, which writes nothing, says it: an update held (core.planning.holding)
        why = "; ".join(dict.fromkeys(kept.reason for kept in kept_of(action) if kept.held))
        what = masked_text(f"{Verb.UPDATE} held: {why}")
        found.append(Item(Category.HELD, subject, what, held, place=place))
    return found


def _written(action: Action, subject: str, place: Place) -> list[Item]:
    changes = _masked(changes_of(action))
    drift = tuple(change for change in changes if corrector(change) is not None)
    git = tuple(change for change in changes if corrector(change) is None)
    found = []
    if drift:
        found.append(Item(Category.DRIFT, subject, "drift corrected", drift, place=place))
    if git or isinstance(action, Create) or not drift:
        done = meaning(action.verb).past
        found.append(Item(Category.APPLIED, subject, done, git, place=place))
    return found


def _masked(changes: Sequence[FieldChange]) -> tuple[FieldChange, ...]:
    return tuple(masked_change(change) for change in changes)


_DIGITS = re.compile(r"\d+")


def plain(text: str) -> str:
    """`text` with its numbers left out: an error told again only when more than a count or
    a duration in its message changed."""
    return _DIGITS.sub("#", text)
