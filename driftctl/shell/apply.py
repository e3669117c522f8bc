"""The only server-side apply writer: dry-runs candidates, carries out a plan, writes status.

A plan is carried out stage by stage, in the order the core gives (`Plan.stages`):
removals and pending cleanups, then one chain per WebApp. Chains of a stage go
`concurrency` at a time (one that sends nothing, most of a large run's, is worked out on
the run's own thread: shell.batches), and each runs its steps in order: its WebApp, then its
Deployment (which needs the WebApp's uid, known as soon as that WebApp is applied), then
its status. Every object gets one outcome; a failure is recorded and the others go on,
unless it ends the run (core.retries.ends_the_run: the retries gave up, the API
server is gone for the rest of the run's time): then no other chain starts and the error
goes up, one line instead of a failure for each object left.
SSA requests carry `force` and the field manager, never a resourceVersion. An update that
reverts fields set outside Git first sends the plan's guarded JSON Patch (it tests the
resourceVersion the plan was made from). A conflict is another owner's object: it fails,
and nothing is sent. What to do
with each object was decided by the plan, and what a refused create means for the rest
of its chain by core.planning.plan.after_refusal; this module only does it. Each chain
makes at most one Event (core.planning.events), sent by shell.events. A status holds only
what the installed CRD declares (the live state's `crd`, core.planning.installed_crd).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.planning.actions import (
    Action,
    Chain,
    Cleanup,
    Confirm,
    Conflict,
    Create,
    FieldRevert,
    Held,
    Orphan,
    Plan,
    Prune,
    Quarantine,
    Quiet,
    Refused,
    Replace,
    Skip,
    Step,
    Unchanged,
    Update,
    WriteStatus,
    bind_owner,
    is_changing,
    outcome_of,
)
from driftctl.core.planning.candidates import Candidate, DryRunError, DryRunResult
from driftctl.core.planning.events import Done, Event, chain_event, stall_event
from driftctl.core.planning.from_dry_runs import answered
from driftctl.core.planning.holding import held_counts
from driftctl.core.planning.installed_crd import OWN, InstalledCrd
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj, ObjectKey, is_terminating, key_of, uid
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.planning.plan import after_refusal
from driftctl.core.planning.status import (
    StatusFacts,
    StatusUpdate,
    ended,
    facts_of,
    held_condition,
    reads_pods,
    rollout_state,
    stalled_message,
    status_update,
)
from driftctl.core.retries import ends_the_run, is_object_refusal
from driftctl.core.source.schema import Schema
from driftctl.shell.batches import in_order
from driftctl.shell.cleanup import CleanupFailed, Deleter
from driftctl.shell.events import Recorder
from driftctl.shell.kube import ApiError, Kube
from driftctl.shell.rollouts import read_new_pods

Tick = Callable[[str, int, int | None], None]  # phase, objects done, total (None: unknown)


def no_tick(phase: str, done: int, total: int | None) -> None:
    return None


@dataclass(frozen=True)
class Progress:
    """Where a run reports as it goes: each object's outcome, each status it wrote, and how
    far it is (a phase, objects done of total)."""

    outcome: Callable[[ObjectOutcome], None] = lambda outcome: None
    status: Callable[[ObjectKey, Obj], None] = lambda key, status: None
    tick: Tick = no_tick


@dataclass(frozen=True)
class StatusWritten:
    """A WebApp status a chain wrote."""

    key: ObjectKey
    status: Obj


@dataclass(frozen=True)
class RolloutSeen:
    """Where a WebApp's rollout is, as its status (written or not) says; and the end of it
    that the status records, if it turned Ready or Stalled."""

    key: ObjectKey
    state: RolloutState
    ended: RolloutState | None = None
    at_pods: bool = False  # in progress, and its new Pods may tell more before long
    why: str | None = None  # stalled: the reason and message of its Stalled condition


Report = ObjectOutcome | StatusWritten | RolloutSeen


class _CreateRefused(Exception):
    """The API server refused an unchecked create: the chain becomes what plan says."""

    def __init__(self, create: Create, message: str) -> None:
        super().__init__(message)
        self.create, self.message = create, message


def dry_run(
    kube: Kube,
    candidates: Sequence[Candidate],
    manager: str,
    concurrency: int,
    tick: Tick = no_tick,
) -> dict[ObjectKey, DryRunResult]:
    """The server's answer to a dry-run apply of each candidate (or why it refused)."""

    def one(candidate: Candidate) -> DryRunResult:
        return _answer(kube, r.apply(candidate.manifest, manager, dry_run=True))

    asked = [candidate for candidate in candidates if candidate.apply]
    results: dict[ObjectKey, DryRunResult] = {}
    if not asked:
        return results
    with ThreadPoolExecutor(max_workers=max(concurrency, 1)) as pool:
        for candidate, result in zip(asked, pool.map(one, asked), strict=True):
            results[candidate.key] = result
            tick("dry-run", len(results), len(asked))
    return results


