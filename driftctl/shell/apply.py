"""The only server-side apply writer: dry-runs candidates, carries out a plan, writes status.

A plan is carried out stage by stage, in the order the core gives (`Plan.stages`):
removals and pending cleanups, then WebApps, then their Deployments (which need the
WebApp's uid); then the status of every declared WebApp. Within a stage actions are
independent and go `concurrency` at a time. Every object gets one outcome; a failure is
recorded and the others go on. SSA requests carry `force` and the field manager, never a
resourceVersion. An update that removes fields set outside Git first sends the plan's
guarded JSON Patch (it tests the resourceVersion the plan was made from). A conflict is
another owner's object: it fails, and nothing is sent. What to do with each object was
decided by the plan; this module only does it.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from driftctl import conventions as c
from driftctl.core.cluster import requests as r
from driftctl.core.cluster.retry import is_object_refusal
from driftctl.core.planning.actions import (
    Action,
    Candidate,
    Cleanup,
    Conflict,
    Create,
    DryRunError,
    DryRunResult,
    FieldRemoval,
    Plan,
    Prune,
    Refused,
    Replace,
    Skip,
    Unchanged,
    Update,
    bind_owner,
    changes_of,
    is_changing,
)
from driftctl.core.planning.fights import fight_message
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj, ObjectKey, is_terminating, key_of, uid
from driftctl.core.planning.outcomes import SUCCESS, ApplyReport, ObjectOutcome, Outcome
from driftctl.core.planning.status import facts_of, status_update
from driftctl.shell.cleanup import CleanupFailed, Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.kube import ApiError, Kube

Item = TypeVar("Item", Action, ObjectKey)


@dataclass(frozen=True)
class Progress:
    """Where a run reports as it goes: each object's outcome, and each status it wrote."""

    outcome: Callable[[ObjectOutcome], None] = lambda outcome: None
    status: Callable[[ObjectKey, Obj], None] = lambda key, status: None


def dry_run(
    kube: Kube, candidates: Sequence[Candidate], manager: str, concurrency: int
) -> dict[ObjectKey, DryRunResult]:
    """The server's answer to a dry-run apply of each candidate (or why it refused)."""

    def one(candidate: Candidate) -> DryRunResult:
        return _answer(kube, r.apply(candidate.manifest, manager, dry_run=True))

    asked = [candidate for candidate in candidates if candidate.apply]
    with ThreadPoolExecutor(max_workers=max(concurrency, 1)) as pool:
        return dict(zip((c.key for c in asked), pool.map(one, asked), strict=True))


def dry_run_removals(
    kube: Kube, candidates: Sequence[Candidate], manager: str, concurrency: int
) -> dict[ObjectKey, Obj | DryRunError]:
    """The server's answer to a dry-run of each candidate's removal of fields set outside Git."""

    def one(candidate: Candidate) -> Obj | DryRunError:
        return _answer(kube, _removal_request(candidate.key, candidate.removal, manager, True))

    asked = [candidate for candidate in candidates if candidate.removal is not None]
    with ThreadPoolExecutor(max_workers=max(concurrency, 1)) as pool:
        return dict(zip((c.key for c in asked), pool.map(one, asked), strict=True))


def _answer(kube: Kube, request: r.Request) -> Obj | DryRunError:
    try:
        return kube.send(request)
    except ApiError as refused:
        if not is_object_refusal(refused.status):
            raise  # the cluster, not this object: stop the run
        return DryRunError(refused.short)


def _removal_request(
    key: ObjectKey, removal: FieldRemoval | None, manager: str, dry_run: bool = False
) -> r.Request:
    operations = removal.patch if removal is not None else ()
    kind = r.KINDS[key.kind]
    return r.json_patch(kind, key.namespace, key.name, operations, manager, dry_run=dry_run)


