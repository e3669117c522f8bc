"""What an apply did: every object's outcome, each WebApp's rollout, and the exit code.

Values only, built by the shell as it carries out a plan, rendered by render.plan (which
outcome each plan verb becomes is core.planning.verbs' table). Every
object gets exactly one outcome; a failed one carries the reason and the others still
run. A prune refused by a guard also fails the run: the cluster is not equal to Git.
With `apply --wait`, a rollout of a WebApp the run changed that did not complete (it
stalled, or the time ran out) ends the run with its own exit code.
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
    # A removal waiting for a person's approval (prune policy confirm): recorded by this run,
    # or recorded before; its reason says the command that approves it
    WAITING = "waiting"


class RolloutState(enum.StrEnum):
    """Where a WebApp's rollout is, as its status says (core.planning.status.state_of)."""

    COMPLETE = "complete"  # Ready: the declared version runs
    PROGRESSING = "progressing"
    STALLED = "stalled"  # waiting will not fix it
    TIMED_OUT = "timed_out"  # apply --wait: still progressing when --wait-timeout ran out


Rollouts = tuple[tuple[ObjectKey, RolloutState], ...]


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
    rollouts: Rollouts = ()  # each WebApp whose status the run computed, as it last saw it
    ended: Rollouts = ()  # the rollouts the run saw end: turned complete, or stalled
    # In progress, seen at their new Pods: a Pod that cannot start changes nothing a watch
    # of WebApps and Deployments sees, so `watch` looks at these again.
    rolling: frozenset[ObjectKey] = frozenset()
    waited: frozenset[ObjectKey] | None = None  # apply --wait: the WebApps waited for
    stalls: tuple[tuple[ObjectKey, str], ...] = ()  # why each stalled rollout is stalled

    def count(self, outcome: Outcome) -> int:
        return sum(1 for item in self.outcomes if item.outcome is outcome)

    def count_rollouts(self, state: RolloutState) -> int:
        return sum(1 for _, seen in self.rollouts if seen is state)

    @property
    def not_rolled_out(self) -> list[tuple[ObjectKey, RolloutState]]:
        """The WebApps waited for whose rollout did not complete."""
        waited = self.waited or frozenset()
        return [
            (key, state)
            for key, state in self.rollouts
            if key in waited and state is not RolloutState.COMPLETE
        ]

    @property
    def exit_code(self) -> ExitCode:
        """0 when everything succeeded; 5 when an object failed or a guard refused a prune;
        7 when everything applied but a rollout waited for did not complete."""
        failed = self.count(Outcome.FAILED) > 0 or bool(self.refusals)
        if failed:
            return ExitCode.PARTIAL_FAILURE
        return ExitCode.NOT_ROLLED_OUT if self.not_rolled_out else ExitCode.OK
