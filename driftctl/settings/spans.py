"""The kinds of value that are durations: held as seconds (`Seconds`) or as a timedelta
(`Span`), written in the one duration grammar (driftctl.durations: `500ms`, `30s`, `5m`,
`1h30m`, `2d`, or plain seconds) wherever they come from. Pure.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from driftctl import durations
from driftctl.settings.kinds import Kind, Refusal, plain_type


@dataclass(frozen=True)
class Seconds(Kind[float]):
    """A duration in seconds, written in the one duration grammar (driftctl.durations:
    `500ms`, `30s`, `5m`, `1h30m`, `2d`, or seconds), at least `minimum` seconds; with
    `whole`, whole seconds only (a Lease holds an integer)."""

    minimum: float = 0.0
    whole: bool = False
    metavar = "DURATION"

    def parse(self, text: str) -> float:
        try:
            seconds = durations.seconds(text)
        except ValueError as bad:
            raise Refusal(str(bad)) from None
        return self._bounded(seconds)

    def text(self, value: float) -> str:
        return durations.seconds_text(value)

    def from_plain(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise Refusal(f"must be a duration (30s, 5m, 2d or seconds), not {plain_type(value)}")
        return self.parse(value) if isinstance(value, str) else self._bounded(float(value))

    def adopt(self, value: object) -> float:
        return self.parse(value) if isinstance(value, str) else self._bounded(float(value))  # type: ignore[arg-type]

    def _bounded(self, seconds: float) -> float:
        if seconds < self.minimum:
            least = durations.seconds_text(self.minimum)
            raise Refusal(f"must be at least {least}, got {_shown(seconds)}")
        if self.whole and seconds != int(seconds):
            raise Refusal(
                f"must be whole seconds, got {durations.seconds_text(seconds)}",
                "a Lease's leaseDurationSeconds is an integer",
            )
        return seconds


@dataclass(frozen=True)
class Span(Kind[datetime.timedelta]):
    """A duration held as a timedelta (the one duration grammar), more than zero."""

    metavar = "DURATION"

    def parse(self, text: str) -> datetime.timedelta:
        try:
            span = durations.parse(text)
        except ValueError as bad:
            raise Refusal(str(bad)) from None
        if span <= datetime.timedelta(0):
            raise Refusal(f"must be more than zero, got {text!r}")
        return span

    def text(self, value: datetime.timedelta) -> str:
        return durations.text(value)

    def from_plain(self, value: object) -> datetime.timedelta:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise Refusal(f"must be a duration (90m, 12h, 2d or seconds), not {plain_type(value)}")
        return self.parse(str(value))


def _shown(seconds: float) -> str:
    """Seconds as a duration is written; a negative number (never a duration) as it is."""
    return durations.seconds_text(seconds) if seconds >= 0 else f"{seconds:g}"
