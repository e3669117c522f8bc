"""Change windows: cron expressions with a duration, a time zone and a scope, and when they hold.

A window is written as one line (a `--window` flag, a saved plan):

    deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes
    allow @daily for 2h

`deny` or `allow`; a five-field cron expression (minute, hour, day of month, month, day of
week: `*`, lists, ranges, steps, month and weekday names, and the macros @hourly, @daily,
@weekly, @monthly, @yearly); `for` a duration in driftctl.durations' grammar (`90m`,
`1h30m`, `2d`, `1.5h`, `5400`), more than zero and at most 366 days; optionally `in` an
IANA time zone (default UTC); optionally `on` the scopes it covers: `changes` (Git's own
changes), `drift` (corrections of what changed in the cluster) and `prunes` (removals of
what Git no longer declares); all three by default.

The window grammar is driftctl's own; the cron expression is cronsim's, which reads it as
Debian's cron does, on ZONE's wall clock, forward (the next start) and backward (the start
a window is open from) alike. When the clocks change, Debian's rule: a start at
a fixed time (its minute and hour fields without `*`) that the spring jump skips happens at
the jump (02:30 on a night the clocks go from 02:00 to 03:00 starts at 03:00), and one in
the hour the clocks repeat happens once, the first time; an expression whose minute or hour
is `*` (every 15 minutes, every hour) follows real time.

When a scope is held (`held`): a deny window covering it is open (until it closes), or
allow windows cover it and none is open (until the next one opens). Deny wins over allow.
Pure: the time is always passed in; zones come from the standard library's zoneinfo.
This module knows nothing of plans; core.planning.controls decides what a hold does.
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

from driftctl import durations

MAX_DURATION = datetime.timedelta(days=366)
SEARCH = datetime.timedelta(days=366)  # how far a window's next start is looked for
SECOND = datetime.timedelta(seconds=1)

_MACROS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}
# Each field as messages name it, and what it takes (cronsim says only which field).
_FIELDS = (
    ("minute", "0-59"),
    ("hour", "0-23"),
    ("day of month", "1-31"),
    ("month", "1-12 or JAN-DEC"),
    ("day of week", "0-7 or SUN-SAT"),
)
_CRONSIM_FIELDS = ("minute", "hour", "day-of-month", "month", "day-of-week")


class Scope(enum.StrEnum):
    """What a window holds."""

    CHANGES = "changes"  # Git's own changes: creates, and updates Git made
    DRIFT = "drift"  # corrections of what was changed in the cluster
    PRUNES = "prunes"  # removals of what Git no longer declares


ALL_SCOPES = frozenset(Scope)


@dataclass(frozen=True)
class Cron:
    """A five-field cron expression (or a macro), as written and as cronsim reads it."""

    text: str
    expression: str  # the five fields, a macro expanded

    @classmethod
    def parse(cls, text: str) -> Cron:
        """A cron expression, or ValueError saying what is wrong with it."""
        expression = _MACROS.get(text.strip().lower(), text.strip())
        fields = expression.split()
        if len(fields) != len(_FIELDS):
            raise ValueError(
                f"cron expression {text!r} needs 5 fields (minute hour day-of-month month "
                f"day-of-week) or a macro such as @daily, got {len(fields)}"
            )
        try:
            CronSim(expression, datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC))
        except CronSimError as refused:
            raise ValueError(_reason(text, fields, str(refused))) from None
        return cls(text.strip(), expression)

    def starts(
        self, where: ZoneInfo, moment: datetime.datetime, *, forward: bool
    ) -> Iterator[datetime.datetime]:
        """The starts after `moment` (forward) or at or before it (backward), on `where`'s
        wall clock under Debian's rule (module docstring), as UTC times."""
        local = moment.astimezone(where).replace(microsecond=0)
        # cronsim's first step is one second: backward from a second later takes in `moment`.
        first = local if forward else local + SECOND
        for start in CronSim(self.expression, first, reverse=not forward):
            at = start.astimezone(datetime.UTC)
            # A start in the repeated hour is given once, as its first time: moving through
            # that hour, cronsim may hand it back on the wrong side of `moment`.
            if (at > moment) if forward else (at <= moment):
                yield at

    def matches(self, moment: datetime.datetime) -> bool:
        """Whether a UTC minute is one the expression names."""
        at = moment.astimezone(datetime.UTC)
        return next(iter(self.starts(ZoneInfo("UTC"), at, forward=False)), None) == at

    def __str__(self) -> str:
        return self.text


def _reason(text: str, fields: list[str], refused: str) -> str:
    """cronsim's `Bad minute` as a message naming the field, its value and what it takes."""
    for (name, takes), theirs, value in zip(_FIELDS, _CRONSIM_FIELDS, fields, strict=True):
        if refused.lower().endswith(theirs):
            return (
                f"cron expression {text!r}: {name} {value!r} is not valid ({takes}, with "
                "lists, ranges and steps)"
            )
    return f"cron expression {text!r}: {refused}"


def positive_duration(text: str) -> datetime.timedelta:
    """A duration as driftctl.durations reads it, more than zero; ValueError otherwise."""
    duration = durations.parse(text)
    if duration <= datetime.timedelta(0):
        raise ValueError(f"duration {text!r} must be more than zero")
    return duration


