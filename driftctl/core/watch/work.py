"""What a full pass of `watch` hands to its workers, and when that pass is done.

A full pass (at the start, when Git moved, every --resync) plans the whole instance from
the watch's memory, as apply plans it, and sends nothing itself: each WebApp with
something to do waits in the work queue (core.watch.queue, `Urgency.PASS`) for a worker,
behind any correction of drift. Something to do, per WebApp (`work_of`): an action that
writes (create, update, replace, prune, cleanup), one apply would fail (an object Git
cannot apply, another owner's object: retried after their backoff), or a status that
would change. A WebApp whose objects and status are as they should be waits for nothing,
so a pass over an instance that did not drift queues nothing; if every action of it is
`unchanged`, it is settled (core.watch.census): the next resync does not plan it again
unless it changed.

`PassTally` follows one pass until each WebApp it queued was reconciled once: then the
pass is done (the process is ready after its first), and says what it did. Pure: the time
is passed in.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from driftctl.core.planning.actions import (
    Action,
    Conflict,
    Plan,
    Refused,
    Unchanged,
    is_changing,
    outcome_of,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey, is_terminating
from driftctl.core.planning.outcomes import ApplyReport, Outcome
from driftctl.core.planning.status import facts_of, status_update
from driftctl.core.source.model import Place


@dataclass(frozen=True)
class PassWork:
    """What a full pass found: the WebApps a worker must reconcile (in plan order), and
    those equal to Git, every action of them unchanged (settled)."""

    busy: tuple[Place, ...]
    settled: tuple[Place, ...]


def work_of(plan: Plan, live: LiveState, now: datetime.datetime) -> PassWork:
    """The work in `plan` (made from `live`) a worker must do, and what is settled."""
    by_place: dict[Place, list[Action]] = {}
    for action in plan.actions:
        by_place.setdefault(action.key.place, []).append(action)
    busy = [place for place, actions in by_place.items() if any(map(_needs_a_worker, actions))]
    chosen = set(busy)
    for key in plan.declared:
        if key.place not in chosen and _status_moves(key, by_place.get(key.place, []), live, now):
            busy.append(key.place)
            chosen.add(key.place)
    settled = tuple(
        place
        for place, actions in by_place.items()
        if place not in chosen and all(isinstance(action, Unchanged) for action in actions)
    )
    return PassWork(tuple(busy), settled)


def _needs_a_worker(action: Action) -> bool:
    return is_changing(action) or isinstance(action, Refused | Conflict)


def _status_moves(
    key: ObjectKey, actions: list[Action], live: LiveState, now: datetime.datetime
) -> bool:
    """Whether the status a reconcile would write differs from the WebApp's own (the
    applier's rule, shell.apply: none for a WebApp that is gone or being deleted)."""
    webapp = live.webapps.get(key.place)
    if webapp is None or is_terminating(webapp):
        return False
    deployment = live.deployments.get(key.place)
    facts = facts_of(actions, key, ())
    return status_update(webapp, deployment, now, facts).changed


@dataclass
class PassTally:
    """One full pass: the WebApps it queued that no worker reconciled yet, and what the
    reconciles of those (and the plan, of the others) did."""

    reason: str
    revision: str
    pending: set[Place]
    outcomes: Counter[Outcome] = field(default_factory=Counter)
    failed: bool = False

    @classmethod
    def of(cls, reason: str, plan: Plan, queued: Iterable[Place]) -> PassTally:
        """A pass that queued `queued`; the quiet actions elsewhere count as they are."""
        pending = set(queued)
        outcomes = Counter(
            outcome_of(action) for action in plan.actions if action.key.place not in pending
        )
        return cls(reason, plan.revision, pending, outcomes)

    def reconciled(self, place: Place, report: ApplyReport | None) -> bool:
        """A worker reconciled `place` (`report` None: the reconcile failed as a whole);
        whether the pass is done now (its last WebApp)."""
        if place not in self.pending:
            return False
        self.pending.discard(place)
        if report is None:
            self.failed = True
        else:
            self.outcomes.update(each.outcome for each in report.outcomes)
            self.failed = self.failed or bool(report.count(Outcome.FAILED))
        return not self.pending

    @property
    def done(self) -> bool:
        return not self.pending

    def summary(self) -> str:
        """What the pass did, e.g. `2 created, 4 unchanged` (`nothing` when it had nothing)."""
        shown = [f"{self.outcomes[o]} {o}" for o in Outcome if self.outcomes[o]]
        return ", ".join(shown) or "nothing"
