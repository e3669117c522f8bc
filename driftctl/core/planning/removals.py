"""Removals: what leaves the cluster in a run.

Pure. Pending cleanups of Terminating WebApps (a delete someone already asked for), and
prunes of what Git no longer declares, under the guards of core.planning.guards. A
Deployment is removed with its owner (listed in the owner's action as `owned`), or on its
own only when no live WebApp owns it.

What the guards count, object by object (`webapp_standing`, `deployment_standing`): a run
adds them up over its live state; `watch` keeps the sums as objects change
(core.watch.census) and hands them to a plan of one WebApp (`PruneCounts`), which then
decides as the whole run would without walking the whole instance.
"""

from __future__ import annotations

from collections.abc import Collection, Container
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning.actions import Cleanup, OwnedDelete, Prune, Skip
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step, remove_patch
from driftctl.core.planning.guards import check_prunes, delete_body, is_ours, protected
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj, is_terminating, key_of
from driftctl.core.source.model import Place
from driftctl.settings import Policy

Removal = Prune | Cleanup | Skip


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


def cleanup(live: Obj, state: LiveState, reason: str) -> Cleanup:
    """Finish a requested deletion: delete what the WebApp owns, then remove the finalizer."""
    return Cleanup(
        key_of(live),
        reason,
        finalizer_patch=tuple(remove_patch(live) or ()),
        owned=_owned(live, state),
    )


def _owned(live: Obj, state: LiveState) -> tuple[OwnedDelete, ...]:
    deps = sorted(state.owned_by(live), key=key_of)
    return tuple(
        OwnedDelete(key_of(dep), delete_body(dep, with_resource_version=False)) for dep in deps
    )


def plan_removals(
    wanted: Collection[Place],
    state: LiveState,
    instance: str,
    policy: Policy,
    focus: frozenset[Place] | None = None,
    *,
    counts: PruneCounts | None = None,
) -> tuple[list[Removal], tuple[str, ...]]:
    """Cleanups of Terminating WebApps, and prunes (guarded) of what Git no longer declares.

    `wanted` is every place Git declares a WebApp at; `state` may be one shard's part of
    the live state, so --max-prune counts that shard's managed objects. With `focus`, only
    the removals at those places are returned, decided by guards that counted all of
    `state`, or, given `counts`, by those counts of the whole instance (then `state` need
    hold only the focus's objects).
    """
    removals: list[Removal] = []
    candidates: list[Obj] = []
    for place, live in sorted(state.webapps.items()):
        step = finalizer_step(live)
        if place in wanted:
            continue
        outside = focus is not None and place not in focus
        if outside and step in (FinalizerStep.CLEANUP, FinalizerStep.NOTHING):
            continue  # not counted by a guard: only its own reconcile needs it
        if step is FinalizerStep.CLEANUP:
            removals.append(cleanup(live, state, "deleted in the cluster; cleanup is pending"))
        elif step is FinalizerStep.NOTHING:
            removals.append(Skip(key_of(live), "being deleted without driftctl's finalizer"))
        else:
            candidates.append(live)
    orphans = [dep for dep in state.orphans(instance) if key_of(dep).place not in wanted]
    candidates += orphans
    if counts is None:
        managed = sum(1 for obj in state.webapps.values() if is_ours(obj, instance))
        counted = (len(wanted), managed + len(orphans))
        decision = check_prunes(candidates, instance, counted, policy)
    else:
        counted = (counts.desired, counts.managed)
        decision = check_prunes(candidates, instance, counted, policy, going_in_all=counts.going)
    shown = [
        verdict
        for verdict in decision.verdicts
        if focus is None or key_of(verdict.obj).place in focus
    ]
    for verdict in shown:
        if verdict.reason is None:
            removals.append(_prune(verdict.obj, state))
        else:
            removals.append(Skip(key_of(verdict.obj), verdict.reason))
    refused = decision.refusal is not None and any(
        verdict.reason == decision.refusal for verdict in shown
    )
    return removals, (decision.refusal,) if refused and decision.refusal else ()


def _prune(live: Obj, state: LiveState) -> Prune:
    if live.get("kind") != c.KIND:
        return Prune(key_of(live), "its WebApp is gone (orphaned)", delete=delete_body(live))
    return Prune(
        key_of(live),
        "not declared in Git",
        delete=delete_body(live),
        finalizer_patch=tuple(remove_patch(live) or ()),
        owned=_owned(live, state),
    )
