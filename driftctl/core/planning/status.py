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
that differ from Git and are kept (an autoscaler's replicas, ignore rules), and
`corrections`, the bounded record of drift reverted (core.planning.fights). While an
autoscaler keeps the replicas, readiness counts the Deployment's replicas, not Git's.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning import fights
from driftctl.core.planning.actions import Conflict, Plan, Replace, Update, kept_of
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.installed_crd import fit
from driftctl.core.planning.normalize import equal
from driftctl.core.planning.objects import Obj, ObjectKey, annotations_of, metadata
from driftctl.core.source.model import WebAppStatus
from driftctl.core.source.schema import Schema, json_name
from driftctl.kube_formats import api_time

# Every status field driftctl writes: one it no longer sends must count as a change.
STATUS_FIELDS = tuple(json_name(WebAppStatus, f.name) for f in dataclasses.fields(WebAppStatus))
KEPT_REPLICAS = (c.DEPLOYMENT_KIND, "spec.replicas")


@dataclass(frozen=True)
class StatusFacts:
    """What the plan tells a WebApp's status: fields kept (kind, field, why) and the
    corrections this run made (kind, change)."""

    ignored: tuple[tuple[str, str, str], ...] = ()
    corrected: tuple[tuple[str, FieldChange], ...] = ()
    conflict: str | None = None  # the Deployment of its name is another owner's
    verified: tuple[str, str] | None = None  # this run's revision and the key that signed it


def facts_of(plan: Plan, webapp: ObjectKey, failed: Container[ObjectKey]) -> StatusFacts:
    """The facts of one WebApp and its Deployment; corrections only of what was applied."""
    deployment = ObjectKey(c.DEPLOYMENT_KIND, webapp.namespace, webapp.name)
    actions = [action for action in plan.actions if action.key in (webapp, deployment)]
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
    return StatusFacts(ignored, corrected, conflict)


@dataclass(frozen=True)
class Health:
    """What the Deployment says, reduced to what the WebApp status reports."""

    available: int
    desired: int
    ready: bool
    reason: str
    message: str
    stalled: bool = False


@dataclass(frozen=True)
class StatusUpdate:
    """The status to apply, the manifest carrying it, and whether it differs from live."""

    status: Obj
    manifest: Obj
    changed: bool


def health(
    webapp: Obj, deployment: Obj | None, *, scaled: bool = False, conflict: str | None = None
) -> Health:
    """Ready when available >= desired and the Deployment observed its latest generation.

    `scaled`: an autoscaler keeps the Deployment's replicas, so those are the desired count.
    `conflict`: the Deployment of the WebApp's name is another owner's; waiting will not help.
    """
    desired = int((webapp.get("spec") or {}).get("replicas", 0))
    if conflict is not None:
        return Health(0, desired, False, "DeploymentConflict", conflict, stalled=True)
    if scaled and deployment is not None:
        desired = int((deployment.get("spec") or {}).get("replicas", desired))
    if deployment is None:
        return Health(0, desired, False, "DeploymentMissing", "the Deployment does not exist yet")
    status = deployment.get("status") or {}
    available = int(status.get("availableReplicas", 0))
    stalled = _stalled(status)
    if stalled is not None:
        return Health(available, desired, False, *stalled, stalled=True)
    generation = int(metadata(deployment).get("generation", 0))
    if int(status.get("observedGeneration", 0)) < generation:
        message = f"the Deployment controller has not observed generation {generation} yet"
        return Health(available, desired, False, "DeploymentNotObserved", message)
    counted = f"{available}/{desired} replicas available"
    if available < desired:
        return Health(available, desired, False, "ReplicasUnavailable", counted)
    return Health(available, desired, True, "Available", counted)


def _stalled(status: Obj) -> tuple[str, str] | None:
    # The Deployment controller gives up in these two ways; waiting longer will not help.
    for condition in status.get("conditions") or []:
        kind, state = condition.get("type"), condition.get("status")
        gave_up = condition.get("reason") == "ProgressDeadlineExceeded"
        if (kind == "Progressing" and state == "False" and gave_up) or (
            kind == "ReplicaFailure" and state == "True"
        ):
            return str(condition.get("reason") or kind), str(condition.get("message", ""))
    return None


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


def webapp_status(
    webapp: Obj,
    deployment: Obj | None,
    now: datetime.datetime,
    facts: StatusFacts | None = None,
) -> Obj:
    """The status driftctl reports for `webapp`, given its (live or applied) Deployment."""
    facts = facts or StatusFacts()
    scaled = any((kind, field) == KEPT_REPLICAS for kind, field, _why in facts.ignored)
    state = health(webapp, deployment, scaled=scaled, conflict=facts.conflict)
    generation = int(metadata(webapp).get("generation", 0))
    previous = webapp.get("status") or {}
    revision = annotations_of(webapp).get(c.REVISION_ANNOTATION)
    status: Obj = {
        "available_replicas": state.available,
        "ready": state.ready,
        "observedGeneration": generation,
        "conditions": conditions(state, generation, _list(previous), api_time(now)),
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
    return status


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
    *,
    schema: Schema | None = None,
) -> StatusUpdate:
    """The status to apply and whether it differs from the live one (only our fields count).

    `schema`: the status schema of the installed CRD (core.planning.installed_crd), when it
    is not driftctl's own: only the fields it declares are written and compared.
    """
    status = webapp_status(webapp, deployment, now, facts)
    live = webapp.get("status") or {}
    ours = {key: live[key] for key in STATUS_FIELDS if key in live}
    if schema is not None:
        status, ours = fit(status, schema), fit(ours, schema)
    changed = not equal(status, ours)
    return StatusUpdate(status, status_manifest(webapp, status), changed)


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
