"""Applying a saved plan object by object: what moved since the plan, and what proceeds.

Pure. A saved plan records, per object, the live uid and resourceVersion it was computed
against (`Base`, None for an object that did not exist). When it is applied:
- each object whose live uid and resourceVersion are the recorded ones gets its saved
  action, exactly;
- an object whose uid or resourceVersion moved (appeared, disappeared, was written) is
  planned again; if its new action has the same verb and the same patch it proceeds (with
  the new action, whose delete preconditions name the new resourceVersion), otherwise it
  is refused with the reason (`recheck`); a Deployment waiting for a refused WebApp is
  skipped, as in any plan (core.planning.plan.unless_owner_refused).
A create applied once makes the object exist, so applying the same plan again refuses
that create instead of creating twice; a plan none of whose changes can still be made is
`stale` as a whole (applied already, or overtaken). The controls are the apply's: a write
that a suspension or a closed window holds when the plan is applied is held then, whatever
the plan said (the plan records what it held and why; a held action stays held).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Held,
    Plan,
    Refused,
    is_changing,
    kept_of,
    patch_of,
)
from driftctl.core.planning.controls import Hold
from driftctl.core.planning.holding import controlled
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey, metadata
from driftctl.core.planning.plan import unless_owner_refused
from driftctl.core.planning.saved_plan.identity import PlanIdentity
from driftctl.core.source.model import Place
from driftctl.settings import Drift, Policy

Base = tuple[str, str]  # (uid, resourceVersion) of the live object the plan was made against


@dataclass(frozen=True)
class SavedPlan:
    """A plan read back from its file."""

    identity: PlanIdentity
    policy: Policy
    plan: Plan
    bases: Mapping[ObjectKey, Base | None]
    drift: Drift = field(default_factory=Drift)


def base_of(live: LiveState, key: ObjectKey) -> Base | None:
    """The uid and resourceVersion of the live object `key`, or None when it is absent."""
    objects = live.webapps if key.kind == c.KIND else live.deployments
    obj = objects.get(key.place)
    if obj is None:
        return None
    meta = metadata(obj)
    return str(meta.get("uid", "")), str(meta.get("resourceVersion", ""))


def moved(saved: SavedPlan, live: LiveState) -> frozenset[ObjectKey]:
    """The objects of the plan whose live uid or resourceVersion is no longer the recorded one."""
    return frozenset(key for key, base in saved.bases.items() if base_of(live, key) != base)


def recheck(
    saved: SavedPlan,
    fresh: Plan,
    live: LiveState,
    holds: Mapping[ObjectKey, Hold] | None = None,
) -> Plan:
    """The plan to carry out: saved actions where nothing moved, checked ones where it did,
    and each write a control holds now (`holds`: core.planning.holding.holds_now) held. A
    saved hold stays a hold: what was approved held is not done."""
    changed = moved(saved, live)
    again: dict[ObjectKey, list[Action]] = {}
    for action in fresh.actions:
        again.setdefault(action.key, []).append(action)
    actions = [
        _rechecked(action, again.get(action.key, [])) if action.key in changed else action
        for action in saved.plan.actions
    ]
    refused = {a.key for a, s in zip(actions, saved.plan.actions, strict=True) if a is not s}
    refused &= {a.key for a in actions if isinstance(a, Refused)}
    new = _unknown(holds or {}, saved.plan)
    return Plan(
        tuple(controlled(unless_owner_refused(action, refused), new) for action in actions),
        saved.plan.declared,
        saved.plan.refusals,
        saved.plan.revision,
        saved.plan.lifted,
        fresh.suspended or saved.plan.suspended,
        fresh.holds,
    )


def stale(saved: SavedPlan, rechecked: Plan) -> int:
    """How many changes the plan holds when none of them can still be made (each moved
    since and was refused by `recheck`: the plan was applied already, or overtaken); 0 when
    some can, or when it holds none. A stale plan is refused as a whole, said once."""
    writes = {action.key for action in saved.plan.actions if is_changing(action)}
    refused = {action.key for action in rechecked.actions if isinstance(action, Refused)}
    return len(writes) if writes and writes <= refused else 0


def _rechecked(action: Action, fresh: list[Action]) -> Action:
    same_type = [other for other in fresh if type(other) is type(action)]
    now = same_type[0] if same_type else (fresh[0] if fresh else None)
    if now is not None and now.verb is action.verb and _same_patch(now, action):
        return now
    if now is None:
        became = "now nothing to do"
    elif now.verb is action.verb:
        became = f"now {now.verb} with another patch"
    else:
        became = f"now {now.verb}"
    reason = (
        f"changed in the cluster since the plan was made: planned {action.verb}, {became}; "
        "make a new plan"
    )
    return Refused(action.key, reason, "the live object moved since the plan was made")


def _same_patch(one: Action, other: Action) -> bool:
    return _canonical(list(patch_of(one))) == _canonical(list(patch_of(other)))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _unknown(holds: Mapping[ObjectKey, Hold], plan: Plan) -> dict[ObjectKey, Hold]:
    """The holds a plan did not know when it was made: it already held what they hold."""
    known: dict[Place, set[str]] = {}
    for action in plan.actions:
        reasons = known.setdefault(action.key.place, set())
        if isinstance(action, Held):
            reasons.add(action.reason)
        reasons |= {kept.reason for kept in kept_of(action) if kept.held}
    return {key: hold for key, hold in holds.items() if hold.reason not in known.get(key.place, ())}
