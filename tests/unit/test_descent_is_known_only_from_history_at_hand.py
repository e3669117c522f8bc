"""Where a commit stands against the last revision applied, from the commit graph Git holds:
a descendant only when a path to the anchor is seen, not one only when the head's whole
history is there, and None (fetch more) when a shallow graph cannot tell."""

from __future__ import annotations

import pytest

from driftctl.core.source.lineage import CommitGraph, between, descends, kept, rewind, to_check

#   a - b - c - m - h      (main; m merges s2)
#    \         /
#     s1 ---- s2           (a side branch from a)
WHOLE = CommitGraph(
    {
        "h": ("m",),
        "m": ("c", "s2"),
        "c": ("b",),
        "b": ("a",),
        "s2": ("s1",),
        "s1": ("a",),
        "a": (),
        "x": ("a",),  # another branch from a
    }
)
# The same fetched with depth 2 from h: m's parents are known, theirs are not.
SHALLOW = CommitGraph({"h": ("m",), "m": (), "c": (), "s2": ()}, frozenset({"m"}))


@pytest.mark.parametrize(
    ("graph", "head", "anchor", "answer"),
    [
        pytest.param(WHOLE, "h", "h", True, id="the-anchor-itself"),
        pytest.param(WHOLE, "h", "b", True, id="an-ancestor-on-the-first-parent"),
        pytest.param(WHOLE, "h", "s1", True, id="an-ancestor-through-a-merge"),
        pytest.param(WHOLE, "b", "h", False, id="a-force-push-back"),
        pytest.param(WHOLE, "x", "c", False, id="another-branch"),
        pytest.param(WHOLE, "h", "gone", False, id="an-anchor-git-no-longer-has"),
        pytest.param(SHALLOW, "h", "m", True, id="seen-in-a-shallow-graph"),
        pytest.param(SHALLOW, "h", "b", None, id="beyond-a-shallow-graph"),
        pytest.param(CommitGraph({}), "h", "b", None, id="the-head-not-fetched"),
    ],
)
def test_descent_is_answered_only_when_the_graph_can_tell(
    graph: CommitGraph, head: str, anchor: str, answer: bool | None
) -> None:
    assert descends(graph, head, anchor) is answer


def test_between_is_every_commit_not_reachable_from_the_anchor_newest_first() -> None:
    assert between(WHOLE, "h", "b") == ("h", "m", "c", "s2", "s1")
    assert between(WHOLE, "h", "h") == ()
    assert between(WHOLE, "x", "c") == ("x",)  # a pull request off an older base
    assert between(WHOLE, "b", None) == ("b", "a")


def test_between_needs_both_histories_whole() -> None:
    assert between(SHALLOW, "h", "m") is None
    half = CommitGraph({**WHOLE.parents, "b": ()}, frozenset({"b"}))
    assert between(half, "h", "c") is None


@pytest.mark.parametrize(
    ("anchor", "every", "since", "checked"),
    [
        pytest.param(None, True, None, ("h",), id="first-run-all-mode-checks-the-head"),
        pytest.param("b", False, None, ("h",), id="head-mode"),
        pytest.param("b", True, ("h", "m", "c"), ("h", "m", "c"), id="all-mode"),
        pytest.param("h", True, (), ("h",), id="all-mode-nothing-moved-checks-the-head"),
    ],
)
def test_which_commits_a_run_checks(
    anchor: str | None, every: bool, since: tuple[str, ...] | None, checked: tuple[str, ...]
) -> None:
    assert to_check("h", anchor, every, since) == checked


def test_the_words_of_a_refusal_name_the_anchor_kept() -> None:
    anchor = "9f8e7d6c5b4a" + "0" * 28
    assert rewind(anchor).startswith("it does not descend from 9f8e7d6c5b4a, the last revision")
    assert kept(anchor) == "not applied; the cluster stays at 9f8e7d6c5b4a"
    assert kept(None) == "not applied (no revision was verified before)"
