"""The plan's data: the action enum, entries, candidates for dry-run, and the plan itself.

Values only: built by core.plan, carried out by the shell, rendered by render.plan. An
entry carries everything the shell needs to act (manifest, delete options, the guarded
finalizer patch, what cleanup deletes), so the shell decides nothing.
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass, field

from driftctl import conventions as c
from driftctl.core.changes import FieldChange, Operation
from driftctl.core.guards import PruneOptions
from driftctl.core.objects import Obj, ObjectKey


class Action(enum.StrEnum):
    """What a run does with one object."""

    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    PRUNE = "prune"  # delete (through the finalizer for a WebApp): absent from Git
    CLEANUP = "cleanup"  # a Terminating WebApp whose cleanup is pending
    REPLACE = "replace"  # an immutable field differs: delete and create again
    SKIP = "skip"  # nothing will be done, for the reason given


CHANGING = frozenset({Action.CREATE, Action.UPDATE, Action.PRUNE, Action.CLEANUP, Action.REPLACE})


@dataclass(frozen=True)
class OwnedDelete:
    """An object cleanup deletes before the finalizer goes, with its delete options."""

    key: ObjectKey
    body: Obj


@dataclass(frozen=True)
class PlanEntry:
    """One object's action and everything the shell needs to carry it out."""

    key: ObjectKey
    action: Action
    reason: str = ""
    patch: tuple[Operation, ...] = ()  # RFC 6902, live -> result; empty for prune/cleanup
    changes: tuple[FieldChange, ...] = ()
    managers: tuple[str, ...] = ()  # other managers of the changed fields
    manifest: Obj | None = None  # what to apply (create, update, replace)
    owner: ObjectKey | None = None  # the WebApp whose uid `manifest` still needs
    delete: Obj | None = None  # DeleteOptions with preconditions (prune, replace)
    finalizer_patch: tuple[Operation, ...] = ()  # guarded removal after cleanup
    owned: tuple[OwnedDelete, ...] = ()  # what cleanup deletes first
    error: str | None = None  # the server refused the dry-run

    @property
    def changing(self) -> bool:
        """Whether carrying out this entry writes to the cluster."""
        return self.action in CHANGING


@dataclass(frozen=True)
class Candidate:
    """An object the prefilter could not clear: send `manifest` as a dry-run apply."""

    key: ObjectKey
    manifest: Obj
    live: Obj | None


@dataclass(frozen=True)
class DryRunError:
    """The API server refused a dry-run (e.g. 422 Invalid); the message says why."""

    message: str


DryRunResult = Obj | DryRunError | None  # None: the server created it and sent no body


@dataclass(frozen=True)
class PlanOptions:
    """What changes a plan: the field manager and the prune flags."""

    manager: str = c.FIELD_MANAGER
    prune: PruneOptions = field(default_factory=PruneOptions)


@dataclass(frozen=True)
class Preparation:
    """The plan so far: decided entries and candidates, in the order to act in."""

    slots: tuple[PlanEntry | Candidate, ...]
    refusals: tuple[str, ...]
    revision: str
    manager: str

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """The objects to dry-run, each with the manifest to send."""
        return tuple(slot for slot in self.slots if isinstance(slot, Candidate))


@dataclass(frozen=True)
class Plan:
    """Every object's entry in the order to act in, and the guards' refusals."""

    entries: tuple[PlanEntry, ...]
    refusals: tuple[str, ...] = ()
    revision: str = ""

    def count(self, action: Action) -> int:
        """How many entries have `action`."""
        return sum(1 for entry in self.entries if entry.action is action)

    @property
    def has_changes(self) -> bool:
        """Whether applying the plan would write anything (plan's exit code 1)."""
        return any(entry.changing for entry in self.entries)


def bind_owner(manifest: Obj, owner_uid: str) -> Obj:
    """A copy of a Deployment manifest whose WebApp ownerReference gets `owner_uid`."""
    out = copy.deepcopy(manifest)
    for ref in out.get("metadata", {}).get("ownerReferences", []):
        if ref.get("kind") == c.KIND and not ref.get("uid"):
            ref["uid"] = owner_uid
    return out


class Outcome(enum.StrEnum):
    """What happened to one object when a plan was carried out."""

    CREATED = "created"
    CONFIGURED = "configured"
    UNCHANGED = "unchanged"
    DELETED = "deleted"
    SKIPPED = "skipped"
    FAILED = "failed"


# The outcome of an entry carried out without error (replace counts as configured).
SUCCESS: dict[Action, Outcome] = {
    Action.CREATE: Outcome.CREATED,
    Action.UPDATE: Outcome.CONFIGURED,
    Action.REPLACE: Outcome.CONFIGURED,
    Action.UNCHANGED: Outcome.UNCHANGED,
    Action.PRUNE: Outcome.DELETED,
    Action.CLEANUP: Outcome.DELETED,
    Action.SKIP: Outcome.SKIPPED,
}


@dataclass(frozen=True)
class ObjectOutcome:
    """One object's outcome and, for skipped or failed, why."""

    key: ObjectKey
    outcome: Outcome
    reason: str = ""
