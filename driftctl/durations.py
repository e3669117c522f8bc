"""The one grammar of a duration: every duration flag, annotation and window reads it here.

A duration is written as units in decreasing order, each at most once, each an integer or
a decimal: `500ms`, `30s`, `5m`, `1h30m`, `1.5h`, `2d`, `1d12h` (units d, h, m, s, ms);
or as a plain number of seconds: `300`, `0.5`. Nothing else: no sign, no spaces between
parts, no unit twice or out of order (`30m1h`), no other unit (`1y`, `1w`).

`text` writes a duration back in one form, the shortest this grammar has with whole units
first: days, hours and minutes, then what is left in seconds (`1h30m`, `2d`, `1m30.5s`),
or in milliseconds under a second (`500ms`, `1m500ms`); `0s` for nothing. Parts that are
zero are left out. `parse(text(d)) == d` for every duration.
Pure, and below everything that reads a duration: what a value may be (more than zero, at
most a year) is for the reader to say.
"""

from __future__ import annotations

import datetime
import math
import re
from decimal import Decimal, InvalidOperation

FORMS = "500ms, 30s, 5m, 1h30m, 2d or plain seconds"

# Each unit in microseconds (a timedelta's resolution), largest first: the order written.
_MILLISECOND = 1_000
_SECOND = 1_000 * _MILLISECOND
_UNITS = (("d", 86_400 * _SECOND), ("h", 3_600 * _SECOND), ("m", 60 * _SECOND))
_ALL_UNITS = (*_UNITS, ("s", _SECOND), ("ms", _MILLISECOND))
_NUMBER = r"[0-9]+(?:\.[0-9]+)?"
_PLAIN_SECONDS = re.compile(_NUMBER)
_WITH_UNITS = re.compile("".join(f"(?:({_NUMBER}){unit})?" for unit, _ in _ALL_UNITS))


def parse(text: str) -> datetime.timedelta:
    """A duration as written (module docstring); ValueError naming the forms otherwise."""
    written = text.strip()
    if _PLAIN_SECONDS.fullmatch(written):
        return _duration(Decimal(written) * _SECOND, text)
    match = _WITH_UNITS.fullmatch(written)
    if not written or match is None:
        raise ValueError(f"{text!r} is not a duration: write {FORMS}")
    parts = zip(match.groups(), _ALL_UNITS, strict=True)
    return _duration(sum((Decimal(n) * size for n, (_, size) in parts if n), Decimal(0)), text)


def _duration(microseconds: Decimal, written: str) -> datetime.timedelta:
    try:
        return datetime.timedelta(microseconds=int(microseconds.to_integral_value()))
    except (OverflowError, InvalidOperation):
        longest = text(datetime.timedelta.max)
        raise ValueError(f"{written!r} is longer than any duration can be ({longest})") from None


def text(duration: datetime.timedelta) -> str:
    """A duration in the grammar's one written form (module docstring): `1h30m`, `500ms`."""
    if duration < datetime.timedelta(0):
        raise ValueError(f"a duration is never negative: {duration.total_seconds():g} seconds")
    left = duration // datetime.timedelta(microseconds=1)
    out = ""
    for unit, size in _UNITS:
        count, left = divmod(left, size)
        out += f"{count}{unit}" if count else ""
    if not out and not left:
        return "0s"
    if left >= _SECOND:
        return out + _decimal(left, _SECOND) + "s"
    return out + (_decimal(left, _MILLISECOND) + "ms" if left else "")


def _decimal(microseconds: int, size: int) -> str:
    """`microseconds` in units of `size`, with as few decimals as it needs: `1.5`, `30`."""
    whole, part = divmod(microseconds, size)
    digits = len(str(size)) - 1
    return f"{whole}.{part:0{digits}d}".rstrip("0") if part else str(whole)


def seconds(text: str) -> float:
    """A duration as written, in seconds: `1m30s` is 90.0, `500ms` 0.5."""
    return parse(text).total_seconds()


def seconds_text(seconds: float) -> str:
    """Seconds as the grammar writes them: 5400.0 is `1h30m`, 0.5 `500ms`."""
    if not math.isfinite(seconds):
        raise ValueError(f"{seconds} seconds is no duration")
    try:
        return text(datetime.timedelta(seconds=seconds))
    except OverflowError:
        raise ValueError(f"{seconds:g} seconds is longer than any duration can be") from None
