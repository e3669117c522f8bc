"""Change windows (driftctl.schedules): the cron expression, the duration, the zone, the scope,
and when a scope is held, until when. Pure: the time is passed in."""

from __future__ import annotations

import datetime
import re

import pytest

from driftctl import durations
from driftctl.schedules import Cron, Scope, Window, held

UTC = datetime.UTC


def at(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).astimezone(UTC)


@pytest.mark.parametrize(
    ("expression", "moment", "matches"),
    [
        pytest.param("0 18 * * 5", "2026-12-04T18:00:00+00:00", True, id="friday-18h"),
        pytest.param("0 18 * * FRI", "2026-12-04T18:00:00+00:00", True, id="weekday-name"),
        pytest.param("0 18 * * 5", "2026-12-04T18:01:00+00:00", False, id="not-that-minute"),
        pytest.param("*/15 9-17 * * 1-5", "2026-12-07T17:45:00+00:00", True, id="step-range"),
        pytest.param("*/15 9-17 * * 1-5", "2026-12-06T10:00:00+00:00", False, id="sunday"),
        pytest.param("0 0 1 JAN-MAR *", "2026-02-01T00:00:00+00:00", True, id="month-names"),
        pytest.param("0 0 * * 7", "2026-12-06T00:00:00+00:00", True, id="7-is-sunday"),
        # Both day fields restricted: either matches (cron's rule), so the 13th, a Thursday.
        pytest.param("0 0 13 * 5", "2026-08-13T00:00:00+00:00", True, id="day-or-weekday"),
        pytest.param("@daily", "2026-12-04T00:00:00+00:00", True, id="macro"),
    ],
)
def test_a_cron_expression_names_the_minutes_it_names(
    expression: str, moment: str, matches: bool
) -> None:
    assert Cron.parse(expression).matches(at(moment)) is matches


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("allow 0 18 * * 5", "needs `for DURATION`", id="no-duration"),
        pytest.param("pause 0 18 * * 5 for 1h", "must start with deny or allow", id="kind"),
        pytest.param("deny 0 18 * * for 1h", "needs 5 fields", id="four-fields"),
        pytest.param("deny 60 18 * * 5 for 1h", "minute '60' is not valid (0-59", id="minute"),
        pytest.param(
            "deny 0 18 * * SUNDAY for 1h", "day of week 'SUNDAY' is not valid", id="weekday"
        ),
        pytest.param(
            "deny 0 18 * * 5 for 1y", "'1y' is not a duration: write 500ms", id="duration"
        ),
        pytest.param("deny 0 18 * * 5 for 0s", "duration '0s' must be more than zero", id="zero"),
        pytest.param("deny 0 18 * * 5 for 367d", "the duration may be at most 366d", id="long"),
        pytest.param("deny 0 18 * * 5 for 1h in Mars/Base", "time zone 'Mars/Base'", id="zone"),
        pytest.param("deny 0 18 * * 5 for 1h on fixes", "scopes are changes, drift", id="scope"),
        pytest.param("deny 0 18 * * 5 for 1h at 3", "only `in ZONE` and `on SCOPES`", id="more"),
        pytest.param("deny */0 * * * * for 1h", "minute '*/0' is not valid", id="step"),
    ],
)
def test_a_window_that_cannot_be_read_is_refused_saying_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        Window.parse(text)


FRIDAY_EVENING = Window.parse("deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes")


@pytest.mark.parametrize(
    ("moment", "scope", "until"),
    [
        pytest.param("2026-12-04T18:00:00+01:00", Scope.CHANGES, "2026-12-07 10:00", id="opens"),
        pytest.param("2026-12-07T09:59:00+01:00", Scope.PRUNES, "2026-12-07 10:00", id="last"),
        pytest.param("2026-12-07T10:00:00+01:00", Scope.CHANGES, None, id="closed-again"),
        pytest.param("2026-12-04T17:59:00+01:00", Scope.CHANGES, None, id="not-yet"),
        pytest.param("2026-12-05T12:00:00+01:00", Scope.DRIFT, None, id="out-of-scope"),
    ],
)
def test_a_deny_window_holds_its_scope_from_its_start_for_its_duration(
    moment: str, scope: Scope, until: str | None
) -> None:
    closed = held([FRIDAY_EVENING], scope, at(moment))

    if until is None:
        assert closed is None
    else:
        assert closed is not None
        assert f"until {until} (Europe/Berlin)" in closed.text


def test_outside_every_allow_window_a_scope_is_held_until_the_next_one_opens() -> None:
    office = Window.parse("allow 0 9 * * 1-5 for 8h in Europe/Berlin on changes")

    saturday = held([office], Scope.CHANGES, at("2026-12-05T12:00:00+01:00"))
    monday = held([office], Scope.CHANGES, at("2026-12-07T12:00:00+01:00"))
    drift = held([office], Scope.DRIFT, at("2026-12-05T12:00:00+01:00"))

    assert saturday is not None
    assert saturday.text.endswith("the next opens at 2026-12-07 09:00 (Europe/Berlin)")
    assert monday is None
    assert drift is None  # allow windows on changes say nothing of drift


def test_deny_wins_over_allow() -> None:
    office = Window.parse("allow 0 9 * * 1-5 for 8h")
    lunch = Window.parse("deny 0 12 * * * for 1h")

    closed = held([office, lunch], Scope.CHANGES, at("2026-12-07T12:30:00+00:00"))

    assert closed is not None
    assert closed.window is lunch


def test_a_start_the_clocks_skip_happens_at_the_jump_and_one_they_repeat_happens_once() -> None:
    night = Window.parse("deny 30 2 * * * for 10m in Europe/Berlin")

    skipped = night.next_open(at("2026-03-28T12:00:00+00:00"))  # 29 March: 02:00 -> 03:00
    first = night.next_open(at("2026-10-24T12:00:00+00:00"))  # 25 October: 03:00 -> 02:00
    assert first is not None
    second = night.next_open(first)

    assert skipped == at("2026-03-29T03:00:00+02:00")
    assert first == at("2026-10-25T02:30:00+02:00")
    assert second == at("2026-10-26T02:30:00+01:00")
    assert night.open_until(at("2026-03-29T03:05:00+02:00")) == at("2026-03-29T03:10:00+02:00")
    assert night.open_until(at("2026-10-25T02:35:00+01:00")) is None  # the hour again: shut


def test_a_start_every_half_hour_follows_real_time_through_the_repeated_hour() -> None:
    often = Window.parse("deny */30 * * * * for 10m in Europe/Berlin")
    starts = [often.next_open(at("2026-10-25T02:10:00+02:00"))]
    while len(starts) < 4:
        last = starts[-1]
        assert last is not None
        starts.append(often.next_open(last))

    assert starts == [
        at("2026-10-25T02:30:00+02:00"),
        at("2026-10-25T02:00:00+01:00"),
        at("2026-10-25T02:30:00+01:00"),
        at("2026-10-25T03:00:00+01:00"),
    ]


def test_a_window_is_shown_as_it_was_written() -> None:
    assert str(Window.parse("deny  0 18 * * 5   for 64h")) == "deny 0 18 * * 5 for 64h"


@pytest.mark.parametrize("text", ["90m", "1h30m", "2d", "45s", "1d12h", "1.5h", "5400", "366d"])
def test_a_window_s_duration_is_read_in_the_one_duration_grammar(text: str) -> None:
    assert Window.parse(f"deny @daily for {text}").duration == durations.parse(text)
