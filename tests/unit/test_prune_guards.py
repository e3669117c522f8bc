"""Prune guards: what may be deleted in one run, and --max-prune values."""

from __future__ import annotations

from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.planning.guards import check_prunes, delete_body, prune_limit
from driftctl.errors import UsageError
from driftctl.settings import MaxPrune, Policy
from driftctl.settings.declare import from_written


def live(name: str, *, instance: str = "default", protected: bool = False) -> dict[str, Any]:
    annotations = {c.PRUNE_ANNOTATION: c.PRUNE_DISABLED} if protected else {}
    return {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {
            "name": name,
            "namespace": "web",
            "uid": f"uid-{name}",
            "resourceVersion": "42",
            "labels": {c.INSTANCE_LABEL: instance},
            "annotations": annotations,
        },
    }


def reasons(
    candidates: list[dict[str, Any]], counts: tuple[int, int], options: Policy
) -> list[str | None]:
    decision = check_prunes(candidates, "default", counts, options)
    return [verdict.reason for verdict in decision.verdicts]


def test_object_of_another_instance_is_never_pruned() -> None:
    [reason] = reasons([live("a", instance="other")], (1, 1), Policy())

    assert reason is not None
    assert "lacks the label driftctl.example.com/instance=default" in reason


def test_prune_disabled_annotation_protects_the_object() -> None:
    got = reasons([live("a", protected=True), live("b")], (1, 4), Policy())

    assert got[0] is not None
    assert "driftctl.example.com/prune: disabled" in got[0]
    assert got[1] is None


def test_no_prune_keeps_everything_without_a_refusal() -> None:
    decision = check_prunes([live("a")], "default", (1, 2), Policy(prune=False))

    assert decision.verdicts[0].reason == "pruning is off (--no-prune)"
    assert decision.refusal is None


@pytest.mark.parametrize(
    ("allow_empty", "pruned"),
    [
        pytest.param(False, False, id="refused-without-allow-empty"),
        pytest.param(True, True, id="allowed-with-allow-empty"),
    ],
)
def test_empty_desired_set_prunes_nothing_unless_allowed(allow_empty: bool, pruned: bool) -> None:
    options = Policy(allow_empty=allow_empty, max_prune=MaxPrune(100, percent=True))

    decision = check_prunes([live("a"), live("b")], "default", (0, 2), options)

    assert all((verdict.reason is None) is pruned for verdict in decision.verdicts)
    assert (decision.refusal is None) is pruned
    if not pruned:
        assert decision.refusal is not None
        assert "--allow-empty" in decision.refusal


def test_more_deletions_than_max_prune_are_refused_naming_count_and_flag() -> None:
    candidates = [live(name) for name in "abcd"]

    decision = check_prunes(candidates, "default", (6, 10), Policy(max_prune=MaxPrune(3)))

    assert decision.refusal is not None
    assert "4 objects" in decision.refusal
    assert "--max-prune" in decision.refusal
    assert all(verdict.reason == decision.refusal for verdict in decision.verdicts)


def test_protected_objects_do_not_count_against_max_prune() -> None:
    candidates = [live("a", protected=True), live("b")]

    decision = check_prunes(candidates, "default", (1, 2), Policy(max_prune=MaxPrune(1)))

    assert decision.refusal is None


@pytest.mark.parametrize(
    ("max_prune", "managed", "limit"),
    [
        pytest.param(None, 10, 5, id="default-is-half"),
        pytest.param(None, 1, 1, id="default-allows-at-least-one"),
        pytest.param(None, 0, 1, id="default-with-nothing-managed"),
        pytest.param(MaxPrune(3), 10, 3, id="count"),
        pytest.param(MaxPrune(25, percent=True), 10, 2, id="percent-rounds-down"),
        pytest.param(MaxPrune(0), 10, 0, id="zero-prunes-nothing"),
    ],
)
def test_prune_limit(max_prune: MaxPrune | None, managed: int, limit: int) -> None:
    assert prune_limit(max_prune, managed) == limit


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        pytest.param("5", MaxPrune(5), id="count"),
        pytest.param("0", MaxPrune(0), id="zero"),
        pytest.param("25%", MaxPrune(25, percent=True), id="percent"),
        pytest.param(" 100% ", MaxPrune(100, percent=True), id="whitespace-and-all"),
    ],
)
def test_max_prune_parses_counts_and_percentages(text: str, parsed: MaxPrune) -> None:
    assert MaxPrune.parse(text) == parsed


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("-1", id="negative"),
        pytest.param("1.5", id="fraction"),
        pytest.param("101%", id="over-100-percent"),
        pytest.param("half", id="word"),
        pytest.param("%", id="bare-percent"),
    ],
)
def test_bad_max_prune_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="--max-prune"):
        from_written(Policy, max_prune=text)


def test_delete_carries_uid_and_resource_version_preconditions() -> None:
    body = delete_body(live("a"))

    assert body["preconditions"] == {"uid": "uid-a", "resourceVersion": "42"}
    assert body["kind"] == "DeleteOptions"


def test_cleanup_delete_of_an_owned_object_checks_the_uid_only() -> None:
    assert delete_body(live("a"), with_resource_version=False)["preconditions"] == {"uid": "uid-a"}
