"""The WebApp status, computed from the WebApp and its Deployment as the cluster shows them.

Pure: `now` is passed in, nothing is read from a clock or the cluster. The result is the
status body to apply through the status subresource, and whether it differs from the live
status, so an unchanged status is never written (a second run writes nothing).

Conditions follow kstatus: `Ready` is always present; `Reconciling` and `Stalled` are
abnormal-true conditions, present only while they hold. A condition keeps its
lastTransitionTime while its status stays the same, even if reason or message change.

`lastAppliedRevision` is the revision annotation of the WebApp, i.e. the commit at which
driftctl last wrote it. It is not the commit of the current run: a new commit that leaves
an object unchanged must not rewrite its status either (see core.planning.prefilter).

`lastVerifiedRevision` and `lastVerifiedKey` say that the revision the WebApp was last
written at was verified (--verify), and by which key: set when a verified run's revision is
the WebApp's revision annotation, kept otherwise, so they equal lastAppliedRevision exactly
when what runs was verified (a later run without --verify leaves them behind).

From the plan (`StatusFacts`): `ignoredFields`, the fields of the WebApp and its Deployment
that differ from Git and are kept (an autoscaler's replicas, ignore rules, and what a
control holds: drift under warn, Git's changes under hold), and `corrections`, the bounded
record of drift reverted (core.planning.fights). While an autoscaler keeps the replicas,
readiness counts the Deployment's replicas, not Git's. While a control holds something,
the condition `Held` says what and why; a suspended WebApp's status records only that.

Readiness is the rollout's (core.planning.rollout): Ready only once every desired pod runs
the latest template and is available, with no old pod left; `Reconciling` with the figures
while it moves; `Stalled` when the Deployment gave up, or at once when a Pod of the new
ReplicaSet shows a reason waiting will not fix (read only when `reads_pods` says so).

What runs: `servingRevision` is `lastAppliedRevision` once its rollout completed (and the
Deployment holds what Git declares) and the completion is confirmed, and stays the earlier
one until then; `images` are the digests the ready Pods of that rollout run, read with its
confirmation (`imagesGeneration`), and `mixedDigests` says when one reference runs at
several digests. A completion seen once may be a crash-looping Pod ready for an instant: it
is confirmed (`confirmed`) when the new Pods read have been ready CONFIRM_SECONDS without
a break (what `minReadySeconds: 10` would make the controller wait for), or, with no Pods
to read, when a second look CONFIRM_SECONDS after the first still sees it (the WebApp's
Ready condition says when the first was). Until then the WebApp is Ready but its rollout
is reported in progress (`rollout_state`): a commit status stays pending, `watch` looks
again, `apply --wait` waits on.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning import fights
from driftctl.core.planning.actions import (
    Action,
    Conflict,
    Create,
    Replace,
    Unchanged,
    Update,
    kept_of,
)
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.controls import Control, Hold
from driftctl.core.planning.holding import Summary, held_summary
from driftctl.core.planning.installed_crd import fit
from driftctl.core.planning.normalize import equal
from driftctl.core.planning.objects import Obj, ObjectKey, annotations_of, metadata
from driftctl.core.planning.outcomes import RolloutState
from driftctl.core.planning.rollout import NewPods, Phase, Rollout, needs_pods, rollout_of
from driftctl.core.source.model import WebAppStatus
from driftctl.core.source.schema import Schema, json_name
from driftctl.kube_formats import api_time, parse_api_time

# Every status field driftctl writes: one it no longer sends must count as a change.
STATUS_FIELDS = tuple(json_name(WebAppStatus, f.name) for f in dataclasses.fields(WebAppStatus))
KEPT_REPLICAS = (c.DEPLOYMENT_KIND, "spec.replicas")
_NO_HOLDS: Mapping[ObjectKey, Hold] = {}


@dataclass(frozen=True)
class StatusFacts:
    """What the plan tells a WebApp's status: fields kept (kind, field, why), the
    corrections this run made (kind, change), and what a control holds (`held`; `frozen`:
    the WebApp is suspended, so its status records that and nothing else changes)."""

    ignored: tuple[tuple[str, str, str], ...] = ()
    corrected: tuple[tuple[str, FieldChange], ...] = ()
    conflict: str | None = None  # the Deployment of its name is another owner's
    # The Deployment holds what Git declares (unchanged, or applied in this run): once its
    # rollout completes, the WebApp's revision is serving.
    current: bool = True
    verified: tuple[str, str] | None = None  # this run's revision and the key that signed it
    held: Summary | None = None
    frozen: bool = False


def facts_of(
    actions: Iterable[Action],
    webapp: ObjectKey,
    failed: Container[ObjectKey],
    *,
    holds: Mapping[ObjectKey, Hold] = _NO_HOLDS,
    verified: tuple[str, str] | None = None,
) -> StatusFacts:
    """The facts of one WebApp and its Deployment, from a plan's `actions` (its own chain's
    will do) and `holds`; corrections only of what was applied. `verified`: this run's."""
    deployment = ObjectKey(c.DEPLOYMENT_KIND, webapp.namespace, webapp.name)
    actions = [action for action in actions if action.key in (webapp, deployment)]
    if webapp not in holds and all(type(a) is Unchanged and not a.kept for a in actions):
        # Most of a large run: nothing kept, corrected, held or another owner's to tell.
        current = any(a.key == deployment for a in actions) and deployment not in failed
        return _facts_of_unchanged(current, verified)
    ignored = tuple(
        (action.key.kind, kept.path, kept.reason) for action in actions for kept in kept_of(action)
    )
    corrected = tuple(
        (action.key.kind, change)
        for action in actions
        if isinstance(action, Update | Replace) and action.key not in failed
        for change in action.changes
        if change.managers
    )
    conflict = next(
        (f"{a.key.display} {a.reason}" for a in actions if isinstance(a, Conflict)), None
    )
    current = (
        any(
            a.key == deployment and isinstance(a, Unchanged | Create | Update | Replace)
            for a in actions
        )
        and deployment not in failed
    )
    held = held_summary(actions)
    suspended = holds.get(webapp)
    if suspended is not None and suspended.control is Control.SUSPEND:
        held = held or Summary(Control.SUSPEND, f"{webapp.display}: {suspended.reason}")
    frozen = held is not None and held.control is Control.SUSPEND
    return StatusFacts(
        ignored, corrected, conflict, current=current, verified=verified, held=held, frozen=frozen
    )


