"""The plan's data: one small type per action, the candidates for dry-run, and the plan.

Values only: built by core.planning.preparation and core.planning.plan, carried out by
the shell, rendered by render.plan. Each action type has exactly the fields that action
needs, so an impossible combination (a replace without the delete that precedes it, a
prune with a manifest) cannot be built, and the shell never checks one at run time. An
action carries everything the shell needs to act (manifest, delete options, the guarded
finalizer patch, what cleanup deletes), so the shell decides nothing.

Every action has a `verb`: the word plans print and JSON reports (`create`, `update`...);
what each verb means (how it is printed and counted, whether it writes, what apply reports)
is core.planning.verbs' table. The actions that write nothing are `Quiet`: apply reports
them without a request.

`Plan.stages` says in what order the shell acts: stages run one after the other, each a
set of independent chains; a chain is one WebApp's pipeline (the WebApp, then its
Deployment, which needs the WebApp's uid, then its status), run step by step, so a
Deployment goes as soon as its own WebApp is applied, not after every WebApp.

What the plan says about fields beyond its changes rides along: `kept` (ignored fields that
differ from Git) and `foreign` (other managers' fields, for `plan --show-foreign`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from driftctl import conventions as c
from driftctl.core.planning.changes import FieldChange, Foreign, Kept, Operation, managers_of
from driftctl.core.planning.controls import Control, Hold
from driftctl.core.planning.fieldset import FieldPath
from driftctl.core.planning.objects import Obj, ObjectKey
from driftctl.core.planning.outcomes import Outcome
from driftctl.core.planning.verbs import SUCCESS, Verb, meaning
from driftctl.core.source.model import Place
from driftctl.errors import ExitCode

if TYPE_CHECKING:
    from driftctl.core.planning.candidates import Candidate

Patch = tuple[Operation, ...]  # RFC 6902, live -> result


@dataclass(frozen=True)
class FieldRevert:
    """Fields set outside Git (core.planning.outside_git), reverted by a JSON Patch before
    the apply.

    `patch` first tests the resourceVersion the plan was made from; `fields` are what it
    removes, as field paths.
    """

    fields: tuple[FieldPath, ...]
    patch: Patch


@dataclass(frozen=True)
class OwnedDelete:
    """An object cleanup deletes before the finalizer goes, with its delete options."""

    key: ObjectKey
    body: Obj


@dataclass(frozen=True)
class Create:
    """Apply `manifest` to create an object the cluster lacks.

    `owner` names the WebApp whose uid a new Deployment's ownerReference still needs: the
    shell fills it in (bind_owner) once that WebApp is applied.

    `unchecked`: apply sent no dry-run for it, because the create's own answer tells the
    same (a dry-run of a create can only answer "created" or refuse). If the server refuses
    the create, `after_refusal` turns the chain into what a plan with that dry-run says.
    """

    key: ObjectKey
    reason: str
    manifest: Obj
    patch: Patch
    owner: ObjectKey | None = None
    unchecked: bool = False
    verb: ClassVar[Verb] = Verb.CREATE


@dataclass(frozen=True)
class Update:
    """Apply `manifest` over a live object that differs from Git (or whose fields moved).

    `revert`, when set, is sent first: it removes fields set outside Git. `apply` is False
    when nothing else differs, and then no server-side apply is sent.

    `unchecked` (watch): no dry-run was sent, because nobody reads a plan before the
    apply; the writes' own answers tell what changed (core.planning.from_dry_runs.answered,
    from this candidate), so `changes` and `patch` stay empty until then.
    """

    key: ObjectKey
    reason: str
    manifest: Obj
    patch: Patch
    changes: tuple[FieldChange, ...]
    owner: ObjectKey | None = None
    revert: FieldRevert | None = None
    apply: bool = True
    kept: tuple[Kept, ...] = ()
    foreign: tuple[Foreign, ...] = ()
    unchecked: Candidate | None = None
    verb: ClassVar[Verb] = Verb.UPDATE

    @property
    def managers(self) -> tuple[str, ...]:
        """The other field managers of the changed fields (who changed them)."""
        return managers_of(self.changes)


@dataclass(frozen=True)
class Adopt(Update):
    """An update that takes an existing object under this instance as it runs: a WebApp
    made without an instance label, or a Deployment its WebApp controls whose live selector
    is kept (and its Pod template with it), so that no Pod restarts. Carried out as an
    update is; `--recreate` moves such a Deployment to driftctl's selector instead."""

    verb: ClassVar[Verb] = Verb.ADOPT


@dataclass(frozen=True)
class Unchanged:
    """Nothing to write: the live object equals Git."""

    key: ObjectKey
    reason: str = ""
    kept: tuple[Kept, ...] = ()
    foreign: tuple[Foreign, ...] = ()
    verb: ClassVar[Verb] = Verb.UNCHANGED


@dataclass(frozen=True)
class Replace:
    """An immutable field differs: delete the live object (`delete`), then apply `manifest`."""

    key: ObjectKey
    reason: str
    manifest: Obj
    patch: Patch
    changes: tuple[FieldChange, ...]
    delete: Obj
    verb: ClassVar[Verb] = Verb.REPLACE

    @property
    def managers(self) -> tuple[str, ...]:
        return managers_of(self.changes)


