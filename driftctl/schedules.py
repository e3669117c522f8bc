"""Change windows: cron expressions with a duration, a time zone and a scope, and when they hold.

A window is written as one line (a `--window` flag, a saved plan):

    deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes
    allow @daily for 2h

`deny` or `allow`; a five-field cron expression (minute, hour, day of month, month, day of
week; `*`, lists, ranges, steps, month and weekday names, and the macros @hourly, @daily,
@weekly, @monthly, @yearly); `for` a duration in driftctl.durations' grammar (`90m`,
`1h30m`, `2d`, `1.5h`, `5400`), more than zero and at most 366 days; optionally `in` an
IANA time zone (default UTC: the cron fields are read on that zone's wall clock, so a
02:30 start is skipped on the night the clocks jump over it and happens twice when they go
back); optionally `on` the scopes it covers: `changes` (Git's own changes), `drift`
(corrections of what changed in the cluster) and `prunes` (removals of what Git no longer
declares); all three by default.

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

from driftctl import durations

MINUTE = datetime.timedelta(minutes=1)
MAX_DURATION = datetime.timedelta(days=366)
SEARCH = datetime.timedelta(days=366)  # how far a window's next or last start is looked for

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_WEEKDAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
_MACROS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}


class Scope(enum.StrEnum):
    """What a window holds."""

    CHANGES = "changes"  # Git's own changes: creates, and updates Git made
    DRIFT = "drift"  # corrections of what was changed in the cluster
    PRUNES = "prunes"  # removals of what Git no longer declares


ALL_SCOPES = frozenset(Scope)


@dataclass(frozen=True)
class _Field:
    """One cron field: its name and range, and the names its values may be given by."""

    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()
    names_from: int = 0


_FIELDS = (
    _Field("minute", 0, 59),
    _Field("hour", 0, 23),
    _Field("day of month", 1, 31),
    _Field("month", 1, 12, _MONTHS, 1),
    _Field("day of week", 0, 7, _WEEKDAYS, 0),
)


@dataclass(frozen=True)
class Cron:
    """A five-field cron expression, as the set of values each field allows."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 is Sunday (7 is read as 0)
    any_day: bool  # the day-of-month field is `*`
    any_weekday: bool  # the day-of-week field is `*`

    @classmethod
    def parse(cls, text: str) -> Cron:
        """A cron expression, or ValueError saying what is wrong with it."""
        expanded = _MACROS.get(text.strip().lower(), text)
        parts = expanded.split()
        if len(parts) != len(_FIELDS):
            raise ValueError(
                f"cron expression {text!r} needs 5 fields (minute hour day-of-month month "
                f"day-of-week) or a macro such as @daily, got {len(parts)}"
            )
        values = [_values(part, spec) for part, spec in zip(parts, _FIELDS, strict=True)]
        weekdays = frozenset(0 if day == 7 else day for day in values[4])
        return cls(
            text.strip(),
            values[0],
            values[1],
            values[2],
            values[3],
            weekdays,
            parts[2].startswith("*"),
            parts[4].startswith("*"),
        )

    def day_matches(self, day: datetime.date) -> bool:
        """Whether the expression allows this day (cron's rule: when both the day of month
        and the day of week are restricted, either may match)."""
        if day.month not in self.months:
            return False
        in_month = day.day in self.days
        in_week = (day.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:
            return in_month and in_week
        return in_month or in_week

    def matches(self, moment: datetime.datetime) -> bool:
        """Whether a wall-clock minute is one the expression names."""
        return (
            moment.minute in self.minutes
            and moment.hour in self.hours
            and self.day_matches(moment.date())
        )

    def __str__(self) -> str:
        return self.text


def _values(part: str, spec: _Field) -> frozenset[int]:
    out: set[int] = set()
    for item in part.split(","):
        out |= _item(item, spec)
    return frozenset(out)


def _item(item: str, spec: _Field) -> set[int]:
    body, slash, step_text = item.partition("/")
    step = 1
    if slash:
        if not step_text.isdigit() or int(step_text) == 0:
            raise ValueError(f"{spec.name} {item!r}: the step after / must be a positive number")
        step = int(step_text)
    if body == "*":
        low, high = spec.low, spec.high
    elif "-" in body:
        first, _, last = body.partition("-")
        low, high = _number(first, spec, item), _number(last, spec, item)
        if low > high:
            raise ValueError(f"{spec.name} {item!r}: the range runs backwards")
    else:
        low = _number(body, spec, item)
        high = spec.high if slash else low
    return set(range(low, high + 1, step))


def _number(text: str, spec: _Field, item: str) -> int:
    upper = text.upper()
    if upper in spec.names:
        return spec.names.index(upper) + spec.names_from
    if not text.isdigit():
        raise ValueError(f"{spec.name} {item!r}: {text!r} is not a number or a known name")
    value = int(text)
    if not spec.low <= value <= spec.high:
        raise ValueError(f"{spec.name} {item!r}: {value} is out of {spec.low}-{spec.high}")
    return value


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
        start = _latest_start(self.cron, self.zone, now, self.duration)
        return None if start is None else start + self.duration

    def next_open(self, now: datetime.datetime) -> datetime.datetime | None:
        """When the window next opens after `now` (None: not within a year)."""
        return _next_start(self.cron, self.zone, now + MINUTE, SEARCH)

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


def _minute(moment: datetime.datetime) -> datetime.datetime:
    return moment.astimezone(datetime.UTC).replace(second=0, microsecond=0)


def _starts(
    cron: Cron, where: ZoneInfo, first: datetime.datetime, limit: datetime.timedelta, step: int
) -> Iterator[datetime.datetime]:
    """The UTC minutes from `first` (forward, step 1, or backward, step -1) that the
    expression names on `where`'s wall clock, within `limit`: a day that cannot match is
    skipped whole, an hour that cannot match too."""
    moment, end = _minute(first), _minute(first) + step * limit
    while (moment <= end) if step > 0 else (moment >= end):
        local = moment.astimezone(where)
        if not cron.day_matches(local.date()):
            skipped = _day_edge(local, step)
        elif local.hour not in cron.hours:
            skipped = _hour_edge(local, step)
        else:
            if local.minute in cron.minutes:
                yield moment
            skipped = moment + step * MINUTE
        # A skip always moves on, even where a zone's clocks jump (at least one minute).
        moment = max(skipped, moment + MINUTE) if step > 0 else min(skipped, moment - MINUTE)


def _day_edge(local: datetime.datetime, step: int) -> datetime.datetime:
    """The first minute of the next local day (forward), or the last of the day before."""
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if step > 0:
        return _minute(_wall(midnight + datetime.timedelta(days=1), local))
    return _minute(_wall(midnight, local)) - MINUTE


def _hour_edge(local: datetime.datetime, step: int) -> datetime.datetime:
    top = local.replace(minute=0, second=0, microsecond=0)
    if step > 0:
        return _minute(top) + datetime.timedelta(hours=1)
    return _minute(top) - MINUTE


def _wall(naive_local: datetime.datetime, like: datetime.datetime) -> datetime.datetime:
    """A wall-clock time on `like`'s zone (the earlier one when the clocks go back)."""
    return naive_local.replace(tzinfo=like.tzinfo, fold=0)


def _next_start(
    cron: Cron, where: ZoneInfo, after: datetime.datetime, limit: datetime.timedelta
) -> datetime.datetime | None:
    return next(_starts(cron, where, after, limit, 1), None)


def _latest_start(
    cron: Cron, where: ZoneInfo, now: datetime.datetime, duration: datetime.timedelta
) -> datetime.datetime | None:
    """The latest start in (now - duration, now]: the window is open at `now` from it."""
    for start in _starts(cron, where, now, duration, -1):
        if start + duration > now:
            return start
        return None
    return None


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