@functools.cache
def _facts_of_unchanged(current: bool, verified: tuple[str, str] | None) -> StatusFacts:
    """The facts of a WebApp whose objects are unchanged with nothing kept (one each)."""
    return StatusFacts(current=current, verified=verified)


HELD = "Held"  # the condition present while a control holds something of the WebApp


def held_condition(webapp: Obj) -> str | None:
    """The message of a live WebApp's Held condition, or None when it has none."""
    for condition in (webapp.get("status") or {}).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == HELD:
            return str(condition.get("message", ""))
    return None


def _held(held: Summary, generation: int, previous: list[Obj], now: str) -> Obj:
    return {
        "type": HELD,
        "status": "True",
        "reason": held.reason,
        "message": held.message[:_MESSAGE_LIMIT],
        "observedGeneration": generation,
        "lastTransitionTime": _since(previous, HELD, "True", now),
    }


_MESSAGE_LIMIT = 32768  # the schema's maxLength of a condition message


@dataclass(frozen=True)
class Health:
    """What the Deployment (and its new Pods) say, reduced to what the WebApp status reports."""

    available: int
    desired: int
    ready: bool
    reason: str
    message: str
    stalled: bool = False


@dataclass(frozen=True)
class StatusUpdate:
    """The status to apply, the manifest carrying it, whether it differs from live, and
    whether a look again may tell what no change of the Deployment will (`look_again`)."""

    status: Obj
    manifest: Obj
    changed: bool
    look_again: bool = False


