"""`apply --wait`: which WebApps a run waits for, and what the wait found. Pure.

A run waits for the rollouts of the WebApps it changed: a place (a WebApp and its
Deployment) where an object was created or configured and none failed. It waits until
each is Ready (complete) or Stalled; one still progressing when `--wait-timeout` is gone
has timed out. The exit code follows from the report (core.planning.outcomes).
"""

from __future__ import annotations

from collections.abc import Mapping

from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, Outcome, Rollouts, RolloutState

CHANGED = frozenset({Outcome.CREATED, Outcome.CONFIGURED})


def waited_for(report: ApplyReport) -> frozenset[ObjectKey]:
    """The WebApps whose rollout `apply --wait` follows: those the run changed, whose
    status it computed, none of whose objects failed."""
    changed = {each.key.place for each in report.outcomes if each.outcome in CHANGED}
    failed = {each.key.place for each in report.outcomes if each.outcome is Outcome.FAILED}
    return frozenset(key for key, _ in report.rollouts if key.place in changed - failed)


def pending(
    states: Mapping[ObjectKey, RolloutState], waited: frozenset[ObjectKey]
) -> list[ObjectKey]:
    """The WebApps waited for whose rollout is still in progress, in a stable order."""
    return sorted(key for key in waited if states.get(key) is RolloutState.PROGRESSING)


def finished(states: Mapping[ObjectKey, RolloutState], waited: frozenset[ObjectKey]) -> Rollouts:
    """Each WebApp's rollout as the wait ends: one waited for and still in progress has
    timed out."""
    return tuple(
        (
            key,
            RolloutState.TIMED_OUT
            if key in waited and state is RolloutState.PROGRESSING
            else state,
        )
        for key, state in states.items()
    )
