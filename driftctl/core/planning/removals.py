"""Removals: what leaves the cluster in a run.

Pure. Pending cleanups of Terminating WebApps (a delete someone already asked for), and
prunes of what Git no longer declares, under the guards of core.planning.guards, then as
each one's prune policy says (core.planning.pending), unless a control holds it: a
suspension, or a window closed on prunes (core.planning.controls). A Deployment is removed
with its owner (listed in the owner's action as `owned`), or on its own only when no live
WebApp owns it.

What the guards count, object by object (`webapp_standing`, `deployment_standing`): a run
adds them up over its live state; `watch` keeps the sums as objects change
(core.watch.census) and hands them to a plan of one WebApp (`PruneCounts`), which then
decides as the whole run would without walking the whole instance.
"""

from __future__ import annotations

from collections.abc import Collection, Container
from dataclasses import dataclass, field

from driftctl.core.planning.actions import Action, Cleanup, Held, Skip, is_changing
from driftctl.core.planning.controls import (
    Hold,
    instance_hold,
    of_removal,
    suspension_hold,
)
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step, remove_patch
from driftctl.core.planning.guards import (
    PruneDecision,
    PruneVerdict,
    check_prunes,
    is_ours,
    protected,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj, is_terminating, key_of
from driftctl.core.planning.pending import Going, owned_deletes, removal
from driftctl.core.source.model import Place
from driftctl.policies import Propagation
from driftctl.settings import Policy

__all__ = [
    "Going",
    "PruneCounts",
    "Removals",
    "Standing",
    "cleanup",
    "deployment_standing",
    "plan_removals",
    "webapp_standing",
]


@dataclass(frozen=True)
class Standing:
    """What one live object adds to the guards' counts: a managed object, a prune candidate
    no guard protects (going)."""

    managed: bool = False
    going: bool = False


@dataclass(frozen=True)
class PruneCounts:
    """The guards' counts over a whole instance (or shard): the WebApps Git declares, the
    managed objects, and the prune candidates no guard protects."""

    desired: int
    managed: int
    going: int


def webapp_standing(live: Obj, wanted: Container[Place], instance: str) -> Standing:
    """A live WebApp's part of the counts: managed when ours; going when Git no longer
    declares it, nobody asked for its deletion yet, and no guard protects it."""
    step = finalizer_step(live)
    removable = step in (FinalizerStep.APPLY, FinalizerStep.ADD)
    candidate = removable and key_of(live).place not in wanted
    return Standing(is_ours(live, instance), candidate and protected(live, instance) is None)


def deployment_standing(
    live: Obj, wanted: Container[Place], instance: str, *, owner_live: bool
) -> Standing:
    """A live Deployment's part of the counts: only an orphan (ours, not being deleted, its
    owner not live, its name not declared) counts, as managed, and going unless protected."""
    orphan = (
        is_ours(live, instance)
        and not is_terminating(live)
        and not owner_live
        and key_of(live).place not in wanted
    )
    return Standing(orphan, orphan and protected(live, instance) is None)


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
    wanted: Collection[Place],
    state: LiveState,
    going: Going,
    focus: frozenset[Place] | None = None,
    *,
    counts: PruneCounts | None = None,
) -> Removals:
    """Cleanups of Terminating WebApps, and prunes (guarded, then by policy) of what Git no
    longer declares.

    `wanted` is every place Git declares a WebApp at; `state` may be one shard's part of
    the live state, so --max-prune counts that shard's managed objects. With `focus`, only
    the removals at those places are returned, decided by guards that counted all of
    `state`, or, given `counts`, by those counts of the whole instance (then `state` need
    hold only the focus's objects).
    """
    removals, candidates = _undeclared(wanted, state, going, focus)
    orphans = [dep for dep in state.orphans(going.instance) if key_of(dep).place not in wanted]
    every = [*candidates, *orphans]
    decision = _guarded(every, going, counts, wanted=wanted, state=state, orphans=len(orphans))
    shown = [
        verdict
        for verdict in decision.verdicts
        if focus is None or key_of(verdict.obj).place in focus
    ]
    prunes, lifted = _prunes(shown, state, going)
    refused = decision.refusal is not None and any(
        verdict.reason == decision.refusal for verdict in shown
    )
    return Removals(
        [*removals, *prunes],
        (decision.refusal,) if refused and decision.refusal else (),
        lifted=lifted,
    )


def _undeclared(
    wanted: Collection[Place], state: LiveState, going: Going, focus: frozenset[Place] | None
) -> tuple[list[Action], list[Obj]]:
    """The live WebApps Git no longer declares: the removals someone already asked for (a
    pending cleanup; a skip when driftctl's finalizer is gone), and the prune candidates.
    Outside `focus`, only the candidates: the guards count them."""
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
    return removals, candidates


def _guarded(
    candidates: list[Obj],
    going: Going,
    counts: PruneCounts | None,
    *,
    wanted: Collection[Place],
    state: LiveState,
    orphans: int,
) -> PruneDecision:
    """The guards' verdicts on every candidate. They count the places Git declares and
    what `state` manages (its WebApps and `orphans` Deployments), or, given `counts`,
    the whole instance."""
    if counts is not None:
        return check_prunes(
            candidates,
            going.instance,
            (counts.desired, counts.managed),
            going.policy,
            going_in_all=counts.going,
        )
    managed = sum(1 for obj in state.webapps.values() if is_ours(obj, going.instance))
    return check_prunes(candidates, going.instance, (len(wanted), managed + orphans), going.policy)


def _prunes(
    shown: list[PruneVerdict], state: LiveState, going: Going
) -> tuple[list[Action], dict[Place, str]]:
    """Each verdict's removals: a skip where a guard protects the object, else as its prune
    policy says, held where a control holds it; and the windows gone through, per WebApp."""
    removals: list[Action] = []
    lifted: dict[Place, str] = {}
    for verdict in shown:
        if verdict.reason is not None:
            removals.append(Skip(key_of(verdict.obj), verdict.reason, undeclared=verdict.by_run))
            continue
        controls = of_removal(verdict.obj, going.policy, going.situation, going.manager)
        for action in removal(verdict.obj, state, controls, going):
            removals.append(_held(action, controls.hold))
        if controls.lifted:
            lifted[key_of(verdict.obj).place] = controls.lifted
    return removals, lifted


def _held(action: Action, hold: Hold | None) -> Action:
    if hold is None or not is_changing(action):
        return action
    return Held(action.key, hold.reason, action.verb, hold.control)


def _suspended(action: Cleanup, live: Obj, going: Going) -> Action:
    """A pending cleanup waits only for a suspension (a window never holds a person's delete)."""
    return _held(action, instance_hold(going.situation) or suspension_hold(live, going.situation))
