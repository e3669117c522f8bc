"""`apply --wait`: the rollouts of the WebApps a run changed, followed to their end.

After the plan is carried out (still under the run lock), every POLL_SECONDS each WebApp
waited for (core.planning.waiting) is read again, its WebApp and its Deployment by GET,
and its status computed and written as apply writes it (shell.apply.write_status: the new
Pods read while the rollout moves), so the status, `kubectl wait` and the run's output
follow the rollout. It ends when each is Ready or Stalled, when `--wait-timeout` is gone
(the rest timed out), or when the lock is lost. A WebApp that just stalled gets its
Warning Event, as in the run. Progress on a terminal: `rolling out: 1/3 WebApps`.
Decides nothing.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.events import stall_event
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import (
    ApplyReport,
    ObjectOutcome,
    Outcome,
    RolloutState,
)
from driftctl.core.planning.status import StatusFacts, ended, facts_of, stalled_message, state_of
from driftctl.core.planning.waiting import finished, pending, waited_for
from driftctl.render.progress import ROLLING_OUT
from driftctl.settings import Cluster, Wait
from driftctl.shell.apply import Progress, StatusFailed, write_status
from driftctl.shell.events import Recorder
from driftctl.shell.kube import Kube

POLL_SECONDS = 2.0
PHASE = ROLLING_OUT


@dataclasses.dataclass(frozen=True)
class _Seen:
    """One look at a WebApp waited for: where its rollout is, and what to report."""

    key: ObjectKey
    state: RolloutState
    ended: RolloutState | None = None
    failed: str | None = None


def wait_for_rollouts(
    kube: Kube,
    cluster: Cluster,
    plan: Plan,
    report: ApplyReport,
    *,
    wait: Wait,
    progress: Progress,
    stop_requested: Callable[[], str | None] = lambda: None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> ApplyReport:
    """`report` with each waited-for rollout's end (module docstring)."""
    waited = waited_for(report)
    states = dict(report.rollouts)
    failed = {each.key for each in report.outcomes if each.outcome is Outcome.FAILED}
    # This run's corrections are recorded already: a look again must not count them twice.
    facts = {key: dataclasses.replace(facts_of(plan, key, failed), corrected=()) for key in waited}
    client = kube.with_deadline(wait.timeout)
    now = datetime.datetime.now(datetime.UTC)
    recorder = Recorder(client, now, cap=cluster.max_events, revision=plan.revision)
    seen_ends, failures = list(report.ended), list[ObjectOutcome]()
    give_up = clock() + wait.timeout
    left = pending(states, waited)
    progress.tick(PHASE, len(waited) - len(left), len(waited))
    with ThreadPoolExecutor(max_workers=max(cluster.concurrency, 1)) as pool:
        while left and clock() < give_up and stop_requested() is None:
            sleep(max(min(POLL_SECONDS, give_up - clock()), 0))

            def look(key: ObjectKey) -> _Seen:
                return _look(
                    client,
                    cluster.field_manager,
                    key,
                    facts[key],
                    recorder=recorder,
                    progress=progress,
                )

            for seen in pool.map(look, left):
                states[seen.key] = seen.state
                if seen.ended is not None:
                    seen_ends.append((seen.key, seen.ended))
                if seen.failed is not None:
                    failures.append(ObjectOutcome(seen.key, Outcome.FAILED, seen.failed))
                    waited -= {seen.key}
            left = pending(states, waited)
            progress.tick(PHASE, len(waited) - len(left), len(waited))
    return dataclasses.replace(
        report,
        outcomes=report.outcomes + tuple(failures),
        rollouts=finished(states, waited),
        ended=tuple(seen_ends),
        waited=waited,
    )


def _look(
    kube: Kube,
    manager: str,
    key: ObjectKey,
    facts: StatusFacts,
    *,
    recorder: Recorder,
    progress: Progress,
) -> _Seen:
    """Read a WebApp and its Deployment again; write the status if it moved."""
    webapp = kube.send_unless_missing(r.get(r.WEBAPP, key.namespace, key.name))
    if webapp is None:
        return _Seen(key, RolloutState.STALLED, failed="deleted while its rollout was waited for")
    deployment = kube.send_unless_missing(r.get(r.DEPLOYMENT, key.namespace, key.name))
    now = datetime.datetime.now(datetime.UTC)
    try:
        update = write_status(
            kube, manager, webapp=webapp, deployment=deployment, now=now, facts=facts
        )
    except StatusFailed as failed:
        return _Seen(key, RolloutState.PROGRESSING, failed=str(failed))
    status, turned = update.status, ended(webapp.get("status") or {}, update.status)
    if update.changed:
        progress.status(key, status)
    why = stalled_message(status)
    if why and turned:
        recorder.record(webapp, stall_event(ObjectKey(c.KIND, *key.place), why))
    return _Seen(key, state_of(status), turned)
