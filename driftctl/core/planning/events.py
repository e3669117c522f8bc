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

from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Confirm,
    Orphan,
    Prune,
    Quarantine,
    Removing,
    changes_of,
)
from driftctl.core.planning.controls import Control
from driftctl.core.planning.fights import fight_message
from driftctl.core.planning.holding import held_summary
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
from driftctl.core.planning.verbs import meaning

_CHANGED = frozenset({Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED, Outcome.ORPHANED})
_MESSAGE_LIMIT = 1024  # what the API server keeps of an Event message


@dataclass(frozen=True)
class Event:
    """One Event: its reason (CamelCase, as controllers write them), message and type."""

    reason: str
    message: str
    warning: bool = False


Done = tuple[Action, ObjectOutcome]  # an action of a chain and its outcome


def _changed(action: Action, outcome: Outcome) -> bool:
    """Whether the run changed the object: a removal recorded to wait for its approval
    (confirm) did; one that still waits did not."""
    return outcome in _CHANGED or (outcome is Outcome.WAITING and meaning(action.verb).writes)


def chain_event(
    done: Sequence[Done],
    stalled: Event | None = None,
    *,
    held_before: str | None = None,
    lifted: str = "",
) -> Event | None:
    """The one Event of a WebApp's chain: its failures, else its rollout `stalled`, else
    the fights it corrected (a Warning: the same manager changed a field back again), else
    what changed, else what a control newly holds (`held_before`: what the WebApp's status
    said it held; drift held is a Warning), else None. A change made through a window
    (--override-windows, `lifted`) says so; one made beside something held says what stays
    held."""
    failed = [(action, outcome) for action, outcome in done if outcome.outcome is Outcome.FAILED]
    if failed:
        removal = any(isinstance(action, Removing) for action, _ in failed)
        message = "; ".join(f"{out.key.display}: {out.reason}" for _, out in failed)
        return Event("CleanupFailed" if removal else "ApplyFailed", message, warning=True)
    if stalled is not None:
        return stalled
    changed = [action for action, outcome in done if _changed(action, outcome.outcome)]
    held = held_summary([action for action, _ in done])
    if not changed:
        if held is None or held.message == held_before or held.control in _QUIET:
            return None
        warning = held.control is Control.DRIFT
        return Event(held.reason, held.message[:_MESSAGE_LIMIT], warning=warning)
    notes = "".join(f"; {note}" for note in (lifted, held and f"held: {held.message}") if note)
    fights = [fight_message(action.key, changes_of(action)) for action in changed]
    if any(fights):
        message = "; ".join(fight for fight in fights if fight) + notes
        return Event("Fight", message[:_MESSAGE_LIMIT], warning=True)
    message = "; ".join(_describe(action) for action in changed) + notes
    return Event(meaning(changed[0].verb).event, message[:_MESSAGE_LIMIT])


# Holds that make no Event of their own: the instance's (one per WebApp would flood the
# namespace), and a removal waiting (its first step, which records it, had its Event).
_QUIET = frozenset({Control.INSTANCE, Control.REMOVAL})


def stall_event(webapp: ObjectKey, why: str) -> Event:
    """The Warning of a WebApp whose rollout just stalled: the Pod and its reason, or the
    progress deadline (core.planning.status.stalled_message)."""
    message = f"{webapp.display}: rollout stalled: {why}"
    return Event("RolloutStalled", message[:_MESSAGE_LIMIT], warning=True)


def _describe(action: Action) -> str:
    done = meaning(action.verb).past
    if isinstance(action, Prune | Cleanup):
        owned = "".join(f", {owned.key.display} deleted" for owned in action.owned)
        return f"{action.key.display} {done} by driftctl ({action.reason}){owned}"
    if isinstance(action, Orphan | Quarantine | Confirm):
        return f"{action.key.display} {done} by driftctl ({action.reason})"
    fields = ", ".join(change.path for change in changes_of(action)[:5])
    what = f" ({fields})" if fields else ""
    return f"{action.key.display} {done} by driftctl{what}"


def summary_event(left_out: Counter[str], cap: int, revision: str) -> Event:
    """The Event beyond the cap: how many were left out, by reason."""
    reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(left_out.items()))
    total = sum(left_out.values())
    message = (
        f"{total} more WebApp Events of this run (at {revision[:12] or 'an unknown commit'}) "
        f"were not recorded, beyond --max-events {cap}: {reasons}"
    )
    return Event("EventsLimited", message[:_MESSAGE_LIMIT])
