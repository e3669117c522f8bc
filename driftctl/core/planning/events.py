"""What a run tells about itself in Kubernetes Events: at most one per WebApp, and a cap.

Pure. A WebApp's chain (its WebApp, its Deployment, or its removal) makes at most one
Event, saying everything the run did to it (a WebApp created with its Deployment is one
Event), or that its rollout just stalled (a Warning naming the Pod and its reason), or
None when nothing changed. A run records at most `--max-events` of them; the
rest are counted into one summary Event at the end, so a first run on a large fleet does
not flood etcd with thousands of Events. An Event's reason and the words of its message
are its verb's (core.planning.verbs). shell.events sends them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from driftctl.core.planning.actions import Action, Cleanup, Prune, changes_of
from driftctl.core.planning.fights import fight_message
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
from driftctl.core.planning.verbs import meaning

_CHANGED = frozenset({Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED})
_MESSAGE_LIMIT = 1024  # what the API server keeps of an Event message


@dataclass(frozen=True)
class Event:
    """One Event: its reason (CamelCase, as controllers write them), message and type."""

    reason: str
    message: str
    warning: bool = False


Done = tuple[Action, ObjectOutcome]  # an action of a chain and its outcome


def chain_event(done: Sequence[Done], stalled: Event | None = None) -> Event | None:
    """The one Event of a WebApp's chain: its failures, else its rollout `stalled`, else
    the fights it corrected (a Warning: the same manager changed a field back again), else
    what changed, else None."""
    failed = [(action, outcome) for action, outcome in done if outcome.outcome is Outcome.FAILED]
    if failed:
        removal = any(isinstance(action, Prune | Cleanup) for action, _ in failed)
        message = "; ".join(f"{out.key.display}: {out.reason}" for _, out in failed)
        return Event("CleanupFailed" if removal else "ApplyFailed", message, warning=True)
    if stalled is not None:
        return stalled
    changed = [action for action, outcome in done if outcome.outcome in _CHANGED]
    if not changed:
        return None
    fights = [fight_message(action.key, changes_of(action)) for action in changed]
    if any(fights):
        return Event("Fight", "; ".join(fight for fight in fights if fight), warning=True)
    return Event(meaning(changed[0].verb).event, "; ".join(_describe(action) for action in changed))


def stall_event(webapp: ObjectKey, why: str) -> Event:
    """The Warning of a WebApp whose rollout just stalled: the Pod and its reason, or the
    progress deadline (core.planning.status.stalled_message)."""
    message = f"{webapp.display}: rollout stalled: {why}"
    return Event("RolloutStalled", message[:_MESSAGE_LIMIT], warning=True)


def _describe(action: Action) -> str:
    if isinstance(action, Prune | Cleanup):
        owned = "".join(f", {owned.key.display} deleted" for owned in action.owned)
        done = meaning(action.verb).past
        return f"{action.key.display} {done} by driftctl ({action.reason}){owned}"
    fields = ", ".join(change.path for change in changes_of(action)[:5])
    what = f" ({fields})" if fields else ""
    return f"{action.key.display} {meaning(action.verb).past} by driftctl{what}"


def summary_event(left_out: Counter[str], cap: int, revision: str) -> Event:
    """The Event beyond the cap: how many were left out, by reason."""
    reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(left_out.items()))
    total = sum(left_out.values())
    message = (
        f"{total} more WebApp Events of this run (at {revision[:12] or 'an unknown commit'}) "
        f"were not recorded, beyond --max-events {cap}: {reasons}"
    )
    return Event("EventsLimited", message[:_MESSAGE_LIMIT])