def dry_run_reverts(
    kube: Kube, candidates: Sequence[Candidate], manager: str, concurrency: int
) -> dict[ObjectKey, Obj | DryRunError]:
    """The server's answer to a dry-run of each candidate's revert of fields set outside Git."""

    def one(candidate: Candidate) -> Obj | DryRunError:
        return _answer(kube, _revert_request(candidate.key, candidate.revert, manager, True))

    asked = [candidate for candidate in candidates if candidate.revert is not None]
    if not asked:
        return {}
    with ThreadPoolExecutor(max_workers=max(concurrency, 1)) as pool:
        return dict(zip((c.key for c in asked), pool.map(one, asked), strict=True))


def _answer(kube: Kube, request: r.Request) -> Obj | DryRunError:
    try:
        return kube.send(request)
    except ApiError as refused:
        if not is_object_refusal(refused.status, refused.said):
            raise  # the cluster, not this object: stop the run
        return DryRunError(refused.short)


def _revert_request(
    key: ObjectKey, revert: FieldRevert | None, manager: str, dry_run: bool = False
) -> r.Request:
    operations = revert.patch if revert is not None else ()
    kind = r.KINDS[key.kind]
    return r.json_patch(kind, key.namespace, key.name, operations, manager, dry_run=dry_run)


def _quietly(action: Quiet) -> ObjectOutcome:
    """An action that sends nothing: unchanged, skipped, or failed with its reason (a refused
    dry-run, another owner's object)."""
    return ObjectOutcome(action.key, outcome_of(action), action.reason)


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
    verified: tuple[str, str] | None = None  # the run's commit and its signer (--verify)
    _objects: dict[ObjectKey, Obj] = field(default_factory=dict)
    # A list, not a map: a WebApp cleaned up and created again has two outcomes.
    _outcomes: list[ObjectOutcome] = field(default_factory=list)
    _failed: set[ObjectKey] = field(default_factory=set)
    _rollouts: list[RolloutSeen] = field(default_factory=list)
    # What an unchecked update turned out to be, from its writes' answers: until its chain
    # is done, then kept for `as_carried_out`.
    _answered: dict[ObjectKey, Action] = field(default_factory=dict)
    _carried: dict[ObjectKey, Action] = field(default_factory=dict)
    _plan: Plan = field(default_factory=lambda: Plan(()))
    _crd: InstalledCrd = OWN  # what the installed CRD lets a status hold

    def carry_out(self, plan: Plan, live: LiveState) -> ApplyReport:
        """Carry out every stage of the plan; one outcome per object."""
        self._plan = plan
        self._crd = live.crd
        for obj in live.objects():
            self._objects[key_of(obj)] = obj
        for phase, stage in zip(("removing", "applying"), plan.stages, strict=True):
            self._run(phase, stage)
        self.events.close()
        rollouts = tuple((seen.key, seen.state) for seen in self._rollouts)
        ended_ = tuple((seen.key, seen.ended) for seen in self._rollouts if seen.ended)
        rolling = frozenset(seen.key for seen in self._rollouts if seen.at_pods)
        return ApplyReport(
            tuple(self._outcomes),
            plan.revision,
            plan.refusals,
            rollouts=rollouts,
            ended=ended_,
            rolling=rolling,
            stalls=tuple((seen.key, seen.why) for seen in self._rollouts if seen.why),
            held=held_counts(plan),
            suspended=plan.suspended,
        )

    def as_carried_out(self, plan: Plan) -> Plan:
        """`plan` with each unchecked update (watch's) as its writes' answers showed it: its
        changes, as a plan would have said them (for what a run tells people)."""
        return replace(plan, actions=tuple(self._carried.get(a.key, a) for a in plan.actions))

    def _run(self, phase: str, chains: Sequence[Chain]) -> None:
        total = sum(1 for chain in chains for step in chain if not isinstance(step, WriteStatus))
        done = 0

        def report(chain: Chain, reports: list[Report]) -> None:
            nonlocal done
            for each in reports:
                if isinstance(each, RolloutSeen):
                    self._rollouts.append(each)
                    continue
                if isinstance(each, StatusWritten):
                    self.progress.status(each.key, each.status)
                    continue
                self._outcomes.append(each)
                self.progress.outcome(each)
            done += sum(1 for step in chain if not isinstance(step, WriteStatus))
            self.progress.tick(phase, done, total)

        if self.concurrency <= 1 or len(chains) <= 1:  # one at a time: no threads to start
            for chain in chains:
                report(chain, self._run_chain(chain))
            return
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            try:
                answers = in_order(
                    pool, self._run_chain, chains, ahead=2 * self.concurrency, settle=self._settled
                )
                for chain, reports in zip(chains, answers, strict=True):
                    report(chain, reports)
            except BaseException:
                pool.shutdown(cancel_futures=True)  # the run ends: start no other chain
                raise

    def _run_chain(self, chain: Chain) -> list[Report]:
        """One WebApp's steps in order, then its one Event."""
        webapp = ObjectKey(c.KIND, chain[0].key.namespace, chain[0].key.name)
        before = self._objects.get(webapp) or self._objects.get(chain[0].key)
        steps: list[Step] = list(chain)
        reports: list[Report] = []
        done: list[Done] = []
        stalled: Event | None = None
        index = 0
        while index < len(steps):
            step = steps[index]
            if isinstance(step, WriteStatus):
                written, stalled = self._write_status(step.key, [action for action, _ in done])
                reports += written
            else:
                try:
                    outcome = self._act(step)
                except _CreateRefused as refused:
                    rest = after_refusal(tuple(steps[index:]), refused.create, refused.message)
                    steps[index:] = rest
                    continue
                if outcome.outcome is Outcome.FAILED:
                    self._failed.add(outcome.key)
                done.append((self._answered.pop(step.key, step), outcome))
                if done[-1][0] is not step:
                    self._carried[step.key] = done[-1][0]
                reports.append(outcome)
            index += 1
        event = self._event_of(webapp, before, done, stalled)
        if event is not None:
            self.events.record(*event)
        self._forget(chain)
        return reports

    def _settled(self, chain: Chain) -> list[Report] | None:
        """What `_run_chain` reports for a chain that sends nothing, worked out without a
        thread of the pool: its actions are quiet (unchanged, skipped, refused, another
        owner's, held), its WebApp's status is as it was and needs no look at its Pods, and
        it has no Event. None when it would send something: it then runs in the pool, from
        its start (what was done here writes nothing, and what it noted a rerun notes again)."""
        if not all(isinstance(step, Quiet | WriteStatus) for step in chain):
            return None
        webapp = ObjectKey(c.KIND, chain[0].key.namespace, chain[0].key.name)
        before = self._objects.get(webapp) or self._objects.get(chain[0].key)
        reports: list[Report] = []
        done: list[Done] = []
        stalled: Event | None = None
        for step in chain:
            if isinstance(step, Quiet):
                outcome = _quietly(step)
                if outcome.outcome is Outcome.FAILED:
                    self._failed.add(outcome.key)
                done.append((step, outcome))
                reports.append(outcome)
                continue
            found = self._status_of(step.key, [action for action, _ in done])
            if found is None:
                continue
            webapp_obj, deployment, facts = found
            if reads_pods(webapp_obj, deployment):
                return None
            update = status_update(webapp_obj, deployment, self.now, facts, schema=self._schema)
            if update.changed:
                return None
            written, stalled = _status_reports(step.key, webapp_obj, update)
            reports += written
        if self._event_of(webapp, before, done, stalled) is not None:
            return None
        self._forget(chain)
        return reports

    def _forget(self, chain: Chain) -> None:
        # Nothing after a chain needs its objects: the run holds only those in flight.
        for step in chain:
            self._objects.pop(step.key, None)

    def _act(self, action: Action) -> ObjectOutcome:
        """One action, with its failure turned into the object's outcome."""
        stop = self.stop_requested() if is_changing(action) else None
        if stop is not None:
            return ObjectOutcome(action.key, Outcome.FAILED, stop)
        try:
            return self._carry_out(action)
        except ApiError as failed:
            if ends_the_run(failed.status, failed.said):
                raise  # the cluster is gone for the rest of the run's time: one error, exit 4
            if isinstance(action, Create) and action.unchecked:
                # In plan's place: its dry-run would have skipped the object, or stopped the
                # run when the refusal is about driftctl itself (401, 403).
                if not is_object_refusal(failed.status, failed.said):
                    raise
                raise _CreateRefused(action, failed.short) from None
            return ObjectOutcome(action.key, Outcome.FAILED, failed.short)
        except CleanupFailed as failed:
            return ObjectOutcome(
                action.key, Outcome.FAILED, f"cleanup: {failed}; the finalizer stays"
            )

    def _carry_out(self, action: Action) -> ObjectOutcome:
        match action:
            case Prune() | Cleanup():
                return self._remove(action)
            case Orphan():
                return self._orphan(action)
            case Create() | Update() | Quarantine() | Confirm():
                return self._server_side_apply(action, action.manifest)
            case Replace():
                return self._replace(action)
            case Unchanged() | Skip() | Refused() | Conflict() | Held():
                return _quietly(action)

    def _remove(self, action: Prune | Cleanup) -> ObjectOutcome:
        if isinstance(action, Prune):
            self.deleter.delete(action.key, action.delete)
        if action.key.kind == c.KIND:
            self.deleter.cleanup(action.owned, action.key, action.finalizer_patch)
        self._objects.pop(action.key, None)
        return ObjectOutcome(action.key, Outcome.DELETED, action.reason)

    def _orphan(self, action: Orphan) -> ObjectOutcome:
        """Release what the WebApp owns, then delete it with nothing to clean up."""
        for each in action.released:
            self.deleter.release(each.key, each.patch)
        if action.delete is not None:
            self.deleter.delete(action.key, action.delete)
            self.deleter.remove_finalizer(action.key, action.finalizer_patch)
            self._objects.pop(action.key, None)
        return ObjectOutcome(action.key, outcome_of(action), action.reason)

    def _server_side_apply(
        self, action: Create | Update | Replace | Quarantine | Confirm, manifest: Obj
    ) -> ObjectOutcome:
        owner_key = action.owner if isinstance(action, Create | Update) else None
        if owner_key is not None:
            owner = self._objects.get(owner_key)
            if owner is None or is_terminating(owner):
                return ObjectOutcome(
                    action.key, Outcome.FAILED, f"its owner {owner_key.display} was not applied"
                )
            manifest = bind_owner(manifest, uid(owner))
        reverted = applied = None
        if isinstance(action, Update) and action.revert is not None:
            revert = _revert_request(action.key, action.revert, self.manager)
            try:
                reverted = self._objects[action.key] = self.kube.send(revert)
            except ApiError as failed:  # 422 when its test finds the object changed since
                if ends_the_run(failed.status, failed.said):
                    raise
                why = f"removing fields set outside Git: {failed.short}"
                return ObjectOutcome(action.key, Outcome.FAILED, why)
        if not isinstance(action, Update) or action.apply:
            applied = self._objects[action.key] = self.kube.send(r.apply(manifest, self.manager))
        if isinstance(action, Update) and action.unchecked is not None:
            done = self._answered[action.key] = answered(action, applied, reverted, self.manager)
            return ObjectOutcome(action.key, outcome_of(done))
        reason = action.reason if isinstance(action, Confirm) else ""  # the command to approve
        return ObjectOutcome(action.key, outcome_of(action), reason)

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

    def _write_status(
        self, key: ObjectKey, chain: Sequence[Action]
    ) -> tuple[list[Report], Event | None]:
        """The status of a WebApp from what its chain did (`chain`: its actions, as done),
        written if it changed; the Warning when its rollout just stalled."""
        found = self._status_of(key, chain)
        if found is None:
            return [], None
        webapp, deployment, facts = found
        try:
            update = write_status(
                self.kube,
                self.manager,
                webapp=webapp,
                deployment=deployment,
                now=self.now,
                facts=facts,
                schema=self._schema,
            )
        except StatusFailed as failed:
            return [ObjectOutcome(key, Outcome.FAILED, str(failed))], None
        return _status_reports(key, webapp, update)

    def _status_of(
        self, key: ObjectKey, chain: Sequence[Action]
    ) -> tuple[Obj, Obj | None, StatusFacts] | None:
        """What the status of a WebApp is made of: the WebApp, its Deployment and the facts
        of its chain's actions (the plan's facts of a WebApp are those of its own chain's).
        None when no status is written: the WebApp is gone, terminating or failed, or the
        installed CRD has no status subresource."""
        webapp = self._objects.get(key)
        if webapp is None or is_terminating(webapp) or key in self._failed:
            return None
        if self._crd.status is None:
            return None
        deployment = self._objects.get(ObjectKey(c.DEPLOYMENT_KIND, key.namespace, key.name))
        facts = facts_of(chain, key, self._failed, holds=self._plan.holds, verified=self.verified)
        return webapp, deployment, facts

    @property
    def _schema(self) -> Schema | None:
        """The status schema of the installed CRD; None when it is driftctl's own."""
        return self._crd.status if self._crd.missing else None

    def _event_of(
        self, webapp: ObjectKey, before: Obj | None, done: Sequence[Done], stalled: Event | None
    ) -> tuple[Obj, Event] | None:
        """The one Event of a chain (core.planning.events.chain_event) and the WebApp it is
        about; None when there is none (or no WebApp to name)."""
        lifted = self._plan.lifted.get(webapp.place, "")
        event = chain_event(done, stalled, held_before=held_condition(before or {}), lifted=lifted)
        about = self._objects.get(webapp) or before
        return (about, event) if event is not None and about else None


