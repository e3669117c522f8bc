"""Removals: what leaves the cluster in a run.

Pure. Pending cleanups of Terminating WebApps (a delete someone already asked for), and
prunes of what Git no longer declares, under the guards of core.planning.guards. A
Deployment is removed with its owner (listed in the owner's action as `owned`), or on its
own only when no live WebApp owns it.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftctl import conventions as c
from driftctl.core.planning.actions import Cleanup, OwnedDelete, Prune, Skip
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step, remove_patch
from driftctl.core.planning.guards import check_prunes, delete_body, is_ours
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj, key_of
from driftctl.core.source.model import Place, WebApp
from driftctl.settings import Policy

Removal = Prune | Cleanup | Skip


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
    desired: Sequence[WebApp],
    state: LiveState,
    instance: str,
    policy: Policy,
    focus: frozenset[Place] | None = None,
) -> tuple[list[Removal], tuple[str, ...]]:
    """Cleanups of Terminating WebApps, and prunes (guarded) of what Git no longer declares.

    `desired` is everything Git declares; `state` may be one shard's part of the live
    state, so --max-prune counts that shard's managed objects. With `focus`, only the
    removals at those places are returned, decided by guards that counted all of `state`.
    """
    wanted = {app.place for app in desired}
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
    managed = sum(1 for obj in state.webapps.values() if is_ours(obj, instance)) + len(orphans)
    candidates += orphans
    counts = (len(desired), managed)
    decision = check_prunes(candidates, instance, counts, policy)
    shown = [
        verdict
        for verdict in decision.verdicts
        if focus is None or key_of(verdict.obj).place in focus
    ]
    for verdict in shown:
        if verdict.reason is None:
            removals.append(_prune(verdict.obj, state))
        else:
            removals.append(Skip(key_of(verdict.obj), verdict.reason, undeclared=verdict.by_run))
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
