"""What each plan verb means, in one table: the one place a new kind of action is described.

Pure data. A plan names what a run does with one object by a verb (`create`, `update`...);
per verb, `MEANINGS` says
- how plans print it: a symbol and its colour (`+ WebApp/web/shop: create`), and whether
  a log line about it is a warning (a person should look);
- whether carrying it out writes to the cluster, and whether `apply` on a terminal asks a
  person first (it deletes what runs: a prune, a replace);
- what apply reports once it carried it out (`created`, `skipped`...);
- what it adds to the plan's summary line (`2 to create`), and whether it is counted
  there even when there is none;
- for a verb that writes, the Event it makes: its reason (`Created`) and the past tense
  of its message (`WebApp/web/shop created by driftctl`).

The actions themselves (core.planning.actions) carry a verb each; the renderers, the
Events, apply's outcomes and check's categories read this table, never a list of their own.

Two orders: `Verb`'s is the order of the JSON summaries of plans and logs, which are
stable (a new verb goes at the end); `MEANINGS`' is the order of the summary line.
"""

from __future__ import annotations

import enum
from dataclasses import KW_ONLY, dataclass

from driftctl.core.planning.outcomes import Outcome


class Verb(enum.StrEnum):
    """How a plan names what a run does with one object."""

    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    PRUNE = "prune"  # delete (through the finalizer for a WebApp): absent from Git
    CLEANUP = "cleanup"  # a Terminating WebApp whose cleanup is pending
    REPLACE = "replace"  # an immutable field differs: delete and create again
    SKIP = "skip"  # nothing will be done, for the reason given
    CONFLICT = "conflict"  # another owner's object: never written; apply fails it
    HOLD = "hold"  # a write a control holds (a suspension, a policy, a window), and why
    ORPHAN = "orphan"  # absent from Git: the WebApp goes, its Deployment stays, released
    QUARANTINE = "quarantine"  # absent from Git: scaled to zero; pruned after a grace period
    CONFIRM = "confirm"  # absent from Git: its removal recorded; pruned once approved
    ADOPT = "adopt"  # taken under this instance as it runs (nothing restarted), then applied


@dataclass(frozen=True)
class Meaning:
    """One verb's row of the table (module docstring)."""

    symbol: str
    colour: str
    _: KW_ONLY
    writes: bool
    outcome: Outcome  # what apply reports for it (a conflict is another owner's: failed)
    counted: str  # its part of the summary line, `{}` the count
    always_counted: bool = False  # in the summary line even when there is none
    plural: str = ""  # `counted` for more than one, when it differs
    warns: bool = False  # its log line is a warning
    asks: bool = False  # apply on a terminal asks a person first (it deletes what runs)
    event: str = ""  # the reason of the Event of a verb that writes
    past: str = ""  # and what its message says was done


# fmt: off
MEANINGS: dict[Verb, Meaning] = {
    Verb.CREATE: Meaning("+", "green", writes=True, outcome=Outcome.CREATED,
                         counted="{} to create", always_counted=True,
                         event="Created", past="created"),
    Verb.UPDATE: Meaning("~", "yellow", writes=True, outcome=Outcome.CONFIGURED,
                         counted="{} to update", always_counted=True,
                         event="Updated", past="updated"),
    Verb.ADOPT: Meaning("~", "blue", writes=True, outcome=Outcome.CONFIGURED,
                        counted="{} to adopt",
                        event="Adopted", past="adopted"),
    Verb.PRUNE: Meaning("-", "red", writes=True, outcome=Outcome.DELETED,
                        counted="{} to prune", always_counted=True, asks=True,
                        event="Pruned", past="pruned"),
    Verb.ORPHAN: Meaning("-", "red", writes=True, outcome=Outcome.ORPHANED,
                         counted="{} to orphan",
                         event="Orphaned", past="orphaned"),
    Verb.QUARANTINE: Meaning("-0", "yellow", writes=True, outcome=Outcome.CONFIGURED,
                             counted="{} to quarantine",
                             event="Quarantined", past="quarantined"),
    Verb.CONFIRM: Meaning("?", "yellow", writes=True, outcome=Outcome.WAITING,
                          counted="{} to confirm",
                          event="PruneWaiting", past="marked for removal"),
    Verb.REPLACE: Meaning("-/+", "red", writes=True, outcome=Outcome.CONFIGURED,
                          counted="{} to replace", asks=True,
                          event="Updated", past="replaced"),
    Verb.CLEANUP: Meaning("-", "red", writes=True, outcome=Outcome.DELETED,
                          counted="{} cleanup pending",
                          event="CleanedUp", past="cleaned up"),
    Verb.UNCHANGED: Meaning("=", "dim", writes=False, outcome=Outcome.UNCHANGED,
                            counted="{} unchanged", always_counted=True),
    Verb.HOLD: Meaning("||", "cyan", writes=False, outcome=Outcome.HELD,
                       counted="{} held"),
    Verb.SKIP: Meaning("!", "cyan", writes=False, outcome=Outcome.SKIPPED,
                       counted="{} skipped", warns=True),
    Verb.CONFLICT: Meaning("x", "red", writes=False, outcome=Outcome.FAILED,
                           counted="{} conflict", plural="{} conflicts", warns=True),
}
# fmt: on

# What apply reports for each verb once it carried the action out without error (a conflict
# is never carried out: it is reported failed).
SUCCESS: dict[Verb, Outcome] = {verb: meaning.outcome for verb, meaning in MEANINGS.items()}


def meaning(verb: Verb) -> Meaning:
    """The row of `verb`."""
    return MEANINGS[verb]


def counted(verb: Verb, count: int) -> str:
    """The part of the summary line for `count` actions of `verb`: `2 to create`."""
    row = MEANINGS[verb]
    return (row.plural if count != 1 and row.plural else row.counted).format(count)