def _status_reports(
    key: ObjectKey, webapp: Obj, update: StatusUpdate
) -> tuple[list[Report], Event | None]:
    """Where a WebApp's rollout is as its status says (and whether the status was written),
    and the Warning when the rollout just stalled."""
    status, turned = update.status, ended(webapp.get("status") or {}, update.status)
    state = rollout_state(status)
    at_pods = update.look_again  # in progress, and its Pods may tell more before long
    why = stalled_message(status)
    reports: list[Report] = [RolloutSeen(key, state, turned, at_pods, why)]
    stalled = stall_event(key, why) if why and turned else None
    if update.changed:
        reports.append(StatusWritten(key, status))
    return reports, stalled


class StatusFailed(Exception):
    """A WebApp status could not be read for or written: the object's failure, not the run's."""


def write_status(
    kube: Kube,
    manager: str,
    *,
    webapp: Obj,
    deployment: Obj | None,
    now: datetime.datetime,
    facts: StatusFacts | None = None,
    schema: Schema | None = None,
) -> StatusUpdate:
    """The status of `webapp` from its Deployment (and, when they can tell something, the
    new Pods: core.planning.status.reads_pods), applied when it changed.

    StatusFailed when its Pods could not be read or the write was refused; an error that
    ends the run goes up as it is. `schema`: the status schema of the installed CRD when it
    is not driftctl's own (only what it declares is written).
    """
    pods = None
    if reads_pods(webapp, deployment) and deployment is not None:
        try:
            pods = read_new_pods(kube, deployment)
        except ApiError as failed:
            if ends_the_run(failed.status, failed.said):
                raise
            raise StatusFailed(f"reading its rollout's Pods: {failed.short}") from None
    update = status_update(webapp, deployment, now, facts, pods, schema=schema)
    if not update.changed:
        return update
    try:
        kube.send(r.apply(update.manifest, manager, status=True))
    except ApiError as failed:
        if ends_the_run(failed.status, failed.said):
            raise
        raise StatusFailed(f"writing its status: {failed.short}") from None
    return update
