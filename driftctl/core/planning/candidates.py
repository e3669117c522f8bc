"""What the plan's first step leaves for the dry-runs: the candidates, each with what the
plan says of its fields besides their changes, and the plan so far (`Preparation`).

core.planning.preparation makes a Preparation; the engine dry-runs its candidates
(pipeline.engine) and core.planning.plan.finish turns the answers into actions
(core.planning.actions). Pure values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from driftctl.core.planning.actions import Action, FieldRevert
from driftctl.core.planning.changes import Foreign, Kept
from driftctl.core.planning.controls import Hold
from driftctl.core.planning.fieldset import FieldPath
from driftctl.core.planning.objects import Obj, ObjectKey
from driftctl.core.source.model import Place


@dataclass(frozen=True)
class FieldNotes:
    """What the plan says of an object's fields besides their changes.

    `kept` and `foreign` as in Update; `change_notes` are the notes shown beside changed
    fields (an ignored field Git changed); `corrections` is the object's part of the WebApp's
    record of corrections, for fights (core.planning.fights).
    """

    kept: tuple[Kept, ...] = ()
    foreign: tuple[Foreign, ...] = ()
    change_notes: tuple[tuple[FieldPath, str], ...] = ()
    corrections: Mapping[str, Obj] = field(default_factory=dict)  # field -> status entry
    reason: str = ""  # said first, e.g. that a hand-made WebApp is adopted


@dataclass(frozen=True)
class Candidate:
    """An object the prefilter could not clear: send `manifest` as a dry-run apply (when
    `apply`), and `revert` as a dry-run JSON Patch (when set). `adopting`: it is not this
    instance's yet, and what the dry-run shows is an Adopt."""

    key: ObjectKey
    manifest: Obj
    live: Obj | None
    revert: FieldRevert | None = None
    apply: bool = True
    notes: FieldNotes = FieldNotes()
    adopting: bool = False


Entry = Action | Candidate  # one object's place in a Preparation: decided, or to dry-run


@dataclass(frozen=True)
class DryRunError:
    """The API server refused a dry-run (e.g. 422 Invalid); the message says why."""

    message: str


DryRunResult = Obj | DryRunError | None  # None: the server created it and sent no body


@dataclass(frozen=True)
class Preparation:
    """The plan so far: decided actions and candidates, in the order of the plan.

    `holds`: objects a control holds whatever their action turns out to be (a suspension,
    both of a WebApp's changes and drift held); `lifted`: the windows this run goes through;
    `suspended`: why the instance is suspended.
    """

    entries: tuple[Entry, ...]
    declared: tuple[ObjectKey, ...]
    refusals: tuple[str, ...]
    revision: str
    manager: str
    holds: Mapping[ObjectKey, Hold] = field(default_factory=dict)
    lifted: Mapping[Place, str] = field(default_factory=dict)
    suspended: str = ""  # why the whole instance is suspended ("": it is not)

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """The objects to dry-run, each with the manifest to send."""
        return tuple(entry for entry in self.entries if isinstance(entry, Candidate))

    @property
    def updates(self) -> tuple[Candidate, ...]:
        """The candidates that exist in the cluster: what apply dry-runs (see Create)."""
        return tuple(each for each in self.candidates if each.live is not None)