def health(
    webapp: Obj,
    deployment: Obj | None,
    *,
    scaled: bool = False,
    conflict: str | None = None,
    pods: NewPods | None = None,
) -> Health:
    """Ready when the Deployment's rollout is complete (core.planning.rollout) and the
    available pods reach the desired count.

    `scaled`: an autoscaler keeps the Deployment's replicas, so those are the desired count.
    `conflict`: the Deployment of the WebApp's name is another owner's; waiting will not help.
    `pods`: the new ReplicaSet's Pods, when they were read: one stuck for a reason waiting
    will not fix stalls the WebApp at once, named with its reason.
    """
    desired = int((webapp.get("spec") or {}).get("replicas", 0))
    if conflict is not None:
        return Health(0, desired, False, "DeploymentConflict", conflict, stalled=True)
    if scaled and deployment is not None:
        desired = int((deployment.get("spec") or {}).get("replicas", desired))
    if deployment is None:
        return Health(0, desired, False, "DeploymentMissing", "the Deployment does not exist yet")
    return _rollout_health(deployment, desired, pods)


def _rollout_health(deployment: Obj, desired: int, pods: NewPods | None) -> Health:
    rollout = rollout_of(deployment)
    available = rollout.available
    if rollout.phase is Phase.DEADLINE:
        return Health(available, desired, False, rollout.reason, rollout.message, stalled=True)
    if rollout.phase is Phase.NOT_OBSERVED:
        generation = int(metadata(deployment).get("generation", 0))
        message = f"the Deployment controller has not observed generation {generation} yet"
        return Health(available, desired, False, "DeploymentNotObserved", message)
    stuck = pods.blocker if pods is not None and rollout.phase is Phase.PROGRESSING else None
    if stuck is not None:
        message = f"{stuck.text} (rollout: {rollout.figures})"
        return Health(available, desired, False, stuck.reason, message, stalled=True)
    if rollout.updated < rollout.desired or rollout.old:
        message = f"rollout in progress: {rollout.figures}"
        return Health(available, desired, False, "RolloutInProgress", message)
    return _complete(rollout, desired, pods)


def _complete(rollout: Rollout, desired: int, pods: NewPods | None) -> Health:
    """Ready, unless the count falls short of Git's, or the new Pods read say otherwise
    (core.planning.rollout: a container that exits at once is counted for an instant)."""
    available = rollout.available
    counted = f"{available}/{desired} replicas available"
    if rollout.phase is not Phase.COMPLETE or available < desired:
        return Health(available, desired, False, "ReplicasUnavailable", counted)
    ready = pods.ready if pods is not None else None
    if pods is None or ready is None or ready >= rollout.desired:
        return Health(available, desired, True, "Available", counted)
    stuck = pods.blocker
    if stuck is not None:
        return Health(available, desired, False, stuck.reason, stuck.text, stalled=True)
    message = (
        f"{ready}/{rollout.desired} new Pods ready (the Deployment counted {available} available)"
    )
    return Health(available, desired, False, "ReplicasUnavailable", message)


def conditions(state: Health, generation: int, previous: list[Obj], now: str) -> list[Obj]:
    """Ready always; Reconciling while progressing; Stalled when the Deployment gave up."""
    wanted = [("Ready", "True" if state.ready else "False")]
    if not state.ready:
        wanted.append(("Stalled" if state.stalled else "Reconciling", "True"))
    return [
        _condition(kind, value, state, generation, _since(previous, kind, value, now))
        for kind, value in wanted
    ]


def _condition(kind: str, value: str, state: Health, generation: int, since: str) -> Obj:
    return {
        "type": kind,
        "status": value,
        "reason": state.reason,
        "message": state.message,
        "observedGeneration": generation,
        "lastTransitionTime": since,
    }


def _since(previous: list[Obj], kind: str, value: str, now: str) -> str:
    for old in previous:
        if old.get("type") == kind and old.get("status") == value:
            return str(old.get("lastTransitionTime") or now)
    return now


def reads_pods(webapp: Obj, deployment: Obj | None) -> bool:
    """Whether the status of `webapp` needs the new Pods of `deployment` (two LISTs):
    its rollout is in progress, or it completed and its completion was not confirmed yet
    (its images are recorded with the confirmation)."""
    if deployment is None:
        return False
    recorded = (webapp.get("status") or {}).get("imagesGeneration")
    seen = int(recorded) if recorded is not None else None
    return needs_pods(deployment, seen)


