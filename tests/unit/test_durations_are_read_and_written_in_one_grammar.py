"""Every duration is read and written in one grammar (driftctl.durations): `500ms`, `30s`,
`5m`, `1h30m`, `2d`, decimals, plain seconds; anything else is refused naming the forms."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from driftctl import durations

MS = datetime.timedelta(milliseconds=1)
S = datetime.timedelta(seconds=1)
M = datetime.timedelta(minutes=1)
H = datetime.timedelta(hours=1)
D = datetime.timedelta(days=1)
FORMS = "write 500ms, 30s, 5m, 1h30m, 2d or plain seconds"


@pytest.mark.parametrize(
    ("text", "duration"),
    [
        pytest.param("500ms", 500 * MS, id="milliseconds"),
        pytest.param("30s", 30 * S, id="seconds"),
        pytest.param("5m", 5 * M, id="minutes"),
        pytest.param("1h30m", 90 * M, id="hours-and-minutes"),
        pytest.param("90m", 90 * M, id="minutes-past-an-hour"),
        pytest.param("2d", 2 * D, id="days"),
        pytest.param("1d12h", 36 * H, id="days-and-hours"),
        pytest.param("1d2h3m4s5ms", D + 2 * H + 3 * M + 4 * S + 5 * MS, id="every-unit"),
        pytest.param("1.5h", 90 * M, id="decimal-hours"),
        pytest.param("0.25s", 250 * MS, id="decimal-seconds"),
        pytest.param("1.5ms", datetime.timedelta(microseconds=1500), id="decimal-milliseconds"),
        pytest.param("300", 5 * M, id="plain-seconds"),
        pytest.param("0.5", 500 * MS, id="plain-decimal-seconds"),
        pytest.param("0", datetime.timedelta(0), id="plain-zero"),
        pytest.param("0s", datetime.timedelta(0), id="zero"),
        pytest.param("0h30m", 30 * M, id="a-zero-part"),
        pytest.param("05m", 5 * M, id="a-leading-zero"),
        pytest.param(" 5m ", 5 * M, id="spaces-around"),
        pytest.param("1m500ms", M + 500 * MS, id="minutes-then-milliseconds"),
    ],
)
def test_a_duration_is_read_in_any_of_its_forms(text: str, duration: datetime.timedelta) -> None:
    assert durations.parse(text) == duration


NOT_DURATIONS = {  # what is wrong with it: the text
    "empty": "",
    "unknown-unit": "5x",
    "years": "1y",
    "weeks": "1w",
    "capital-unit": "5M",
    "units-out-of-order": "30m1h",
    "a-unit-twice": "1h1h",
    "space-between-parts": "1h 30m",
    "negative": "-1s",
    "signed": "+1s",
    "no-digit-before-the-point": ".5s",
    "no-digit-after-the-point": "5.s",
    "exponent": "1e3",
    "infinity": "inf",
    "not-a-number": "nan",
    "words": "5 minutes",
    "unit-first": "m5",
    "unit-alone": "h",
    "non-ascii-digit": "\u0663s",
}


@pytest.mark.parametrize("text", NOT_DURATIONS.values(), ids=NOT_DURATIONS.keys())
def test_anything_else_is_refused_in_one_line_naming_the_forms(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration") as refused:
        durations.parse(text)

    assert str(refused.value) == f"{text!r} is not a duration: {FORMS}"
    assert "\n" not in str(refused.value)


def test_a_duration_longer_than_any_there_can_be_is_refused() -> None:
    with pytest.raises(ValueError, match="longer than any") as refused:
        durations.parse("9999999999d")

    assert str(refused.value) == (
        "'9999999999d' is longer than any duration can be (999999999d23h59m59.999999s)"
    )


@pytest.mark.parametrize(
    ("duration", "text"),
    [
        pytest.param(90 * M, "1h30m", id="hours-and-minutes"),
        pytest.param(2 * D, "2d", id="days"),
        pytest.param(D, "1d", id="a-day-not-24h"),
        pytest.param(12 * H, "12h", id="hours"),
        pytest.param(45 * S, "45s", id="seconds"),
        pytest.param(90 * S, "1m30s", id="minutes-and-seconds"),
        pytest.param(500 * MS, "500ms", id="milliseconds-under-a-second"),
        pytest.param(1500 * MS, "1.5s", id="a-decimal-second-over-one"),
        pytest.param(M + 500 * MS, "1m500ms", id="minutes-then-milliseconds"),
        pytest.param(datetime.timedelta(microseconds=1), "0.001ms", id="a-microsecond"),
        pytest.param(D + datetime.timedelta(microseconds=1), "1d0.001ms", id="a-day-and-a-bit"),
        pytest.param(datetime.timedelta(0), "0s", id="zero"),
    ],
)
def test_a_duration_is_written_in_one_form(duration: datetime.timedelta, text: str) -> None:
    assert durations.text(duration) == text


def test_a_negative_duration_is_not_written() -> None:
    with pytest.raises(ValueError, match="never negative"):
        durations.text(-S)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        pytest.param(1.0, "1s", id="one"),
        pytest.param(300.0, "5m", id="minutes"),
        pytest.param(5400.0, "1h30m", id="hours-and-minutes"),
        pytest.param(0.5, "500ms", id="under-a-second"),
        pytest.param(1.5, "1.5s", id="a-decimal-second"),
        pytest.param(0.0, "0s", id="zero"),
    ],
)
def test_seconds_are_written_and_read_as_durations(seconds: float, text: str) -> None:
    assert durations.seconds_text(seconds) == text
    assert durations.seconds(text) == seconds


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -1.0, 1e300])
def test_seconds_that_are_no_duration_are_refused(seconds: float) -> None:
    with pytest.raises(ValueError, match=r"no duration|never negative|longer than any"):
        durations.seconds_text(seconds)


any_duration = st.timedeltas(min_value=datetime.timedelta(0))
number = st.integers(0, 9999).map(str) | st.decimals(0, 9999, places=3).map(str)


@st.composite
def duration_texts(draw: st.DrawFn) -> str:
    """A duration as someone may write it: some units, in order, or plain seconds."""
    units = draw(st.lists(st.sampled_from(["d", "h", "m", "s", "ms"]), unique=True))
    ordered = [unit for unit in ("d", "h", "m", "s", "ms") if unit in units]
    return "".join(draw(number) + unit for unit in ordered) or draw(number)


@given(any_duration)
def test_what_is_written_reads_back_the_same(duration: datetime.timedelta) -> None:
    assert durations.parse(durations.text(duration)) == duration


@given(duration_texts())
def test_what_is_read_is_written_in_one_form_that_reads_the_same(text: str) -> None:
    duration = durations.parse(text)
    written = durations.text(duration)

    assert durations.parse(written) == duration
    assert durations.text(durations.parse(written)) == written
