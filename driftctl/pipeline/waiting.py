"""`apply --wait`: the rollouts of the WebApps a run changed, followed to their end.

After the plan is carried out (still under the run lock), every POLL_SECONDS each WebApp
waited for (core.planning.waiting) is read again, its WebApp and its Deployment by GET,
and its status computed and written as apply writes it (shell.apply.write_status: the new
Pods read while the rollout moves), so the status, `kubectl wait` and the run's output
follow the rollout. It ends when each is Stalled or complete with its completion confirmed
(core.planning.status.confirmed: its new Pods ready 10 s without a break; what serves,
`servingRevision` and the images, moves then), when `--wait-timeout` is gone (the rest
timed out), or when the lock is lost. A WebApp that just stalled gets its Warning Event,
as in the run. Progress on a terminal: `rolling out: 1/3 WebApps`. Decides nothing.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.events import stall_event
from driftctl.core.planning.installed_crd import OWN, InstalledCrd
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.planning.status import (
    StatusFacts,
    ended,
    facts_of,
    rollout_state,
    stalled_message,
)
from driftctl.core.planning.waiting import finished, pending, waited_for
from driftctl.core.source.schema import Schema
from driftctl.render.progress import ROLLING_OUT
from driftctl.settings import ApplyRequest
from driftctl.shell.apply import Progress, StatusFailed, write_status
from driftctl.shell.events import Recorder
from driftctl.shell.kube import Kube

POLL_SECONDS = 2.0


@dataclass(frozen=True)
class _Seen:
    """One look at a WebApp waited for: where its rollout is, and what to report."""

    key: ObjectKey
    state: RolloutState
    ended: RolloutState | None = None
    failed: str | None = None
    why: str | None = None  # stalled: why, as its status says


@dataclass
class _Wait:
    """What the wait knows so far: each rollout as last seen, the ends and failures to
    report."""

    waited: set[ObjectKey]
    states: dict[ObjectKey, RolloutState]
    ends: list[tuple[ObjectKey, RolloutState]]
    failures: list[ObjectOutcome] = field(default_factory=list)
    whys: dict[ObjectKey, str] = field(default_factory=dict)  # why each stalled one stalled

    @property
    def left(self) -> list[ObjectKey]:
        return pending(self.states, self.waited)

    def saw(self, seen: _Seen) -> None:
        self.states[seen.key] = seen.state
        if seen.why is not None:
            self.whys[seen.key] = seen.why
        if seen.ended is not None:
            self.ends.append((seen.key, seen.ended))
        if seen.failed is not None:
            self.failures.append(ObjectOutcome(seen.key, Outcome.FAILED, seen.failed))
            self.waited.discard(seen.key)

    def report(self, applied: ApplyReport) -> ApplyReport:
        return dataclasses.replace(
            applied,
            outcomes=applied.outcomes + tuple(self.failures),
            rollouts=finished(self.states, self.waited),
            ended=tuple(self.ends),
            waited=frozenset(self.waited),
            stalls=tuple((dict(applied.stalls) | self.whys).items()),
        )


@dataclass(frozen=True)
class _How:
    """How to look at one WebApp: as which field manager, with which facts of the plan."""

    manager: str
    facts: StatusFacts
    schema: Schema | None = None  # the installed CRD's status, when it is not driftctl's


@dataclass(frozen=True)
class Applied:
    """What a wait follows: the plan carried out, its report, and the installed CRD (a
    status written holds only what it declares)."""

    plan: Plan
    report: ApplyReport
    crd: InstalledCrd = OWN


@dataclass(frozen=True)
class Clock:
    """How a wait tells and passes time (a test's own, or the process's)."""

    sleep: Callable[[float], None] = time.sleep
    now: Callable[[], float] = time.monotonic


def wait_for_rollouts(
    kube: Kube,
    request: ApplyRequest,
    applied: Applied,
    *,
    progress: Progress,
    stop_requested: Callable[[], str | None] = lambda: None,
    clock: Clock = Clock(),
) -> ApplyReport:
    """The applied report with each waited-for rollout's end (module docstring), waiting
    as `request.wait` says, recording Events as `request.recording` does."""
    plan, report, crd, cluster = applied.plan, applied.report, applied.crd, request.cluster
    wait, sleep = request.wait, clock.sleep
    state = _Wait(set(waited_for(report)), dict(report.rollouts), list(report.ended))
    failed = {each.key for each in report.outcomes if each.outcome is Outcome.FAILED}
    # This run's corrections are recorded already: a look again must not count them twice.
    facts = {
        k: dataclasses.replace(facts_of(plan.actions, k, failed, holds=plan.holds), corrected=())
        for k in state.waited
    }
    client = kube.with_deadline(wait.timeout)
    now = datetime.datetime.now(datetime.UTC)
    cap = request.recording.max_events
    recorder = Recorder(client, now, cap=cap, revision=plan.revision)
    give_up = clock.now() + wait.timeout
    total = len(state.waited)
    progress.tick(ROLLING_OUT, total - len(state.left), total)

    def look(key: ObjectKey) -> _Seen:
        how = _How(cluster.field_manager, facts[key], crd.status if crd.missing else None)
        return _look(client, key, how, recorder=recorder, progress=progress)

    with ThreadPoolExecutor(max_workers=max(cluster.concurrency, 1)) as pool:
        while state.left and clock.now() < give_up and stop_requested() is None:
            sleep(max(min(POLL_SECONDS, give_up - clock.now()), 0))
            for seen in pool.map(look, state.left):
                state.saw(seen)
            progress.tick(ROLLING_OUT, total - len(state.left), total)
    return state.report(report)


def _look(
    kube: Kube, key: ObjectKey, how: _How, *, recorder: Recorder, progress: Progress
) -> _Seen:
    """Read a WebApp and its Deployment again; write the status if it moved."""
    webapp = kube.send_unless_missing(r.get(r.WEBAPP, key.namespace, key.name))
    if webapp is None:
        return _Seen(key, RolloutState.STALLED, failed="deleted while its rollout was waited for")
    deployment = kube.send_unless_missing(r.get(r.DEPLOYMENT, key.namespace, key.name))
    now = datetime.datetime.now(datetime.UTC)
    try:
        update = write_status(
            kube,
            how.manager,
            webapp=webapp,
            deployment=deployment,
            now=now,
            facts=how.facts,
            schema=how.schema,
        )
    except StatusFailed as failed:
        return _Seen(key, RolloutState.PROGRESSING, failed=str(failed))
    status, turned = update.status, ended(webapp.get("status") or {}, update.status)
    if update.changed:
        progress.status(key, status)
    why = stalled_message(status)
    if why and turned:
        recorder.record(webapp, stall_event(ObjectKey(c.KIND, *key.place), why))
    return _Seen(key, rollout_state(status), turned, why=why)