def zone(name: str) -> ZoneInfo:
    """An IANA time zone by name; ValueError when there is none of that name."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"time zone {name!r} is not known (e.g. UTC, Europe/Berlin)") from None


class Kind(enum.StrEnum):
    DENY = "deny"
    ALLOW = "allow"


@dataclass(frozen=True)
class Window:
    """A deny or allow window: it opens at each time `cron` names and stays open `duration`."""

    kind: Kind
    cron: Cron
    duration: datetime.timedelta
    zone_name: str = "UTC"
    scopes: frozenset[Scope] = ALL_SCOPES
    written: str = ""  # as given (spaces collapsed): how messages and saved plans show it

    @classmethod
    def parse(cls, text: str) -> Window:
        """`deny|allow CRON for DURATION [in ZONE] [on SCOPE,...]`; ValueError with the reason."""
        words = text.split()
        text = " ".join(words)
        if not words or words[0] not in tuple(Kind):
            raise ValueError(f"window {text!r} must start with deny or allow")
        if "for" not in words:
            raise ValueError(f"window {text!r} needs `for DURATION` after its cron expression")
        at = words.index("for")
        cron = Cron.parse(" ".join(words[1:at]))
        rest = words[at + 1 :]
        if not rest:
            raise ValueError(f"window {text!r} needs a duration after `for`")
        duration = positive_duration(rest[0])
        if duration > MAX_DURATION:
            raise ValueError(f"window {text!r}: the duration may be at most 366d")
        options = _options(rest[1:], text)
        zone_name = options.get("in", "UTC")
        zone(zone_name)
        scopes = _scopes(options.get("on"), text)
        return cls(Kind(words[0]), cron, duration, zone_name, scopes, " ".join(words))

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.zone_name)

    def covers(self, scope: Scope) -> bool:
        return scope in self.scopes

    def open_until(self, now: datetime.datetime) -> datetime.datetime | None:
        """When the window open at `now` closes, or None when it is not open."""
        start = next(self.cron.starts(self.zone, now, forward=False), None)
        if start is None or start + self.duration <= now:
            return None
        return start + self.duration

    def next_open(self, now: datetime.datetime) -> datetime.datetime | None:
        """When the window next opens after `now` (None: not within a year)."""
        start = next(self.cron.starts(self.zone, now, forward=True), None)
        return start if start is not None and start - now <= SEARCH else None

    def __str__(self) -> str:
        if self.written:
            return self.written
        out = f"{self.kind} {self.cron} for {durations.text(self.duration)}"
        if self.zone_name != "UTC":
            out += f" in {self.zone_name}"
        if self.scopes != ALL_SCOPES:
            out += " on " + ",".join(scope for scope in Scope if scope in self.scopes)
        return out


def _options(words: Sequence[str], text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word not in ("in", "on") or index + 1 >= len(words) or word in options:
            raise ValueError(
                f"window {text!r}: after the duration come only `in ZONE` and `on SCOPES`, "
                f"not {' '.join(words[index:])!r}"
            )
        options[word] = words[index + 1]
        index += 2
    return options


def _scopes(text: str | None, window: str) -> frozenset[Scope]:
    if text is None:
        return ALL_SCOPES
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in tuple(Scope)]
    if unknown or not names:
        raise ValueError(
            f"window {window!r}: scopes are {', '.join(Scope)} (comma-separated), not {text!r}"
        )
    return frozenset(Scope(name) for name in names)


@dataclass(frozen=True)
class Closed:
    """A scope held by windows: which window, and until when (None: no end within a year)."""

    window: Window
    until: datetime.datetime | None

    @property
    def text(self) -> str:
        """`inside the deny window 'deny 0 18 * * 5 for 64h' until 2026-12-07 08:00 (UTC)`."""
        until = f" until {local_time(self.until, self.window.zone)}" if self.until else ""
        if self.window.kind is Kind.DENY:
            return f"inside the deny window '{self.window}'{until}"
        opens = (
            f"; the next opens at {local_time(self.until, self.window.zone)}"
            if self.until
            else "; none opens within a year"
        )
        return f"outside every allow window (such as '{self.window}'){opens}"


def local_time(moment: datetime.datetime, where: ZoneInfo) -> str:
    """A time as people read it on a window's zone: `2026-12-07 08:00 (Europe/Berlin)`."""
    return f"{moment.astimezone(where).strftime('%Y-%m-%d %H:%M')} ({where.key})"


def held(windows: Iterable[Window], scope: Scope, now: datetime.datetime) -> Closed | None:
    """Whether `scope` is held at `now`, by which window and until when (module docstring)."""
    covering = [window for window in windows if window.covers(scope)]
    denied = [
        (until, window)
        for window in covering
        if window.kind is Kind.DENY and (until := window.open_until(now)) is not None
    ]
    if denied:
        until, window = max(denied, key=lambda pair: pair[0])
        return Closed(window, until)
    allows = [window for window in covering if window.kind is Kind.ALLOW]
    if not allows or any(window.open_until(now) is not None for window in allows):
        return None
    upcoming = [(start, w) for w in allows if (start := w.next_open(now)) is not None]
    if not upcoming:
        return Closed(allows[0], None)
    start, window = min(upcoming, key=lambda pair: pair[0])
    return Closed(window, start)
