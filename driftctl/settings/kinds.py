"""The kinds of value a setting holds: how its text is read, checked and written back.

A kind knows nothing of where a value came from (a flag, its `DRIFTCTL_*` variable, a
`--config` file, a saved plan). It reads one text (`parse`), or one plain value of a YAML or
JSON document (`from_plain`), into one typed value, and writes a value back as text that it
reads again (`text`) or as plain data (`to_plain`). A value it cannot take raises `Refusal`,
whose reason reads after the setting's name (`must be ...`, `is not ...`), with a hint when
one helps. What a value means together with others (a key file needing its known-hosts
file) is the settings group's business, not the kind's. Pure.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")
E = TypeVar("E", bound=enum.StrEnum)
Check = Callable[[str], "str | None"]  # why a text is refused, or None

# How a reason may start to read right after a setting's name, with a space: a verb
# ("--max-prune must be ...") or the value it is about ("--ignore 'Pod:/x' names ...").
# Any other reason is a sentence of its own, after a colon.
_PREDICATES = ("must", "is ", "has ", "holds ", "names", "needs", "only", "cannot", "does", "'")


class Refusal(ValueError):
    """A value a kind cannot take: why (after the setting's name), and a hint or None.
    `within`: where inside a structured value (a mapping's key) the refused part is, so that
    a `--config` file can name its line and column."""

    def __init__(
        self, reason: str, hint: str | None = None, within: tuple[str | int, ...] = ()
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint
        self.within = within

    def about(self, name: str) -> str:
        """The reason after the name it is about: `--max-prune must be ...`,
        `--window: time zone 'x' is not known`; after a name that says where the value came
        from, `--max-prune (from DRIFTCTL_MAX_PRUNE): must be ...`."""
        predicate = self.reason.startswith(_PREDICATES) and not name.endswith(")")
        joint = " " if predicate else ": "
        return f"{name}{joint}{self.reason}"


class Kind(Generic[T]):
    """How one kind of value is read and written (module docstring)."""

    metavar = "TEXT"

    def parse(self, text: str) -> T:
        """The value a text stands for; Refusal when it stands for none."""
        raise NotImplementedError

    def text(self, value: T) -> str:
        """The value as text that `parse` reads back."""
        return str(value)

    def from_plain(self, value: object) -> T:
        """The value a YAML or JSON document holds: text (a number is read as its text, as
        `max-prune: 5`; true/false, a list or a mapping are no text), unless the kind says
        more."""
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise Refusal(f"must be a string, not {plain_type(value)}")
        return self.parse(str(value))

    def to_plain(self, value: T) -> object:
        """The value as a YAML or JSON document holds it."""
        return self.text(value)

    def adopt(self, value: object) -> T:
        """The value as the command line hands it over: text is parsed, a value the command
        line typed already is taken as it is."""
        return self.parse(value) if isinstance(value, str) else value  # type: ignore[return-value]


@dataclass(frozen=True)
class Text(Kind[str]):
    """Any text, or only the texts `check` finds no problem with."""

    check: Check | None = None
    hint: str | None = None

    def parse(self, text: str) -> str:
        problem = self.check(text) if self.check is not None else None
        if problem is not None:
            raise Refusal(problem, self.hint)
        return text


_TRUE = ("true", "1", "yes", "y", "on", "t")
_FALSE = ("false", "0", "no", "n", "off", "f", "")


@dataclass(frozen=True)
class Switch(Kind[bool]):
    """On or off: a flag without a value; as text `true`/`false` (and what click reads so)."""

    metavar = ""

    def parse(self, text: str) -> bool:
        word = text.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise Refusal(f"must be true or false, not {text!r}")

    def text(self, value: bool) -> str:
        return "true" if value else "false"

    def from_plain(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise Refusal(f"must be true or false, not {plain_type(value)}")
        return value

    def to_plain(self, value: bool) -> object:
        return value


@dataclass(frozen=True)
class Whole(Kind[int]):
    """A whole number, at least `minimum` and at most `maximum` where they are given."""

    minimum: int | None = None
    maximum: int | None = None
    metavar = "INTEGER"

    def parse(self, text: str) -> int:
        try:
            number = int(text.strip())
        except ValueError:
            raise Refusal(f"must be a whole number, not {text!r}") from None
        return self._bounded(number)

    def from_plain(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Refusal(f"must be a whole number, not {plain_type(value)}")
        return self._bounded(value)

    def to_plain(self, value: int) -> object:
        return value

    def adopt(self, value: object) -> int:
        return self.parse(value) if isinstance(value, str) else self._bounded(int(value))  # type: ignore[call-overload]

    def _bounded(self, number: int) -> int:
        low, high = self.minimum, self.maximum
        if (low is not None and number < low) or (high is not None and number > high):
            if high is None:
                raise Refusal(f"must be at least {low}, got {number}")
            if low is None:
                raise Refusal(f"must be at most {high}, got {number}")
            raise Refusal(f"must be {low} to {high}, got {number}")
        return number


@dataclass(frozen=True)
class Choice(Kind[E]):
    """One of the values of a StrEnum."""

    among: type[E]

    def parse(self, text: str) -> E:
        if text not in self.names:
            raise Refusal(f"must be one of {', '.join(self.names)}, not {text!r}")
        return self.among(text)

    @property
    def names(self) -> tuple[str, ...]:
        """The values, in their order."""
        return tuple(str(each) for each in self.among)


@dataclass(frozen=True)
class Word(Kind[str]):
    """One of a few words, kept as text (where no enum names them)."""

    among: tuple[str, ...]

    def parse(self, text: str) -> str:
        if text not in self.among:
            raise Refusal(f"must be one of {', '.join(self.among)}, not {text!r}")
        return text


@dataclass(frozen=True)
class FilePath(Kind[Path]):
    """A file's path (never read here: the run reads it when it needs it)."""

    folder: bool = False
    metavar = "FILE"

    def parse(self, text: str) -> Path:
        if not text.strip():
            raise Refusal("must be a path, not empty")
        return Path(text)


@dataclass(frozen=True)
class Listed(Kind[tuple[str, ...]]):
    """Comma-separated words (`a,b`; a YAML list too), each checked by `check`; blank: none.
    With `among`, each must be one of those."""

    among: tuple[str, ...] = ()
    check: Check | None = None
    hint: str | None = None

    def parse(self, text: str) -> tuple[str, ...]:
        if not text.strip():
            return ()
        return self._checked(part.strip() for part in text.split(","))

    def text(self, value: tuple[str, ...]) -> str:
        return ",".join(value)

    def from_plain(self, value: object) -> tuple[str, ...]:
        if isinstance(value, list) and all(isinstance(each, str) for each in value):
            return self._checked(each.strip() for each in value)
        return super().from_plain(value)

    def _checked(self, parts: Iterable[str]) -> tuple[str, ...]:
        words = tuple(parts)
        unknown = [word for word in words if self.among and word not in self.among]
        if unknown:
            raise Refusal(
                f"does not know {', '.join(map(repr, unknown))}",
                self.hint or f"name any of {', '.join(self.among)}, separated by commas",
            )
        for word in words:
            if self.check is not None and (problem := self.check(word)) is not None:
                raise Refusal(f"{word!r} {problem}", self.hint)
        return words


@dataclass(frozen=True)
class Parsed(Kind[T]):
    """A value with a grammar of its own: `read` parses it (ValueError or Refusal when it
    cannot), `write` writes it back (str by default)."""

    read: Callable[[str], T]
    write: Callable[[T], str] = str
    hint: str | None = None

    def parse(self, text: str) -> T:
        try:
            return self.read(text)
        except Refusal:
            raise
        except ValueError as bad:
            raise Refusal(str(bad), self.hint) from None

    def text(self, value: T) -> str:
        return self.write(value)


def plain_type(value: object) -> str:
    """What a YAML or JSON value is, as a person calls it (`a list`, `null`)."""
    if value is None:
        return "null"
    names = {bool: "true/false", int: "a number", float: "a number", str: "a string"}
    names |= {list: "a list", dict: "a mapping"}
    return names.get(type(value), type(value).__name__)
