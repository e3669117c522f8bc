"""`apply --wait`: which WebApps a run waits for, and what the wait found. Pure.

A run waits for the rollouts of the WebApps it changed: a place (a WebApp and its
Deployment) where an object was created or configured and none failed. It waits until
each is Stalled, or complete with its completion confirmed (core.planning.status: its new
Pods ready 10 s without a break; a container that exits at once is counted available for
an instant, core.planning.rollout); one still progressing (or not confirmed) when
`--wait-timeout` is gone has timed out. The exit code follows from the report
(core.planning.outcomes).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, Outcome, Rollouts, RolloutState

CHANGED = frozenset({Outcome.CREATED, Outcome.CONFIGURED})


def waited_for(report: ApplyReport) -> frozenset[ObjectKey]:
    """The WebApps whose rollout `apply --wait` follows: those the run changed, whose
    status it computed, none of whose objects failed."""
    changed = {each.key.place for each in report.outcomes if each.outcome in CHANGED}
    failed = {each.key.place for each in report.outcomes if each.outcome is Outcome.FAILED}
    return frozenset(key for key, _ in report.rollouts if key.place in changed - failed)


def settled(state: RolloutState | None) -> bool:
    """Whether the wait for a rollout is over: Stalled, or complete (confirmed)."""
    return state in (RolloutState.STALLED, RolloutState.COMPLETE)


def pending(
    states: Mapping[ObjectKey, RolloutState], waited: AbstractSet[ObjectKey]
) -> list[ObjectKey]:
    """The WebApps waited for whose wait is not over, in a stable order."""
    return sorted(key for key in waited if not settled(states.get(key)))


def finished(states: Mapping[ObjectKey, RolloutState], waited: AbstractSet[ObjectKey]) -> Rollouts:
    """Each WebApp's rollout as the wait ends: one waited for whose wait is not over has
    timed out."""
    return tuple(
        (
            key,
            RolloutState.TIMED_OUT if key in waited and not settled(state) else state,
        )
        for key, state in states.items()
    )
