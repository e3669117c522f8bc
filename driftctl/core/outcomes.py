"""What an apply did to each object: a fixed set of results and the run's summary.

Values only, built by the shell as it carries out a plan and rendered by render.plan.
Every object gets exactly one outcome; a failed one carries the reason, and the others
still run (the exit code then says 5).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from driftctl.core.objects import ObjectKey
from driftctl.errors import ExitCode


class Result(enum.StrEnum):
    """The result of carrying out one plan entry."""

    CREATED = "created"
    CONFIGURED = "configured"
    UNCHANGED = "unchanged"
    DELETED = "deleted"
    SKIPPED = "skipped"
    FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    """One object's result and, for skipped and failed ones, why."""

    key: ObjectKey
    result: Result
    reason: str = ""


@dataclass(frozen=True)
class ApplyReport:
    """Every outcome in the order they happened, and what stopped the run early, if anything."""

    outcomes: tuple[Outcome, ...]
    revision: str = ""
    refusals: tuple[str, ...] = ()  # prune guards that refused

    def count(self, result: Result) -> int:
        return sum(1 for outcome in self.outcomes if outcome.result is result)

    @property
    def exit_code(self) -> ExitCode:
        """0 when everything succeeded, 5 when some object failed or a guard refused."""
        failed = self.count(Result.FAILED) > 0 or bool(self.refusals)
        return ExitCode.PARTIAL_FAILURE if failed else ExitCode.OK


def failed(outcomes: Sequence[Outcome]) -> list[Outcome]:
    return [outcome for outcome in outcomes if outcome.result is Result.FAILED]
