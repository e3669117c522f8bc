"""Removals: what leaves the cluster in a run, and the live state they are decided from.

Pure. Pending cleanups of Terminating WebApps (a delete someone already asked for), and
prunes of what Git no longer declares, under the guards of core.guards. A Deployment is
removed with its owner (listed in the owner's entry as `owned`), or on its own only when
no live WebApp owns it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.entries import Action, OwnedDelete, PlanEntry, PlanOptions
from driftctl.core.finalizers import FinalizerStep, finalizer_step, remove_patch
from driftctl.core.guards import check_prunes, delete_body, is_ours
from driftctl.core.model import WebApp
from driftctl.core.objects import Obj, ObjectKey, is_terminating, key_of, owner_uids, uid

Place = tuple[str, str]  # (namespace, name)


@dataclass(frozen=True)
class LiveState:
    """The live objects of one instance, indexed for pairing."""

    webapps: dict[Place, Obj]
    deployments: dict[Place, Obj]

    @classmethod
    def index(cls, webapps: Sequence[Obj], deployments: Sequence[Obj]) -> LiveState:
        """Index live objects by (namespace, name)."""
        return cls(
            {key_of(obj)[1:]: obj for obj in webapps},
            {key_of(obj)[1:]: obj for obj in deployments},
        )

    def owned_by(self, webapp: Obj) -> list[Obj]:
        """The live Deployments whose ownerReference points at `webapp`."""
        return [dep for dep in self.deployments.values() if uid(webapp) in owner_uids(dep)]

    def orphans(self, instance: str) -> list[Obj]:
        """This instance's live Deployments whose owner WebApp is not live."""
        owners = {uid(obj) for obj in self.webapps.values()}
        return [
            dep
            for dep in self.deployments.values()
            if is_ours(dep, instance) and not is_terminating(dep) and not owner_uids(dep) & owners
        ]


def skip(key: ObjectKey, reason: str) -> PlanEntry:
    return PlanEntry(key, Action.SKIP, reason)


def cleanup(live: Obj, state: LiveState, reason: str) -> PlanEntry:
    """Finish a requested deletion: delete what the WebApp owns, then remove the finalizer."""
    return PlanEntry(
        key_of(live),
        Action.CLEANUP,
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
    desired: Sequence[WebApp], state: LiveState, instance: str, options: PlanOptions
) -> tuple[list[PlanEntry], tuple[str, ...]]:
    """Cleanups of Terminating WebApps, and prunes (guarded) of what Git no longer declares."""
    wanted = {app.key for app in desired}
    slots: list[PlanEntry] = []
    candidates: list[Obj] = []
    for place, live in sorted(state.webapps.items()):
        step = finalizer_step(live)
        if place in wanted:
            continue
        if step is FinalizerStep.CLEANUP:
            slots.append(cleanup(live, state, "deleted in the cluster; cleanup is pending"))
        elif step is FinalizerStep.NOTHING:
            slots.append(skip(key_of(live), "being deleted without driftctl's finalizer"))
        else:
            candidates.append(live)
    orphans = [dep for dep in state.orphans(instance) if key_of(dep)[1:] not in wanted]
    managed = sum(1 for obj in state.webapps.values() if is_ours(obj, instance)) + len(orphans)
    candidates += orphans
    counts = (len(desired), managed)
    decision = check_prunes(candidates, instance, counts, options.prune)
    for verdict in decision.verdicts:
        if verdict.reason is None:
            slots.append(_prune(verdict.obj, state))
        else:
            slots.append(skip(key_of(verdict.obj), verdict.reason))
    return slots, (decision.refusal,) if decision.refusal else ()


def _prune(live: Obj, state: LiveState) -> PlanEntry:
    if live.get("kind") != c.KIND:
        return PlanEntry(
            key_of(live), Action.PRUNE, "its WebApp is gone (orphaned)", delete=delete_body(live)
        )
    return PlanEntry(
        key_of(live),
        Action.PRUNE,
        "not declared in Git",
        delete=delete_body(live),
        finalizer_patch=tuple(remove_patch(live) or ()),
        owned=_owned(live, state),
    )
