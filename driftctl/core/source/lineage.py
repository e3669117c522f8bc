"""Where a commit stands against the last revision applied: descent, and the commits between.

Pure. The shell lists the commit graph it has (`git rev-list --parents` from the tips,
and the shallow commits, whose parents it does not have); these functions answer from it,
or answer None when the graph is too shallow to know, and the shell fetches more history
and asks again. An answer is never a guess: a commit is a descendant only when a path to
the anchor is seen, and not one only when the head's whole history is there.

- `descends`: whether the head is the anchor or descends from it. A run refuses a head
  that does not (a force-push back to an older commit, or to another branch), unless
  --allow-rewind.
- `between`: the commits reachable from the head and not from the anchor (`git rev-list
  HEAD ^ANCHOR`), newest first: what `--verify all` checks, and a pull request's commits.
- `to_check`: which commits a run verifies: the head alone without an anchor (a first run,
  an allowed rewind) or in `head` mode, else the head and every commit since the anchor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from driftctl.core.source.signatures import SHORT


@dataclass(frozen=True)
class CommitGraph:
    """The commits a repository holds from some tips down: each with its parents."""

    parents: Mapping[str, tuple[str, ...]]  # a shallow commit is listed with no parents
    shallow: frozenset[str] = frozenset()  # commits whose parents the repository lacks


def _history(graph: CommitGraph, tip: str) -> tuple[list[str], bool]:
    """Every commit reachable from `tip` in the graph, newest first (breadth first), and
    whether that is all of its history (no shallow commit, no parent missing)."""
    if tip not in graph.parents:
        return [], False
    seen = {tip}
    order = [tip]
    complete = True
    index = 0
    while index < len(order):
        commit = order[index]
        index += 1
        if commit in graph.shallow:
            complete = False
        for parent in graph.parents.get(commit, ()):
            if parent not in graph.parents:
                complete = False
            elif parent not in seen:
                seen.add(parent)
                order.append(parent)
    return order, complete


def descends(graph: CommitGraph, head: str, anchor: str) -> bool | None:
    """Whether `head` is `anchor` or one of its descendants; None: more history is needed."""
    if head == anchor:
        return True
    history, complete = _history(graph, head)
    if anchor in history:
        return True
    return False if complete else None


def between(graph: CommitGraph, head: str, anchor: str | None) -> tuple[str, ...] | None:
    """The commits reachable from `head` and not from `anchor`, newest first; None: more
    history is needed (both sides' histories must be whole for the answer to be exact)."""
    history, complete = _history(graph, head)
    if not complete:
        return None
    if anchor is None:
        return tuple(history)
    below, whole = _history(graph, anchor)
    if not whole:
        return None
    excluded = set(below)
    return tuple(commit for commit in history if commit not in excluded)


def to_check(
    head: str, anchor: str | None, every_commit: bool, since: tuple[str, ...] | None
) -> tuple[str, ...]:
    """The commits a run verifies (module docstring), `since` being `between`'s answer."""
    if anchor is None or not every_commit or since is None:
        return (head,)
    return since if head in since else (head, *since)


def rewind(anchor: str) -> str:
    """Why a head that does not descend from the anchor is refused, in one line's words."""
    return (
        f"it does not descend from {anchor[:SHORT]}, the last revision applied (a force-push "
        "back, or another branch; --allow-rewind applies it)"
    )


def kept(anchor: str | None) -> str:
    """What a refusal leaves in force, said after its reason."""
    if anchor is None:
        return "not applied (no revision was verified before)"
    return f"not applied; the cluster stays at {anchor[:SHORT]}"