@dataclass(frozen=True)
class Prune:
    """Delete what Git no longer declares; a WebApp's cleanup then runs (`owned`, finalizer)."""

    key: ObjectKey
    reason: str
    delete: Obj  # DeleteOptions with uid and resourceVersion preconditions
    finalizer_patch: Patch = ()  # guarded removal after cleanup (WebApps only)
    owned: tuple[OwnedDelete, ...] = ()  # what cleanup deletes first (WebApps only)
    verb: ClassVar[Verb] = Verb.PRUNE


@dataclass(frozen=True)
class Cleanup:
    """Finish a deletion someone asked for: delete what the WebApp owns, remove the finalizer."""

    key: ObjectKey
    reason: str
    finalizer_patch: Patch
    owned: tuple[OwnedDelete, ...]
    verb: ClassVar[Verb] = Verb.CLEANUP


@dataclass(frozen=True)
class Skip:
    """Nothing is done, for `reason`. `changes` is drift that stays (a replace not allowed);
    `undeclared`: an object Git does not declare that this run's flags leave in place
    (--no-prune, a prune a guard refused), drift that stays too."""

    key: ObjectKey
    reason: str
    changes: tuple[FieldChange, ...] = ()
    undeclared: bool = False
    verb: ClassVar[Verb] = Verb.SKIP


@dataclass(frozen=True)
class Refused:
    """The API server refused the dry-run (e.g. 422 Invalid): Git cannot be applied; apply
    reports the object failed."""

    key: ObjectKey
    reason: str
    error: str
    verb: ClassVar[Verb] = Verb.SKIP


@dataclass(frozen=True)
class Conflict:
    """Another owner's object under a name Git declares: never written, not even with
    --recreate; apply reports it failed."""

    key: ObjectKey
    reason: str
    verb: ClassVar[Verb] = Verb.CONFLICT


@dataclass(frozen=True)
class Held:
    """What the plan would have done to an object (`would`: create, update, prune...), held by
    a control: a suspension, a change or drift policy, a window, a removal that waits
    (core.planning.controls). Nothing is sent; `changes` and `kept` say what stays as it is.
    """

    key: ObjectKey
    reason: str
    would: Verb
    control: str  # core.planning.controls.Control: which kind of control holds it
    changes: tuple[FieldChange, ...] = ()
    kept: tuple[Kept, ...] = ()
    verb: ClassVar[Verb] = Verb.HOLD


@dataclass(frozen=True)
class Release:
    """A Deployment an orphaning releases: a guarded JSON Patch that removes its
    ownerReference to the WebApp and the labels that claim it for this instance."""

    key: ObjectKey
    patch: Patch


@dataclass(frozen=True)
class Orphan:
    """Absent from Git, prune policy orphan: release what it owns (`released`), then delete
    the WebApp (`delete`, then its finalizer, with no cleanup to run). A Deployment whose
    WebApp is already gone is only released (`delete` is None)."""

    key: ObjectKey
    reason: str
    delete: Obj | None = None
    finalizer_patch: Patch = ()
    released: tuple[Release, ...] = ()
    verb: ClassVar[Verb] = Verb.ORPHAN


@dataclass(frozen=True)
class Quarantine:
    """Absent from Git, prune policy quarantine: apply `manifest`, what driftctl owns of the
    object with the WebApp's removal recorded, or its Deployment's replicas at zero."""

    key: ObjectKey
    reason: str
    manifest: Obj
    patch: Patch
    verb: ClassVar[Verb] = Verb.QUARANTINE


@dataclass(frozen=True)
class Confirm:
    """Absent from Git, prune policy confirm: apply `manifest`, what driftctl owns of the
    WebApp with its removal recorded (the revision an approval must name)."""

    key: ObjectKey
    reason: str
    manifest: Obj
    patch: Patch
    verb: ClassVar[Verb] = Verb.CONFIRM


Action = (
    Create
    | Update
    | Adopt
    | Unchanged
    | Replace
    | Prune
    | Cleanup
    | Skip
    | Refused
    | Conflict
    | Held
    | Orphan
    | Quarantine
    | Confirm
)
Removal = Prune | Cleanup
# Acted on first, each alone: what removes objects or starts their removal.
Removing = Prune | Cleanup | Orphan | Quarantine | Confirm
Quiet = Unchanged | Skip | Refused | Conflict | Held  # write nothing: see outcome_of
Marking = Quarantine | Confirm  # absent from Git: an apply of what driftctl owns, marked


@dataclass(frozen=True)
class WriteStatus:
    """The last step of a WebApp's chain: write its status (core.planning.status) from the
    WebApp and Deployment as the run now holds them, if it changed."""

    key: ObjectKey


Step = Action | WriteStatus
Chain = tuple[Step, ...]  # steps of one WebApp, carried out in order


def patch_of(action: Action) -> Patch:
    """The patch from the live object to the result (empty where nothing is applied)."""
    if isinstance(action, Create | Update | Replace | Quarantine | Confirm):
        return action.patch
    return ()