def webapp_status(
    webapp: Obj,
    deployment: Obj | None,
    now: datetime.datetime,
    facts: StatusFacts | None = None,
    pods: NewPods | None = None,
) -> Obj:
    """The status driftctl reports for `webapp`, given its (live or applied) Deployment and,
    when they were read (`reads_pods`), the Pods of its new ReplicaSet."""
    facts = facts or StatusFacts()
    generation = int(metadata(webapp).get("generation", 0))
    previous = webapp.get("status") or {}
    if facts.frozen and facts.held is not None:
        return _frozen(previous, facts.held, generation, api_time(now))
    scaled = any((kind, field) == KEPT_REPLICAS for kind, field, _why in facts.ignored)
    state = health(webapp, deployment, scaled=scaled, conflict=facts.conflict, pods=pods)
    revision = annotations_of(webapp).get(c.REVISION_ANNOTATION)
    found = conditions(state, generation, _list(previous), api_time(now))
    if facts.held is not None:
        found.append(_held(facts.held, generation, _list(previous), api_time(now)))
    status: Obj = {
        "available_replicas": state.available,
        "ready": state.ready,
        "observedGeneration": generation,
        "conditions": found,
        "lastAppliedRevision": revision or str(previous.get("lastAppliedRevision", "")),
        **_verified(revision, facts.verified, previous),
    }
    if facts.ignored:
        status["ignoredFields"] = [
            {"kind": kind, "field": field, "reason": why} for kind, field, why in facts.ignored
        ]
    corrections = fights.recorded(fights.record_of(webapp), facts.corrected, api_time(now))
    if corrections:
        status["corrections"] = corrections
    status |= _serving(previous, status, deployment, facts, pods, now)
    return status


_SERVING_FIELDS = ("servingRevision", "images", "mixedDigests", "imagesGeneration")
CONFIRM_SECONDS = 10  # a completion stands this long before what serves moves (module docstring)


def _serving(
    previous: Obj,
    status: Obj,
    deployment: Obj | None,
    facts: StatusFacts,
    pods: NewPods | None,
    now: datetime.datetime,
) -> Obj:
    """What runs: kept from `previous` until a rollout of what Git declares completes, and
    the completion is confirmed (`confirmed`)."""
    out = {key: previous[key] for key in _SERVING_FIELDS if key in previous}
    if not (status["ready"] and facts.current and status["lastAppliedRevision"]):
        return out
    if deployment is None or not confirmed(previous, status, deployment, pods, now):
        return out
    out["servingRevision"] = status["lastAppliedRevision"]
    if pods is not None:
        for key in ("images", "mixedDigests"):
            out.pop(key, None)
        out["imagesGeneration"] = pods.generation
        images = pods.images
        if images:
            out["images"] = [{"image": i.image, "digests": list(i.digests)} for i in images]
            out["mixedDigests"] = any(len(each.digests) > 1 for each in images)
    return out


def confirmed(
    previous: Obj, status: Obj, deployment: Obj, pods: NewPods | None, now: datetime.datetime
) -> bool:
    """Whether the completion `status` sees now is confirmed: with the new Pods read, as
    many as the Deployment wants have been ready CONFIRM_SECONDS without a break (as
    `minReadySeconds` would have the controller count them); without them (no new
    ReplicaSet found, or its Pods not read), on a second look: the WebApp was Ready, for
    this generation, CONFIRM_SECONDS ago already."""
    since = now - datetime.timedelta(seconds=CONFIRM_SECONDS)
    steady = pods.steady(since) if pods is not None else None
    if steady is not None:
        return steady >= rollout_of(deployment).desired
    for condition in _list(previous):
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            at = parse_api_time(condition.get("lastTransitionTime"))
            same = condition.get("observedGeneration") == status["observedGeneration"]
            return same and at is not None and at <= since
    return False


def _frozen(previous: Obj, held: Summary, generation: int, now: str) -> Obj:
    """A suspended WebApp's status: as it was, its Held condition saying why."""
    kept = {key: previous[key] for key in STATUS_FIELDS if key in previous}
    others = [each for each in _list(previous) if each.get("type") != HELD]
    kept["conditions"] = [*others, _held(held, generation, _list(previous), now)]
    return kept


