"""One table says what each plan verb means (core.planning.verbs), and the rest agrees with it:
the plan's summary line, the Events, apply's outcomes, and which actions write nothing."""

from __future__ import annotations

import typing

import pytest

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Conflict,
    Plan,
    Quiet,
    Refused,
    Skip,
    Unchanged,
    is_changing,
    outcome_of,
)
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import Outcome
from driftctl.core.planning.verbs import MEANINGS, SUCCESS, Verb, counted
from driftctl.render.plan import plan_summary

KEY = ObjectKey(c.KIND, "web", "shop")


def test_every_verb_has_one_row_and_the_json_order_stays() -> None:
    assert set(MEANINGS) == set(Verb)
    # JSON summaries are stable: these keep their order, a new verb goes after them.
    assert [str(verb) for verb in Verb][:8] == [
        "create",
        "update",
        "unchanged",
        "prune",
        "cleanup",
        "replace",
        "skip",
        "conflict",
    ]


def test_the_actions_that_write_nothing_are_exactly_the_quiet_ones() -> None:
    quiet = set(typing.get_args(Quiet))

    for kind in typing.get_args(Action):
        assert (kind in quiet) is (not MEANINGS[kind.verb].writes), kind.__name__


@pytest.mark.parametrize(
    ("action", "outcome"),
    [
        pytest.param(Unchanged(KEY), Outcome.UNCHANGED, id="unchanged"),
        pytest.param(Skip(KEY, "why"), Outcome.SKIPPED, id="skip"),
        pytest.param(Refused(KEY, "why", "422"), Outcome.FAILED, id="refused"),
        pytest.param(Conflict(KEY, "theirs"), Outcome.FAILED, id="conflict"),
    ],
)
def test_an_action_that_writes_nothing_is_reported_as_its_verb_says(
    action: Action, outcome: Outcome
) -> None:
    assert not is_changing(action)
    assert outcome_of(action) is outcome


def test_the_summary_line_counts_in_the_tables_order() -> None:
    actions = (Conflict(KEY, "a"), Conflict(KEY, "b"), Skip(KEY, "c"), Unchanged(KEY))

    assert plan_summary(Plan(actions)) == (
        "Plan: 0 to create, 0 to update, 0 to prune, 1 unchanged, 1 skipped, 2 conflicts"
    )
    assert counted(Verb.CONFLICT, 1) == "1 conflict"
    assert SUCCESS[Verb.REPLACE] is Outcome.CONFIGURED