def changes_of(action: Action) -> tuple[FieldChange, ...]:
    """The field changes an action makes, or would make (a blocked replace, a held one)."""
    if isinstance(action, Update | Replace | Skip | Held):
        return action.changes
    return ()


def is_changing(action: Action) -> bool:
    """Whether carrying out this action writes to the cluster."""
    return meaning(action.verb).writes


# How the reason of a removal waiting for a person's approval says so, before the command
# that approves it (core.planning.pending writes it; outcome_of reads it back)
AWAITS_APPROVAL = "waits for an approval: "


def awaits_approval(action: Action) -> bool:
    """Whether `action` is a removal waiting for a person's approval (prune policy confirm):
    its removal recorded by this run (Confirm), or recorded before and held since."""
    if isinstance(action, Confirm):
        return True
    return (
        isinstance(action, Held)
        and action.would is Verb.PRUNE
        and action.control == Control.REMOVAL
        and AWAITS_APPROVAL in action.reason
    )


def outcome_of(action: Action) -> Outcome:
    """What apply reports once it carried `action` out without error: its verb's outcome,
    but failed for a Refused one (Git cannot be applied), and waiting for a removal held
    until a person approves it."""
    if isinstance(action, Refused):
        return Outcome.FAILED
    return Outcome.WAITING if awaits_approval(action) else SUCCESS[action.verb]


def kept_of(action: Action) -> tuple[Kept, ...]:
    """Fields that differ from Git and stay as the cluster has them: ignored, or held."""
    return action.kept if isinstance(action, Update | Unchanged | Held) else ()


def foreign_of(action: Action) -> tuple[Foreign, ...]:
    """Fields of other managers that Git does not declare (only with --show-foreign)."""
    return action.foreign if isinstance(action, Update | Unchanged) else ()


@dataclass(frozen=True)
class Plan:
    """Every object's action, the WebApps Git declares, and the guards' refusals.

    `actions` are in the order a person reads them: removals first, then each WebApp
    followed by its Deployment. `stages` is the order to act in (module docstring).
    """

    actions: tuple[Action, ...]
    declared: tuple[ObjectKey, ...] = ()  # WebApps whose status a run writes
    refusals: tuple[str, ...] = ()
    revision: str = ""
    # The windows this run goes through (--override-windows), per WebApp: its Event says so.
    lifted: Mapping[Place, str] = field(default_factory=dict)
    suspended: str = ""  # why the whole instance is suspended: nothing is written ("": not)
    # Objects a control holds whole (a suspension...), whatever their action: a suspended
    # WebApp's status says so even when nothing of it would change.
    holds: Mapping[ObjectKey, Hold] = field(default_factory=dict)

    @property
    def stages(self) -> tuple[tuple[Chain, ...], ...]:
        """Removals and pending cleanups, each alone; then one chain per WebApp.

        Each stage finishes before the next starts (a WebApp cleaned up and created again
        is gone before it is created); the chains inside a stage are independent.
        """
        removals = tuple((a,) for a in self.actions if isinstance(a, Removing))
        chains: dict[Place, list[Step]] = {}
        for action in self.actions:
            if not isinstance(action, Removing):
                chains.setdefault(action.key.place, []).append(action)
        for key in self.declared:
            chains.setdefault(key.place, []).append(WriteStatus(key))
        return removals, tuple(tuple(steps) for steps in chains.values())

    def count(self, verb: Verb) -> int:
        """How many actions have `verb`."""
        return sum(1 for action in self.actions if action.verb is verb)

    @property
    def has_changes(self) -> bool:
        """Whether applying the plan would write anything."""
        return any(is_changing(action) for action in self.actions)

    @property
    def differs(self) -> bool:
        """Whether the cluster differs from Git (plan's exit code 1): a change to make, drift
        that this run's flags leave in place (a replace without --recreate, an undeclared
        WebApp with --no-prune), what a control holds, or a conflict."""
        return self.has_changes or any(
            changes_of(action)
            or isinstance(action, Conflict | Held)
            or (isinstance(action, Skip) and action.undeclared)
            for action in self.actions
        )

    @property
    def fails(self) -> bool:
        """Whether carrying the plan out fails an object (refused by the API server, another
        owner's) or has prunes refused by a guard: apply's exit code 5."""
        return bool(self.refusals) or any(
            outcome_of(action) is Outcome.FAILED for action in self.actions
        )

    @property
    def exit_code(self) -> ExitCode:
        """`plan`'s exit code, the one `apply` with the same flags gives where apply fails:
        5 when apply would fail (`fails`), else 1 when the cluster differs from Git, else 0."""
        if self.fails:
            return ExitCode.PARTIAL_FAILURE
        return ExitCode.CHANGES if self.differs else ExitCode.OK


def bind_owner(manifest: Obj, owner_uid: str) -> Obj:
    """A copy of a Deployment manifest whose WebApp ownerReference gets `owner_uid`."""
    out = copy.deepcopy(manifest)
    for ref in out.get("metadata", {}).get("ownerReferences", []):
        if ref.get("kind") == c.KIND and not ref.get("uid"):
            ref["uid"] = owner_uid
    return out