_VERIFIED_FIELDS = ("lastVerifiedRevision", "lastVerifiedKey")


def _verified(revision: str | None, verified: tuple[str, str] | None, previous: Obj) -> Obj:
    """The verification fields: this run's, when the WebApp carries its revision, else kept."""
    if verified is not None and revision == verified[0]:
        return dict(zip(_VERIFIED_FIELDS, verified, strict=True))
    return {key: previous[key] for key in _VERIFIED_FIELDS if previous.get(key)}


def _list(previous: Obj) -> list[Obj]:
    return [item for item in previous.get("conditions") or [] if isinstance(item, dict)]


def status_update(
    webapp: Obj,
    deployment: Obj | None,
    now: datetime.datetime,
    facts: StatusFacts | None = None,
    pods: NewPods | None = None,
    *,
    schema: Schema | None = None,
) -> StatusUpdate:
    """The status to apply and whether it differs from the live one (only our fields count).

    `schema`: the status schema of the installed CRD (core.planning.installed_crd), when it
    is not driftctl's own: only the fields it declares are written and compared.
    """
    status = webapp_status(webapp, deployment, now, facts, pods)
    live = webapp.get("status") or {}
    ours = {key: live[key] for key in STATUS_FIELDS if key in live}
    if schema is not None:
        status, ours = fit(status, schema), fit(ours, schema)
    changed = not equal(status, ours)
    again = look_again(status, pods)
    return StatusUpdate(status, status_manifest(webapp, status), changed, again)


def look_again(status: Obj, pods: NewPods | None) -> bool:
    """Whether a rollout in progress is worth a look again before its Deployment moves:
    its new Pods were read (the Deployment counts some: core.planning.rollout.needs_pods)
    and one is not ready (it may stall on a reason its Deployment never shows: an image that
    cannot be pulled, a crash loop), or none was found yet, or all are ready and the
    completion is not confirmed yet (it is once they stood 10 s). A rollout whose Pods were
    not read (none counted yet) tells nothing more until the Deployment's status moves (a
    Pod made changes its counts), which is seen anyway."""
    if pods is None or rollout_state(status) is not RolloutState.PROGRESSING:
        return False
    return (pods.ready or 0) < pods.live or not pods.live or bool(status.get("ready"))


def status_manifest(webapp: Obj, status: Obj) -> Obj:
    """The body of a server-side apply to the status subresource: identity and status only."""
    meta = metadata(webapp)
    body: dict[str, Any] = {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")},
        "status": status,
    }
    return body


def state_of(status: Obj) -> RolloutState:
    """Where the rollout is, as a status written by `webapp_status` says."""
    if status.get("ready"):
        return RolloutState.COMPLETE
    if _stalled_condition(status) is not None:
        return RolloutState.STALLED
    return RolloutState.PROGRESSING


def rollout_state(status: Obj) -> RolloutState:
    """Where a WebApp's rollout is, for a run's report: as `state_of` says, but complete
    only once what serves is the revision applied (its completion confirmed). A status
    without those fields (the seed operator's CRD) is complete when Ready."""
    state = state_of(status)
    applied = status.get("lastAppliedRevision")
    if state is RolloutState.COMPLETE and applied and status.get("servingRevision") != applied:
        return RolloutState.PROGRESSING
    return state


def ended(previous: Obj, status: Obj) -> RolloutState | None:
    """The end of a rollout that the change from `previous` to `status` records: its
    completion confirmed (`rollout_state`), or the WebApp Stalled; None when it did not
    change that way."""
    now = rollout_state(status)
    if now is RolloutState.PROGRESSING or rollout_state(previous) is now:
        return None
    return now


def stalled_message(status: Obj) -> str | None:
    """Why a stalled status is stalled (its Stalled condition's reason and message)."""
    condition = _stalled_condition(status)
    if condition is None:
        return None
    return f"{condition.get('reason')}: {condition.get('message')}"


def _stalled_condition(status: Obj) -> Obj | None:
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Stalled" and condition.get("status") == "True":
            return dict(condition)
    return None
