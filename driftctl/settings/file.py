"""A `--config` file: the same settings as the flags, from one YAML mapping.

Keys are named as the flags are (`max-prune: 25%`, `window: [...]`), and one file serves
every command: a key the running command does not take is set aside (`unused`, which
`driftctl config view` shows), while a key no command takes is refused. Every value is
read by its setting's kind, whichever command runs, so a file is valid or not as a whole;
every problem is `file:line:column: reason` (exit 2), found before anything is read from
Git or the cluster. A file names secret files (`git-token-file`), never secrets: a value
holding a URL's password is refused. What the flags, the variables and the file each set
is the command line's to weigh (flag > variable > file > default).

Pure: the document comes parsed, with the place of each value (`Where`).
"""

from __future__ import annotations

import difflib
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from driftctl.errors import Problem
from driftctl.settings.declare import Grouped, Setting, declarations
from driftctl.settings.kinds import Refusal, plain_type

Where = Callable[[tuple[str | int, ...]], tuple[int, int]]  # a value's path -> line, column


@dataclass(frozen=True)
class Entry:
    """One key of the file: the setting it sets, its value (typed), and where it is written."""

    setting: Setting
    value: Any
    line: int
    column: int


@dataclass(frozen=True)
class ConfigFile:
    """A file's settings for one command: what it sets there (by parameter name) and the
    keys it does not take, with the commands that do."""

    file: str
    taken: Mapping[str, Entry]
    unused: tuple[tuple[str, int, int, tuple[str, ...]], ...]  # key, line, column, commands


def catalogue(groups: Iterable[type[Grouped]]) -> dict[str, list[Setting]]:
    """Every setting a file may name, by key (a key may name one setting of each of several
    commands, as `repo` names install's and a run's)."""
    out: dict[str, list[Setting]] = {}
    for group in groups:
        for each in declarations(group):
            if not each.argument:
                out.setdefault(each.name, []).append(each)
    return out


def read_config(
    file: str,
    body: Mapping[Any, Any],
    where: Where,
    command: str,
    known: Mapping[str, list[Setting]],
) -> ConfigFile | list[Problem]:
    """The file's settings for `command`, or every problem of the file."""
    problems: list[Problem] = []
    taken: dict[str, Entry] = {}
    unused = []
    for key, value in body.items():
        line, column = where((str(key),))
        refusal = _refusal(key, value, known, where)
        if isinstance(refusal, Problem):
            problems.append(refusal)
            continue
        settings = known[key]
        mine = [each for each in settings if command in (each.commands or ())]
        if not mine:
            commands = sorted({name for each in settings for name in each.commands or ()})
            unused.append((key, line, column, tuple(commands)))
            continue
        entry = _entry(mine[0], value, where, file)
        if isinstance(entry, Problem):
            problems.append(entry)
        else:
            taken[mine[0].parameter] = entry
    if problems:
        return [_in(file, each) for each in problems]
    return ConfigFile(file, taken, tuple(unused))


def _refusal(
    key: object, value: object, known: Mapping[str, list[Setting]], where: Where
) -> Problem | None:
    """Why a key cannot be in a file at all, or its value in none of its settings."""
    line, column = where((str(key),))
    if not isinstance(key, str) or key not in known:
        hint = _nearest(str(key), known)
        return Problem("", line, column, f"unknown key {key!r}{hint}")
    settings = known[key]
    if not any(each.in_file for each in settings):
        return Problem("", line, column, f"{key} names one run's input: give it as a flag")
    for each in settings:
        entry = _entry(each, value, where, "")
        if isinstance(entry, Problem):
            return entry
    return None


def _entry(setting: Setting, value: object, where: Where, file: str) -> Entry | Problem:
    line, column = where((setting.name,))
    try:
        return Entry(setting, _value(setting, value, where), line, column)
    except _At as at:
        return Problem(file, *at.place, at.refusal.about(setting.name))


class _At(Exception):
    """A refusal at a place in the file."""

    def __init__(self, refusal: Refusal, place: tuple[int, int]) -> None:
        super().__init__(refusal.reason)
        self.refusal, self.place = refusal, place


def _value(setting: Setting, value: object, where: Where) -> Any:
    path: tuple[str | int, ...] = (setting.name,)
    try:
        if value is None:
            if setting.default is not None:
                raise Refusal("must not be null (leave the key out for its default)")
            return None
        _refuse_secret(value)
        if not setting.many:
            return setting.kind.from_plain(value)
        items = value if isinstance(value, list) else [value]
        out = []
        for index, item in enumerate(items):
            path = (setting.name, index)
            _refuse_secret(item)
            out.append(setting.kind.from_plain(item))
        return tuple(out)
    except Refusal as refusal:
        raise _At(refusal, where(path + refusal.within)) from None


def _refuse_secret(value: object) -> None:
    """A file names secret files, never secrets: no URL with a password."""
    if isinstance(value, str) and "@" in value and "://" in value:
        try:
            secret = urllib.parse.urlsplit(value.strip()).password
        except ValueError:
            return
        if secret:
            raise Refusal(
                "holds a password in its URL: a --config file names secret files, never "
                "secrets (git-token-file for a Git token)"
            )


def _nearest(key: str, known: Mapping[str, list[Setting]]) -> str:
    """` (did you mean 'x'?)` for a key a letter or two away from a known one."""
    close = difflib.get_close_matches(key.replace("_", "-"), list(known), n=1, cutoff=0.8)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _in(file: str, problem: Problem) -> Problem:
    return Problem(file, problem.line, problem.column, problem.reason)


def shape_problem(file: str, body: object) -> Problem | None:
    """Why a document cannot be a settings file at all (it must be one mapping)."""
    if not isinstance(body, Mapping):
        return Problem(
            file, 1, 1, f"a --config file is one mapping of settings, not {plain_type(body)}"
        )
    return None
