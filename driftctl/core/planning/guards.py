"""Prune guards: what driftctl may delete in one run, and the bodies its deletes carry.

Pure. A guard never deletes and never raises for a refused prune: it turns the candidate
into a skip with a reason, and a refusal message the run reports (the shell picks the
exit code).

The rules (DESIGN.md section 7), checked in this order:
1. only objects carrying this instance's label are ever deleted;
2. `driftctl.example.com/prune: disabled` on the live object protects it;
3. `--no-prune` turns pruning off;
4. an empty desired set prunes nothing unless `--allow-empty` (an empty checkout or a
   wrong `--path` must not wipe the cluster);
5. no more than `--max-prune` deletions in one run, all or nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning.objects import Obj, annotations_of, labels_of, metadata
from driftctl.settings import MaxPrune, Policy


def prune_limit(max_prune: MaxPrune | None, managed: int) -> int:
    """The allowed deletions; by default half the managed set, and always at least one,
    so a repository with a single WebApp can still rename it."""
    if max_prune is None:
        return max(1, managed // 2)
    return max_prune.limit(managed)


def is_ours(obj: Obj, instance: str) -> bool:
    """Whether the object carries this instance's label: the only proof of ownership."""
    return labels_of(obj).get(c.INSTANCE_LABEL) == instance


def prune_disabled(obj: Obj) -> bool:
    """Whether the live object opted out of pruning."""
    return annotations_of(obj).get(c.PRUNE_ANNOTATION) == c.PRUNE_DISABLED


def delete_body(
    obj: Obj, *, with_resource_version: bool = True, propagation: str = "Background"
) -> Obj:
    """DeleteOptions that only delete the object that was read: uid (and version) preconditions.

    Cleanup deletes owned Deployments with the uid alone: their status is rewritten by
    the Deployment controller all the time, and their owner is going anyway. `propagation`
    is --prune-propagation's (Background or Foreground).
    """
    meta = metadata(obj)
    preconditions = {"uid": str(meta.get("uid", ""))}
    if with_resource_version:
        preconditions["resourceVersion"] = str(meta.get("resourceVersion", ""))
    return {
        "apiVersion": "v1",
        "kind": "DeleteOptions",
        "preconditions": preconditions,
        "propagationPolicy": propagation,
    }


@dataclass(frozen=True)
class PruneVerdict:
    """One prune candidate and why it is kept (reason) or None when it may go.

    `by_run`: kept by this run alone (--no-prune, or a guard refusing the prunes), not by
    the object: it stays undeclared in Git, and the cluster still differs from Git.
    """

    obj: Obj
    reason: str | None
    by_run: bool = False


@dataclass(frozen=True)
class PruneDecision:
    """The verdict per candidate, in input order, and the refusal message if any."""

    verdicts: tuple[PruneVerdict, ...]
    refusal: str | None = None


def check_prunes(
    candidates: Sequence[Obj],
    instance: str,
    counts: tuple[int, int],
    policy: Policy,
    *,
    going_in_all: int | None = None,
) -> PruneDecision:
    """Apply the guards to prune candidates; `counts` is (desired objects, managed objects).

    `going_in_all`: when the candidates are only some of the run's (one WebApp's, in
    watch), how many candidates of the whole run no guard protects; the all-or-nothing
    limit counts those, not only these.
    """
    kept = {id(obj): reason for obj in candidates if (reason := protected(obj, instance))}
    going = [obj for obj in candidates if id(obj) not in kept]
    refusal = _refusal(len(going) if going_in_all is None else going_in_all, counts, policy)
    by_run = set()
    if refusal is not None or not policy.prune:
        kept |= {id(obj): refusal or "pruning is off (--no-prune)" for obj in going}
        by_run = {id(obj) for obj in going}
    verdicts = tuple(PruneVerdict(obj, kept.get(id(obj)), id(obj) in by_run) for obj in candidates)
    return PruneDecision(verdicts, refusal)


def protected(obj: Obj, instance: str) -> str | None:
    """Why a prune candidate is never deleted, whatever the counts (None: it may go)."""
    if not is_ours(obj, instance):
        return f"lacks the label {c.INSTANCE_LABEL}={instance}; never deleted"
    if prune_disabled(obj):
        return f"protected by the annotation {c.PRUNE_ANNOTATION}: {c.PRUNE_DISABLED}"
    return None


def _refusal(going: int, counts: tuple[int, int], policy: Policy) -> str | None:
    desired, managed = counts
    if not going or not policy.prune:
        return None
    if desired == 0 and not policy.allow_empty:
        return (
            f"refusing to prune {going} objects: the desired set is empty "
            "(pass --allow-empty if that is intended)"
        )
    limit = prune_limit(policy.max_prune, managed)
    if going > limit:
        return (
            f"refusing to prune {going} objects: more than "
            f"{_limit_text(policy.max_prune, managed, limit)} allows; "
            "raise --max-prune to allow it"
        )
    return None


def _limit_text(max_prune: MaxPrune | None, managed: int, limit: int) -> str:
    if max_prune is None:
        return f"the default --max-prune (half of {managed} managed = {limit})"
    if max_prune.percent:
        return f"--max-prune {max_prune} ({max_prune} of {managed} managed = {limit})"
    return f"--max-prune {max_prune}"
