"""What an apply did: every object's outcome and the exit code.

Values only, built by the shell as it carries out a plan, rendered by render.plan (which
outcome each plan verb becomes is core.planning.verbs' table). Every
object gets exactly one outcome; a failed one carries the reason and the others still
run. A prune refused by a guard also fails the run: the cluster is not equal to Git.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from driftctl.core.planning.objects import ObjectKey
from driftctl.errors import ExitCode


class Outcome(enum.StrEnum):
    """What happened to one object when a plan was carried out."""

    CREATED = "created"
    CONFIGURED = "configured"
    UNCHANGED = "unchanged"
    DELETED = "deleted"
    SKIPPED = "skipped"
    FAILED = "failed"
    HELD = "held"  # a control held what the plan would have done (a success, not a failure)
    ORPHANED = "orphaned"  # deleted from Git's side, its Deployment released and kept


@dataclass(frozen=True)
class ObjectOutcome:
    """One object's outcome and, for skipped or failed, why."""

    key: ObjectKey
    outcome: Outcome
    reason: str = ""


@dataclass(frozen=True)
class ApplyReport:
    """Every outcome in the order they happened, and the guards' refusals."""

    outcomes: tuple[ObjectOutcome, ...]
    revision: str = ""
    refusals: tuple[str, ...] = ()
    held: tuple[tuple[str, int], ...] = ()  # objects held, by control (core.planning.controls)
    suspended: str = ""  # why the whole instance is suspended ("": it is not)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for item in self.outcomes if item.outcome is outcome)

    @property
    def exit_code(self) -> ExitCode:
        """0 when everything succeeded; 5 when an object failed or a guard refused a prune."""
        failed = self.count(Outcome.FAILED) > 0 or bool(self.refusals)
        return ExitCode.PARTIAL_FAILURE if failed else ExitCode.OK
