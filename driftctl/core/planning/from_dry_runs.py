"""The second step of a plan: the server's dry-run answers become exact actions.

Pure. A candidate's apply answer, with its revert's answer grafted on (the fields set
outside Git, core.planning.outside_git), is compared with the live object: equal content and
the same fields owned is unchanged, else an update with every field change, each saying
why it changes (a field set outside Git, an ignored field Git changed, a fight); an
update of an object this instance takes over (`Candidate.adopting`) is an Adopt.

`watch` sends no dry-run before an update (`updates_answer`): the candidate becomes an
unchecked Update, and once written, the writes' own answers are read the same way
(`answered`), so what it reports is what a plan would have said.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from driftctl.core.planning import fieldset as fs
from driftctl.core.planning import fights
from driftctl.core.planning.actions import (
    Action,
    Adopt,
    Create,
    FieldRevert,
    Refused,
    Unchanged,
    Update,
)
from driftctl.core.planning.candidates import Candidate, DryRunError, DryRunResult, FieldNotes
from driftctl.core.planning.changes import FieldChange, field_changes, managers_of, patch_between
from driftctl.core.planning.normalize import comparable, equal
from driftctl.core.planning.objects import Obj, ObjectKey
from driftctl.core.planning.outside_git import with_reverts

RevertAnswer = Obj | DryRunError


def exact_action(
    candidate: Candidate,
    results: Mapping[ObjectKey, DryRunResult],
    reverted: Mapping[ObjectKey, RevertAnswer],
    manager: str,
    *,
    creates_answer: bool = False,
    updates_answer: bool = False,
) -> Action:
    """One candidate's action. `creates_answer`: apply sent no dry-run for a candidate
    absent from the cluster, its create's own answer decides (`Create(unchecked=True)`);
    `updates_answer`: nor for one that exists (`Update(unchecked=...)`, watch)."""
    if candidate.live is None:
        return _create(candidate, results, creates_answer)
    if updates_answer and candidate.key not in results:
        return _unchecked(candidate)
    return _existing(candidate, candidate.live, results, reverted, manager)


def _existing(
    candidate: Candidate,
    live: Obj,
    results: Mapping[ObjectKey, DryRunResult],
    reverted: Mapping[ObjectKey, RevertAnswer],
    manager: str,
) -> Unchanged | Update | Refused:
    after = _applied(candidate, results)
    if isinstance(after, Refused):
        return after
    if candidate.revert is None:
        if _same(live, after, manager):
            notes = candidate.notes
            return Unchanged(candidate.key, kept=notes.kept, foreign=notes.foreign)
        return _update(candidate, live, after, manager)
    answer = reverted.get(candidate.key)
    if not isinstance(answer, dict):
        message = answer.message if answer is not None else "no dry-run result was given"
        return _refused(candidate, f"removing fields set outside Git: {message}")
    after = with_reverts(after, answer, candidate.revert.fields)
    return _update(candidate, live, after, manager)


def answered(
    update: Update, applied: Obj | None, reverted: Obj | None, manager: str
) -> Unchanged | Update:
    """What an unchecked update did, from the answers of its writes (the apply's, when it
    applied; the revert's, when it had one): unchanged, or an update with every change."""
    candidate = update.unchecked
    assert candidate is not None, "only an unchecked update is read from its answers"
    assert candidate.live is not None, "an update is of an object that exists"
    results: dict[ObjectKey, DryRunResult] = {} if applied is None else {candidate.key: applied}
    revert: dict[ObjectKey, RevertAnswer] = {} if reverted is None else {candidate.key: reverted}
    action = _existing(candidate, candidate.live, results, revert, manager)
    assert not isinstance(action, Refused), "a write's answer is never a refusal"
    return action


def _unchecked(candidate: Candidate) -> Update:
    notes = candidate.notes
    why = "differs from Git; the write's answer tells how"
    return Update(
        candidate.key,
        f"{notes.reason}; {why}" if notes.reason else why,
        candidate.manifest,
        (),
        (),
        revert=candidate.revert,
        apply=candidate.apply,
        kept=notes.kept,
        foreign=notes.foreign,
        unchecked=candidate,
    )


def _create(
    candidate: Candidate, results: Mapping[ObjectKey, DryRunResult], creates_answer: bool
) -> Create | Refused:
    if creates_answer and candidate.key not in results:
        patch = tuple(patch_between(None, candidate.manifest))
        return Create(candidate.key, _ABSENT, candidate.manifest, patch, unchecked=True)
    after = _applied(candidate, results)
    if isinstance(after, Refused):
        return after
    return Create(candidate.key, _ABSENT, candidate.manifest, tuple(patch_between(None, after)))


_ABSENT = "declared in Git, absent from the cluster"


def _applied(candidate: Candidate, results: Mapping[ObjectKey, DryRunResult]) -> Obj | Refused:
    """The object as the apply's dry-run answered (the live one when no apply is needed)."""
    if not candidate.apply:
        return candidate.live or {}
    if candidate.key not in results:
        return _refused(candidate, "no dry-run result was given for this object")
    result = results[candidate.key]
    if isinstance(result, DryRunError):
        return _refused(candidate, result.message)
    return candidate.manifest if result is None else result


def _refused(candidate: Candidate, message: str) -> Refused:
    return Refused(candidate.key, f"the API server refused the dry-run: {message}", message)


def _same(live: Obj, after: Obj, manager: str) -> bool:
    """Nothing to write: equal content (stamp values aside) and the same fields owned."""
    api_version = str(after.get("apiVersion", ""))
    owned = fs.owned_fields(live, manager, api_version)
    return equal(comparable(live), comparable(after)) and owned == fs.owned_fields(
        after, manager, api_version
    )


def _update(candidate: Candidate, live: Obj, after: Obj, manager: str) -> Update:
    patch = patch_between(live, after)
    changes = annotated(
        field_changes(live, after, patch, manager),
        candidate.revert,
        candidate.notes,
        candidate.key.kind,
    )
    if candidate.adopting:
        reason = _adoption_reason(changes)
    elif patch:
        reason = _update_reason(changes)
    elif candidate.revert is not None:
        reason = "fields set outside Git come back as the server's defaults; their owner goes"
    else:
        reason = _ownership_reason(live, after, manager)
    if candidate.notes.reason:
        reason = f"{candidate.notes.reason}; {reason}"
    notes = candidate.notes
    kind = Adopt if candidate.adopting else Update
    return kind(
        candidate.key,
        reason,
        candidate.manifest,
        tuple(patch),
        changes,
        revert=candidate.revert,
        apply=candidate.apply,
        kept=notes.kept,
        foreign=notes.foreign,
    )


def annotated(
    changes: Sequence[FieldChange], revert: FieldRevert | None, notes: FieldNotes, kind: str
) -> tuple[FieldChange, ...]:
    """Each change with why it happens (a field set outside Git, an ignored field Git
    changed) and, for a fight, how many runs in a row corrected it before."""
    reverted = revert.fields if revert is not None else ()
    out = []
    for change in changes:
        note = next((why for path, why in notes.change_notes if _within(change.field, path)), "")
        if any(_within(change.field, path) for path in reverted):
            verb = "added" if change.op == "remove" else "set"
            note = f"{verb} by {', '.join(change.managers) or 'another manager'}, not in Git"
        out.append(replace(change, note=note))
    counted = fights.counted(out, kind, {(kind, name): e for name, e in notes.corrections.items()})
    return tuple(replace(ch, note=fights.fight_note(ch)) if ch.corrected else ch for ch in counted)


def _within(field: fs.FieldPath, path: fs.FieldPath) -> bool:
    return bool(field) and field[: len(path)] == path


def _update_reason(changes: Sequence[FieldChange]) -> str:
    managers = ", ".join(managers_of(changes))
    if any(change.corrected for change in changes):
        return f"differs from Git again; a fight with {managers}"
    if managers and all(change.note.endswith("not in Git") for change in changes):
        return f"fields set outside Git by {managers}"
    if managers:
        return f"differs from Git; changed in the cluster by {managers}"
    return "differs from Git"


def _adoption_reason(changes: Sequence[FieldChange]) -> str:
    managers = ", ".join(managers_of(changes))
    return f"taken over from {managers}" if managers else "taken over"


def _ownership_reason(live: Obj, after: Obj, manager: str) -> str:
    api_version = str(after.get("apiVersion", ""))
    gained = fs.owned_fields(after, manager, api_version) - fs.owned_fields(
        live, manager, api_version
    )
    shown = (
        ", ".join(sorted(fs.display_path(path) for path in gained)[:3])
        or "fields it no longer sets"
    )
    return f"values equal Git; driftctl takes back ownership of {shown}"