@dataclass
class Applier:
    """Carries out one plan against the cluster."""

    kube: Kube
    deleter: Deleter
    events: Recorder
    now: datetime.datetime
    manager: str = c.FIELD_MANAGER
    concurrency: int = 4
    stop_requested: Callable[[], str | None] = lambda: None  # a reason to stop (the lock was lost)
    progress: Progress = field(default_factory=Progress)
    _plan: Plan = field(default_factory=lambda: Plan(()))
    _objects: dict[ObjectKey, Obj] = field(default_factory=dict)
    # A list, not a map: a WebApp cleaned up and created again has two outcomes.
    _outcomes: list[ObjectOutcome] = field(default_factory=list)
    _failed: set[ObjectKey] = field(default_factory=set)

    def carry_out(self, plan: Plan, live: LiveState) -> ApplyReport:
        """Carry out every stage of the plan, then write statuses; one outcome per object."""
        self._plan = plan
        for obj in live.objects():
            self._objects[key_of(obj)] = obj
        for stage in plan.stages:
            self._run(self._act, stage)
        self._run(self._write_status, plan.declared)
        return ApplyReport(tuple(self._outcomes), plan.revision, plan.refusals)

    def _run(self, act: Callable[[Item], ObjectOutcome | None], items: Iterable[Item]) -> None:
        with ThreadPoolExecutor(max_workers=max(self.concurrency, 1)) as pool:
            for outcome in pool.map(act, items):
                if outcome is not None:
                    self._outcomes.append(outcome)
                    if outcome.outcome is Outcome.FAILED:
                        self._failed.add(outcome.key)
                    self.progress.outcome(outcome)

    def _act(self, action: Action) -> ObjectOutcome:
        """One action, with its failure turned into the object's outcome."""
        stop = self.stop_requested()
        if stop is not None and is_changing(action):
            return ObjectOutcome(action.key, Outcome.FAILED, stop)
        try:
            return self._carry_out(action)
        except ApiError as failed:
            self._warn(action.key, "ApplyFailed", failed.short)
            return ObjectOutcome(action.key, Outcome.FAILED, failed.short)
        except CleanupFailed as failed:
            self._warn(action.key, "CleanupFailed", str(failed))
            return ObjectOutcome(
                action.key, Outcome.FAILED, f"cleanup: {failed}; the finalizer stays"
            )

    def _carry_out(self, action: Action) -> ObjectOutcome:
        match action:
            case Prune() | Cleanup():
                return self._remove(action)
            case Create() | Update():
                return self._server_side_apply(action, action.manifest)
            case Replace():
                return self._replace(action)
            case Refused() | Conflict():  # refused by the server, or another owner's object:
                return ObjectOutcome(action.key, Outcome.FAILED, action.reason)  # nothing sent
            case Skip():
                return ObjectOutcome(action.key, Outcome.SKIPPED, action.reason)
            case Unchanged():
                return ObjectOutcome(action.key, Outcome.UNCHANGED)

    def _remove(self, action: Prune | Cleanup) -> ObjectOutcome:
        owner = self._objects.get(action.key, {})
        if isinstance(action, Prune):
            self.deleter.delete(action.key, action.delete)
            self._note(owner, "Pruned", f"{action.key.display} is no longer declared in Git")
        if action.key.kind == c.KIND:
            self.deleter.cleanup(action.owned, action.key, action.finalizer_patch)
            self._note(owner, "CleanedUp", "owned Deployment deleted; finalizer removed")
        self._objects.pop(action.key, None)
        return ObjectOutcome(action.key, Outcome.DELETED, action.reason)

    def _server_side_apply(self, action: Create | Update | Replace, manifest: Obj) -> ObjectOutcome:
        owner_key = action.owner if isinstance(action, Create | Update) else None
        if owner_key is not None:
            owner = self._objects.get(owner_key)
            if owner is None or is_terminating(owner):
                return ObjectOutcome(
                    action.key, Outcome.FAILED, f"its owner {owner_key.display} was not applied"
                )
            manifest = bind_owner(manifest, uid(owner))
        if isinstance(action, Update) and action.removal is not None:
            removal = _removal_request(action.key, action.removal, self.manager)
            try:
                self._objects[action.key] = self.kube.send(removal)
            except ApiError as failed:  # 422 when its test finds the object changed since
                why = f"removing fields set outside Git: {failed.short}"
                self._warn(action.key, "ApplyFailed", why)
                return ObjectOutcome(action.key, Outcome.FAILED, why)
        if not isinstance(action, Update) or action.apply:
            self._objects[action.key] = self.kube.send(r.apply(manifest, self.manager))
        verb = "Created" if isinstance(action, Create) else "Updated"
        self._note(self._webapp_of(action.key), verb, _describe(action))
        fight = fight_message(action.key, changes_of(action))
        if fight is not None:
            self._warn(action.key, "Fight", fight)
        return ObjectOutcome(action.key, SUCCESS[action.verb])

    def _replace(self, action: Replace) -> ObjectOutcome:
        live = self._objects[action.key]
        self.deleter.delete(action.key, action.delete)
        if not self.deleter.wait_gone(action.key, uid(live)):
            return ObjectOutcome(
                action.key,
                Outcome.FAILED,
                "the old object was not gone in time to create it again",
            )
        return self._server_side_apply(action, action.manifest)

    def _write_status(self, key: ObjectKey) -> ObjectOutcome | None:
        webapp = self._objects.get(key)
        if webapp is None or is_terminating(webapp) or key in self._failed:
            return None
        deployment = self._objects.get(ObjectKey(c.DEPLOYMENT_KIND, key.namespace, key.name))
        facts = facts_of(self._plan, key, self._failed)
        update = status_update(webapp, deployment, self.now, facts)
        if not update.changed:
            return None
        try:
            self.kube.send(r.apply(update.manifest, self.manager, status=True))
        except ApiError as failed:
            return ObjectOutcome(key, Outcome.FAILED, f"writing its status: {failed.short}")
        self.progress.status(key, update.status)
        return None

    def _webapp_of(self, key: ObjectKey) -> Obj:
        return self._objects.get(ObjectKey(c.KIND, key.namespace, key.name), {})

    def _note(self, webapp: Mapping[str, object], reason: str, message: str) -> None:
        if webapp:
            self.events.record(dict(webapp), reason, message)

    def _warn(self, key: ObjectKey, reason: str, message: str) -> None:
        webapp = self._webapp_of(key)
        if webapp:
            said = message if message.startswith(key.display) else f"{key.display}: {message}"
            self.events.record(webapp, reason, said, warning=True)


def _describe(action: Create | Update | Replace) -> str:
    changes = ", ".join(f"{change.path}" for change in changes_of(action)[:5])
    what = f" ({changes})" if changes else ""
    return f"{action.key.display} {action.verb.value}d by driftctl{what}"
