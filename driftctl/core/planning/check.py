"""The pre-merge check's decisions: what merging a pull request does, split by cause.

Pure. The plan at head is what applying the pull request would do to the live cluster.
Each object it would change (or cannot change) gets one category:

| category  | what                                                                         |
|-----------|------------------------------------------------------------------------------|
| `change`  | the pull request introduces it: the plan at base would not do it             |
| `drift`   | already in the cluster: the plan at base does exactly the same               |
| `prune`   | deleted (a WebApp through its finalizer, or an orphaned Deployment), or on   |
|           | its way out under its prune policy (orphan, quarantine, confirm)             |
| `replace` | an immutable field differs: deleted and created again (`--recreate`)         |
| `blocked` | nothing is done: a guard refused it, the API server refused its dry-run, a  |
|           | replace without `--recreate`, a deletion already in progress, or a control   |
|           | holds it (a suspension, a change or drift policy, a window: `hold`)          |

`change` and `drift` are told apart by comparing with the plan at base computed against
the same live state, field by field: a field the plan at base changes to the same value
is drift, any other field is the pull request's. An object with at least one field of
the pull request's is a `change`; its drift fields are marked as such. Prunes, replaces
and blocked objects also say whether the pull request introduces them.

Every object also counts under one `--fail-on` name (`counts_as`): its category, except
that a blocked object counts as what it was blocked from doing (a prune, a replace, or
a change or drift; a held one as what it holds). driftctl's revision and source
annotations are left out of every comparison and every report: they change with every
commit.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Confirm,
    Create,
    Held,
    Orphan,
    Plan,
    Prune,
    Quarantine,
    Refused,
    Removing,
    Replace,
    Unchanged,
    changes_of,
    is_changing,
)
from driftctl.core.planning.built_changes import BuiltChange, created_fields, shown
from driftctl.core.planning.candidates import Candidate, DryRunResult
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.commit_diff import CommitDiff
from driftctl.core.planning.normalize import comparable, equal
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.desired_state import Revision
from driftctl.core.source.signatures import Verdict
from driftctl.errors import ExitCode, Problem
from driftctl.settings import FAIL_ON


class Category(enum.StrEnum):
    """Why an object is in the report (module docstring)."""

    CHANGE = "change"
    DRIFT = "drift"
    PRUNE = "prune"
    REPLACE = "replace"
    BLOCKED = "blocked"


CATEGORIES = tuple(Category)


@dataclass(frozen=True)
class CheckedField:
    """One field the plan at head changes; `drift` when the plan at base changes it alike."""

    change: FieldChange
    drift: bool = False


@dataclass(frozen=True)
class CheckedObject:
    """One object of the plan at head that would change, or cannot."""

    key: ObjectKey
    verb: Verb
    category: Category
    introduced: bool  # the pull request causes it: the plan at base would not do it
    reason: str
    counts_as: str  # the --fail-on name it counts under
    fields: tuple[CheckedField, ...] = ()
    deletes: tuple[ObjectKey, ...] = ()  # what a prune or cleanup deletes with it
    error: str | None = None  # the API server's refusal, for a refused dry-run


@dataclass(frozen=True)
class ClusterCheck:
    """The plan at head, object by object, in the order the plan lists them."""

    objects: tuple[CheckedObject, ...]
    unchanged: int
    refusals: tuple[str, ...] = ()

    def count(self, category: Category) -> int:
        """How many objects fall in `category`."""
        return sum(1 for item in self.objects if item.category is category)


def shared_answers(
    base: Iterable[Candidate],
    head: Iterable[Candidate],
    answers: Mapping[ObjectKey, DryRunResult],
) -> tuple[dict[ObjectKey, DryRunResult], tuple[Candidate, ...]]:
    """Which dry-runs of the plan at base the head's answers already give, and which remain.

    A base candidate asks the same as the head's when both would send the same manifest
    but for driftctl's stamp (whose values never make a difference: normalize.comparable),
    so only objects the pull request changes cost a second dry-run.
    """
    sent = {candidate.key: comparable(candidate.manifest) for candidate in head}
    reused: dict[ObjectKey, DryRunResult] = {}
    remaining: list[Candidate] = []
    for candidate in base:
        asked = sent.get(candidate.key)
        if (
            asked is not None
            and candidate.key in answers
            and equal(asked, comparable(candidate.manifest))
        ):
            reused[candidate.key] = answers[candidate.key]
        else:
            remaining.append(candidate)
    return reused, tuple(remaining)


def categorize(head: Plan, base: Plan) -> ClusterCheck:
    """Each object of the plan at head, with its category against the plan at base."""
    earlier: dict[ObjectKey, list[Action]] = {}
    for action in base.actions:
        earlier.setdefault(action.key, []).append(action)
    declared = frozenset(head.declared)
    objects = tuple(
        _checked(action, _counterpart(action, earlier.get(action.key, [])), declared)
        for action in head.actions
        if not isinstance(action, Unchanged)
    )
    unchanged = sum(1 for action in head.actions if isinstance(action, Unchanged))
    return ClusterCheck(objects, unchanged, head.refusals)


def _counterpart(action: Action, candidates: list[Action]) -> Action | None:
    """The base plan's action for the same object: of the same kind, else on the same side
    (a removal, or not), else none."""
    same = [other for other in candidates if type(other) is type(action)]
    if same:
        return same[0]
    side = [other for other in candidates if _removes(other) == _removes(action)]
    return side[0] if side else None


def _removes(action: Action) -> bool:
    if isinstance(action, Held):
        return action.would in _REMOVING
    return isinstance(action, Removing)


_REMOVING = frozenset({Verb.PRUNE, Verb.CLEANUP, Verb.ORPHAN, Verb.QUARANTINE, Verb.CONFIRM})


def _checked(
    action: Action, earlier: Action | None, declared: frozenset[ObjectKey]
) -> CheckedObject:
    fields = _fields(action, earlier)
    if fields:
        introduced = any(not field.drift for field in fields)
    else:
        introduced = earlier is None or type(earlier) is not type(action)
    category = _category(action, introduced)
    return CheckedObject(
        key=action.key,
        verb=action.verb,
        category=category,
        introduced=introduced,
        reason=action.reason,
        counts_as=_counts_as(action, category, introduced, declared),
        fields=fields,
        deletes=tuple(owned.key for owned in action.owned)
        if isinstance(action, Prune | Cleanup)
        else (),
        error=action.error if isinstance(action, Refused) else None,
    )


def _fields(action: Action, earlier: Action | None) -> tuple[CheckedField, ...]:
    mine, theirs = _changes(action), _changes(earlier) if earlier is not None else ()
    seen = {_identity(change) for change in theirs}
    return tuple(CheckedField(change, _identity(change) in seen) for change in mine)


def _changes(action: Action) -> tuple[FieldChange, ...]:
    if isinstance(action, Create):
        return created_fields(action.manifest)
    if isinstance(action, Held) and not action.changes:  # what it holds: its held fields
        return tuple(FieldChange.of(k.path, k.live, k.git) for k in action.kept if k.held)
    return shown(changes_of(action))


def _identity(change: FieldChange) -> tuple[str, str, str]:
    return change.path, change.op, json.dumps(change.after, sort_keys=True)


def _category(action: Action, introduced: bool) -> Category:
    if isinstance(action, Prune | Orphan | Quarantine | Confirm):
        return Category.PRUNE
    if isinstance(action, Replace):
        return Category.REPLACE
    if not is_changing(action):  # left as it is, for the reason given (unchanged aside)
        return Category.BLOCKED
    return Category.CHANGE if introduced else Category.DRIFT


def _counts_as(
    action: Action, category: Category, introduced: bool, declared: frozenset[ObjectKey]
) -> str:
    if category is not Category.BLOCKED:
        return str(category)
    if isinstance(action, Held):
        return _held_counts_as(action, introduced)
    key = action.key
    if ObjectKey(c.KIND, key.namespace, key.name) not in declared:
        return str(Category.PRUNE)  # Git no longer declares it: a prune a guard refused
    if changes_of(action):
        return str(Category.REPLACE)  # an immutable field differs, --recreate not given
    return str(Category.CHANGE if introduced else Category.DRIFT)


def _held_counts_as(action: Held, introduced: bool) -> str:
    """What a control holds counts as what it holds."""
    if action.would in _REMOVING:
        return str(Category.PRUNE)
    if action.would is Verb.REPLACE:
        return str(Category.REPLACE)
    return str(Category.CHANGE if introduced else Category.DRIFT)


@dataclass(frozen=True)
class Side:
    """One side of the pull request: the ref as given, and where it was read."""

    ref: str
    revision: Revision


@dataclass(frozen=True)
class CheckReport:
    """Everything `check` found: validation of the head, the change, and the cluster's view.

    `diff` is None when the head is invalid (nothing else can be computed); `cluster` is
    None when the check ran without a cluster; `commits` is None without --verify, else the
    pull request's commits (its head alone with `--verify head`), each with the verdict on
    its signature, newest first (then the tag the head names, if any).
    """

    base: Side
    head: Side
    instance: str
    fail_on: frozenset[str]
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()
    diff: CommitDiff | None = None
    webapps: tuple[BuiltChange, ...] = ()
    deployments: tuple[BuiltChange, ...] = ()
    cluster: ClusterCheck | None = None
    commits: tuple[Verdict, ...] | None = None

    @property
    def found(self) -> tuple[str, ...]:
        """Every --fail-on name this report holds something for, in FAIL_ON order."""
        present = {"invalid"} if self.problems else set()
        present |= {v.counts_as for v in self.commits or () if v.counts_as is not None}
        if self.cluster is not None:
            present |= {item.counts_as for item in self.cluster.objects}
        elif self.diff is not None:
            present |= {"change"} if self.diff.added or self.diff.changed else set()
            present |= {"prune"} if self.diff.removed else set()
        return tuple(name for name in FAIL_ON if name in present)

    @property
    def failed_on(self) -> tuple[str, ...]:
        """The names found that --fail-on asked to fail on."""
        return tuple(name for name in self.found if name in self.fail_on)

    @property
    def exit_code(self) -> ExitCode:
        """3 when it fails on an invalid head, 1 when it fails on what merging does, else 0."""
        if "invalid" in self.failed_on:
            return ExitCode.INVALID_INPUT
        return ExitCode.CHANGES if self.failed_on else ExitCode.OK

    @property
    def nothing_to_report(self) -> bool:
        """Valid, the same desired state on both sides, every commit checked trusted, and
        (with a cluster) nothing to do."""
        if self.problems or self.diff is None or not self.diff.equal:
            return False
        if any(not verdict.trusted for verdict in self.commits or ()):
            return False
        return self.cluster is None or not (self.cluster.objects or self.cluster.refusals)
