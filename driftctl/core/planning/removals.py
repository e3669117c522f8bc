"""Removals: what leaves the cluster in a run.

Pure. Pending cleanups of Terminating WebApps (a delete someone already asked for), and
prunes of what Git no longer declares, under the guards of core.planning.guards, then as
each one's prune policy says (core.planning.pending), unless a control holds it: a
suspension, or a window closed on prunes (core.planning.controls). A Deployment is removed
with its owner (listed in the owner's action as `owned`), or on its own only when no live
WebApp owns it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from driftctl.core.planning.actions import Action, Cleanup, Held, Skip, is_changing
from driftctl.core.planning.controls import (
    Hold,
    instance_hold,
    of_removal,
    suspension_hold,
)
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step, remove_patch
from driftctl.core.planning.guards import check_prunes, is_ours
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj, key_of
from driftctl.core.planning.pending import Going, owned_deletes, removal
from driftctl.core.source.model import Place, WebApp
from driftctl.policies import Propagation
from driftctl.settings import Policy

__all__ = ["Going", "Removals", "cleanup", "plan_removals"]


def cleanup(
    live: Obj, state: LiveState, reason: str, propagation: Propagation = Propagation.BACKGROUND
) -> Cleanup:
    """Finish a requested deletion: delete what the WebApp owns, then remove the finalizer."""
    return Cleanup(
        key_of(live),
        reason,
        finalizer_patch=tuple(remove_patch(live) or ()),
        owned=owned_deletes(live, state, Policy(propagation=propagation)),
    )


@dataclass(frozen=True)
class Removals:
    """A run's removals in the order found (those a control holds already Held), the guards'
    refusals, and the windows gone through, per WebApp."""

    actions: list[Action]
    refusals: tuple[str, ...] = ()
    lifted: dict[Place, str] = field(default_factory=dict)


def plan_removals(
    desired: Sequence[WebApp],
    state: LiveState,
    going: Going,
    focus: frozenset[Place] | None = None,
) -> Removals:
    """Cleanups of Terminating WebApps, and prunes (guarded, then by policy) of what Git no
    longer declares.

    `desired` is everything Git declares; `state` may be one shard's part of the live
    state, so --max-prune counts that shard's managed objects. With `focus`, only the
    removals at those places are returned, decided by guards that counted all of `state`.
    """
    wanted = {app.place for app in desired}
    removals: list[Action] = []
    candidates: list[Obj] = []
    for place, live in sorted(state.webapps.items()):
        step = finalizer_step(live)
        if place in wanted:
            continue
        outside = focus is not None and place not in focus
        if outside and step in (FinalizerStep.CLEANUP, FinalizerStep.NOTHING):
            continue  # not counted by a guard: only its own reconcile needs it
        if step is FinalizerStep.CLEANUP:
            why = "deleted in the cluster; cleanup is pending"
            pending = cleanup(live, state, why, going.policy.propagation)
            removals.append(_suspended(pending, live, going))
        elif step is FinalizerStep.NOTHING:
            removals.append(Skip(key_of(live), "being deleted without driftctl's finalizer"))
        else:
            candidates.append(live)
    orphans = [dep for dep in state.orphans(going.instance) if key_of(dep).place not in wanted]
    managed = sum(1 for obj in state.webapps.values() if is_ours(obj, going.instance))
    candidates += orphans
    counts = (len(desired), managed + len(orphans))
    decision = check_prunes(candidates, going.instance, counts, going.policy)
    shown = [
        verdict
        for verdict in decision.verdicts
        if focus is None or key_of(verdict.obj).place in focus
    ]
    lifted: dict[Place, str] = {}
    for verdict in shown:
        if verdict.reason is not None:
            removals.append(Skip(key_of(verdict.obj), verdict.reason))
            continue
        controls = of_removal(verdict.obj, going.policy, going.situation, going.manager)
        for action in removal(verdict.obj, state, controls, going):
            removals.append(_held(action, controls.hold))
        if controls.lifted:
            lifted[key_of(verdict.obj).place] = controls.lifted
    refused = decision.refusal is not None and any(
        verdict.reason == decision.refusal for verdict in shown
    )
    return Removals(
        removals,
        (decision.refusal,) if refused and decision.refusal else (),
        lifted=lifted,
    )


def _held(action: Action, hold: Hold | None) -> Action:
    if hold is None or not is_changing(action):
        return action
    return Held(action.key, hold.reason, action.verb, hold.control)


def _suspended(action: Cleanup, live: Obj, going: Going) -> Action:
    """A pending cleanup waits only for a suspension (a window never holds a person's delete)."""
    return _held(action, instance_hold(going.situation) or suspension_hold(live, going.situation))
