"""The only server-side apply writer: dry-runs candidates, carries out a plan, writes status.

A plan is carried out in phases, each finished before the next starts: removals and
pending cleanups, then WebApps, then their Deployments (which need the WebApp's uid),
then the status of every declared WebApp. Within a phase objects are independent and go
`concurrency` at a time. Every object gets one outcome; a failure is recorded and the
others go on. SSA requests carry `force` and the field manager, never a resourceVersion.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from driftctl import conventions as c
from driftctl.core import requests as r
from driftctl.core.entries import (
    SUCCESS,
    Action,
    Candidate,
    DryRunError,
    DryRunResult,
    ObjectOutcome,
    Outcome,
    Plan,
    PlanEntry,
    bind_owner,
)
from driftctl.core.objects import Obj, ObjectKey, is_terminating, key_of, uid
from driftctl.core.outcomes import ApplyReport
from driftctl.core.status import status_update
from driftctl.shell.cleanup import CleanupFailed, Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.kube import ApiError, Kube
from driftctl.shell.live_state import Live

REMOVALS = frozenset({Action.PRUNE, Action.CLEANUP})


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
        try:
            return kube.send(r.apply(candidate.manifest, manager, dry_run=True))
        except ApiError as refused:
            if refused.status in (401, 403) or refused.status >= 500 or refused.status == 0:
                raise  # the cluster, not this object: stop the run
            return DryRunError(refused.short)

    with ThreadPoolExecutor(max_workers=max(concurrency, 1)) as pool:
        return dict(zip((c.key for c in candidates), pool.map(one, candidates), strict=True))


@dataclass
class Applier:
    """Carries out one plan against the cluster."""

    kube: Kube
    deleter: Deleter
    events: Recorder
    now: datetime.datetime
    manager: str = c.FIELD_MANAGER
    recreate: bool = False
    concurrency: int = 4
    stop_requested: Callable[[], str | None] = lambda: None  # a reason to stop (the lock was lost)
    progress: Progress = field(default_factory=Progress)
    _objects: dict[ObjectKey, Obj] = field(default_factory=dict)
    # A list, not a map: a WebApp cleaned up and created again has two outcomes.
    _outcomes: list[ObjectOutcome] = field(default_factory=list)
    _failed: set[ObjectKey] = field(default_factory=set)

    def carry_out(self, plan: Plan, live: Live) -> ApplyReport:
        """Apply every entry of the plan, then write statuses; one outcome per object."""
        for obj in [*live.webapps, *live.deployments]:
            self._objects[key_of(obj)] = obj
        removals = [e for e in plan.entries if e.action in REMOVALS]
        rest = [e for e in plan.entries if e.action not in REMOVALS]
        self._phase(self._remove, removals)
        self._phase(self._apply, [e for e in rest if e.key.kind == c.KIND])
        self._phase(self._apply, [e for e in rest if e.key.kind != c.KIND])
        self._phase(self._write_status, self._declared(plan))
        return ApplyReport(tuple(self._outcomes), plan.revision, plan.refusals)

    def _phase(
        self, act: Callable[[PlanEntry], ObjectOutcome | None], entries: Iterable[PlanEntry]
    ) -> None:
        with ThreadPoolExecutor(max_workers=max(self.concurrency, 1)) as pool:
            for outcome in pool.map(self._guarded(act), entries):
                if outcome is not None:
                    self._outcomes.append(outcome)
                    if outcome.outcome is Outcome.FAILED:
                        self._failed.add(outcome.key)
                    self.progress.outcome(outcome)

    def _guarded(
        self, act: Callable[[PlanEntry], ObjectOutcome | None]
    ) -> Callable[[PlanEntry], ObjectOutcome | None]:
        def run(entry: PlanEntry) -> ObjectOutcome | None:
            stop = self.stop_requested()
            if stop is not None and entry.changing:
                return ObjectOutcome(entry.key, Outcome.FAILED, stop)
            try:
                return act(entry)
            except ApiError as failed:
                self._warn(entry.key, "ApplyFailed", failed.short)
                return ObjectOutcome(entry.key, Outcome.FAILED, failed.short)
            except CleanupFailed as failed:
                self._warn(entry.key, "CleanupFailed", str(failed))
                return ObjectOutcome(
                    entry.key, Outcome.FAILED, f"cleanup: {failed}; the finalizer stays"
                )

        return run

    def _remove(self, entry: PlanEntry) -> ObjectOutcome:
        owner = self._objects.get(entry.key, {})
        if entry.delete is not None:
            self.deleter.delete(entry.key, entry.delete)
            self._note(owner, "Pruned", f"{entry.key.display} is no longer declared in Git")
        if entry.key.kind == c.KIND:
            self.deleter.cleanup(entry)
            self._note(owner, "CleanedUp", "owned Deployment deleted; finalizer removed")
        self._objects.pop(entry.key, None)
        return ObjectOutcome(entry.key, Outcome.DELETED, entry.reason)

    def _apply(self, entry: PlanEntry) -> ObjectOutcome:
        if entry.action is Action.UNCHANGED:
            return ObjectOutcome(entry.key, Outcome.UNCHANGED)
        if entry.error is not None:  # the server refused its dry-run: Git is not applied
            return ObjectOutcome(entry.key, Outcome.FAILED, entry.reason)
        if entry.action is Action.SKIP or entry.manifest is None:
            return ObjectOutcome(entry.key, Outcome.SKIPPED, entry.reason)
        if entry.action is Action.REPLACE:
            return self._replace(entry)
        return self._server_side_apply(entry, entry.manifest)

    def _server_side_apply(self, entry: PlanEntry, manifest: Obj) -> ObjectOutcome:
        if entry.owner is not None:
            owner = self._objects.get(entry.owner)
            if owner is None or is_terminating(owner):
                return ObjectOutcome(
                    entry.key, Outcome.FAILED, f"its owner {entry.owner.display} was not applied"
                )
            manifest = bind_owner(manifest, uid(owner))
        self._objects[entry.key] = self.kube.send(r.apply(manifest, self.manager))
        verb = "Created" if entry.action is Action.CREATE else "Updated"
        self._note(self._webapp_of(entry.key), verb, _describe(entry))
        return ObjectOutcome(entry.key, SUCCESS[entry.action])

    def _replace(self, entry: PlanEntry) -> ObjectOutcome:
        if not self.recreate:
            return ObjectOutcome(
                entry.key, Outcome.SKIPPED, f"{entry.reason} (run with --recreate to do it)"
            )
        live, manifest = self._objects[entry.key], entry.manifest
        if entry.delete is None or manifest is None:  # the plan always sets both for REPLACE
            return ObjectOutcome(entry.key, Outcome.FAILED, "nothing to replace it with")
        self.deleter.delete(entry.key, entry.delete)
        if not self.deleter.wait_gone(entry.key, uid(live)):
            return ObjectOutcome(
                entry.key, Outcome.FAILED, "the old object was not gone in time to create it again"
            )
        return self._server_side_apply(entry, manifest)

    def _declared(self, plan: Plan) -> list[PlanEntry]:
        return [e for e in plan.entries if e.key.kind == c.KIND and e.manifest is not None]

    def _write_status(self, entry: PlanEntry) -> ObjectOutcome | None:
        webapp = self._objects.get(entry.key)
        if webapp is None or is_terminating(webapp) or entry.key in self._failed:
            return None
        deployment = self._objects.get(
            ObjectKey(c.DEPLOYMENT_KIND, entry.key.namespace, entry.key.name)
        )
        update = status_update(webapp, deployment, self.now)
        if not update.changed:
            return None
        try:
            self.kube.send(r.apply(update.manifest, self.manager, status=True))
        except ApiError as failed:
            return ObjectOutcome(entry.key, Outcome.FAILED, f"writing its status: {failed.short}")
        self.progress.status(entry.key, update.status)
        return None

    def _webapp_of(self, key: ObjectKey) -> Obj:
        return self._objects.get(ObjectKey(c.KIND, key.namespace, key.name), {})

    def _note(self, webapp: Mapping[str, object], reason: str, message: str) -> None:
        if webapp:
            self.events.record(dict(webapp), reason, message)

    def _warn(self, key: ObjectKey, reason: str, message: str) -> None:
        webapp = self._webapp_of(key)
        if webapp:
            self.events.record(webapp, reason, f"{key.display}: {message}", warning=True)


def _describe(entry: PlanEntry) -> str:
    changes = ", ".join(f"{change.path}" for change in entry.changes[:5])
    what = f" ({changes})" if changes else ""
    return f"{entry.key.display} {entry.action.value}d by driftctl{what}"
