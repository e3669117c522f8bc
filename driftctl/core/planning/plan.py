"""The plan: per object, one action from a fixed set, decided as data in two pure steps.

1. `prepare` (core.planning.preparation) pairs desired and live objects by (kind,
   namespace, name): a missing live side means create, a missing desired side means
   prune (as gitops-engine's reconcile does). It applies the finalizer table
   (core.planning.finalizers), the prune guards (core.planning.guards) and the local
   prefilter (core.planning.prefilter), and lists the candidates that need a server-side
   dry-run, each with the manifest to send (core.planning.entries; what needs no dry-run,
   core.planning.predicted).
2. `finish` (here) turns the dry-run answers into exact actions
   (core.planning.from_dry_runs): a candidate whose normalized dry-run result equals the
   normalized live object, with the same fields owned, is unchanged.

Creates in apply: a dry-run of an object that does not exist can only answer "it would
be created" or refuse it, and the create itself gives the same answer. So `plan`
dry-runs every candidate, and `apply` only those that exist (`Preparation.updates`):
`finish(..., creates_answer=True)` makes the others `Create(unchecked=True)`, and when
the server refuses such a create, `after_refusal` gives the chain exactly the actions a
plan with that refused dry-run has (the object Refused, what waits for it skipped).

Nothing here talks to the cluster; the shell sends the dry-runs and carries out the plan.
The plan lists deletions and pending cleanups first, then each WebApp before its
Deployment; `Plan.stages` is the order the shell acts in. Every choice of what apply will
do is made here, from the flags in `settings.Policy` (`--recreate` included), so `plan`
and `apply` given the same flags say the same thing.

Must not pair objects or decide locally (core.planning.preparation), nor talk to the
cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from driftctl.core.planning.actions import (
    Action,
    Chain,
    Create,
    Plan,
    Refused,
    Skip,
    Step,
    Update,
    WriteStatus,
    is_changing,
)
from driftctl.core.planning.candidates import Candidate, DryRunResult, Preparation
from driftctl.core.planning.from_dry_runs import RevertAnswer, exact_action
from driftctl.core.planning.holding import controlled
from driftctl.core.planning.objects import ObjectKey


def finish(
    preparation: Preparation,
    results: Mapping[ObjectKey, DryRunResult],
    reverted: Mapping[ObjectKey, RevertAnswer] | None = None,
    *,
    creates_answer: bool = False,
    updates_answer: bool = False,
) -> Plan:
    """The exact plan, from the dry-run answers for every candidate (keyed by object): of
    its apply, and of its revert of fields set outside Git when it has one.

    `creates_answer`: apply sent no dry-run for candidates absent from the cluster; their
    create's own answer decides (module docstring). `updates_answer` (watch): nor for
    those that exist; their writes' answers decide (core.planning.from_dry_runs.answered).
    """
    actions = tuple(
        exact_action(
            entry,
            results,
            reverted or {},
            preparation.manager,
            creates_answer=creates_answer,
            updates_answer=updates_answer,
        )
        if isinstance(entry, Candidate)
        else entry
        for entry in preparation.entries
    )
    held = tuple(
        controlled(action, preparation.holds) for action in _without_refused_owners(actions)
    )
    writing = {action.key.place for action in held if is_changing(action)}
    return Plan(
        held,
        preparation.declared,
        preparation.refusals,
        preparation.revision,
        {place: note for place, note in preparation.lifted.items() if place in writing},
        preparation.suspended,
        preparation.holds,
    )


def _without_refused_owners(actions: tuple[Action, ...]) -> tuple[Action, ...]:
    """A Deployment waiting for a WebApp the server refused cannot be created either."""
    refused = {action.key for action in actions if isinstance(action, Refused)}
    return tuple(unless_owner_refused(action, refused) for action in actions)


def unless_owner_refused(action: Action, refused: AbstractSet[ObjectKey]) -> Action:
    """`action`, or a Skip when it waits for a WebApp in `refused` (its uid would never come).

    One rule wherever an owner is refused: by the server's dry-run (`finish`), by the
    server's create (`after_refusal`), or because it moved since a saved plan was made
    (core.planning.saved_plan). The Deployment itself is not refused: nothing is sent for
    it, apply reports it skipped, and the failure is counted once, on the WebApp.
    """
    if isinstance(action, Create | Update) and action.owner is not None and action.owner in refused:
        return Skip(
            action.key, f"its WebApp cannot be applied ({action.owner.display} was refused)"
        )
    return action


def after_refusal(chain: Chain, refused: Create, message: str) -> Chain:
    """A chain whose unchecked create the API server refused, as plan would have planned it.

    The create becomes Refused with the server's message, and each step waiting for it
    (a Deployment that needs its uid) a Skip, as `finish` makes them from a refused dry-run.
    """
    out: list[Step] = []
    for step in chain:
        if step == refused:
            out.append(
                Refused(refused.key, f"the API server refused the create: {message}", message)
            )
        elif isinstance(step, WriteStatus):
            out.append(step)
        else:
            out.append(unless_owner_refused(step, {refused.key}))
    return tuple(out)
