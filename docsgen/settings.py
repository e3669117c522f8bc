"""The settings reference, made from the settings declarations (driftctl.settings).

One row per setting a `--config` file may hold: its key (the flag's name), the value it
takes, its default, its variable, the commands that take it, and whether a saved plan
records it. A setting declared, renamed or removed in the code is added, renamed or
removed here at the next build.
"""

from __future__ import annotations

from docsgen.markdown import code, plain, table
from driftctl.settings.declare import Setting, declarations
from driftctl.settings.kinds import Choice, Switch, Whole, Word
from driftctl.settings.requests import GROUPS
from driftctl.settings.spans import Seconds, Span

HEADER = ("key", "value", "default", "variable", "commands", "saved plan")


def keys() -> list[Setting]:
    """Every setting a file may hold, each once per declaration, sorted by key."""
    found = [
        each
        for group in GROUPS
        for each in declarations(group)
        if each.in_file and not each.argument
    ]
    return sorted(found, key=lambda each: (each.name, sorted(each.commands or ())))


def keys_table() -> str:
    """The table of every key a settings file may hold."""
    return table(HEADER, [_row(each) for each in keys()])


def _value(setting: Setting) -> str:
    """What a key holds, as a person reads it."""
    kind = setting.kind
    if isinstance(kind, Switch):
        return "true or false"
    if isinstance(kind, Choice | Word):
        names = kind.names if isinstance(kind, Choice) else kind.among
        return "one of " + ", ".join(names)
    if isinstance(kind, Whole):
        low, high = kind.minimum, kind.maximum
        bound = f" from {low}" if high is None else f" from {low} to {high}"
        return "a whole number" + (bound if low is not None else "")
    if isinstance(kind, Seconds | Span):
        return "a duration (500ms, 30s, 5m, 1h30m, 2d or seconds)"
    return setting.metavar or kind.metavar


def _row(setting: Setting) -> list[str]:
    value = _value(setting)
    if setting.many:
        value = f"a list, each {value}"
    default = "" if setting.default in (None, ()) else code(setting.text(setting.default))
    commands = ", ".join(sorted(setting.commands or ()))
    return [
        code(setting.name),
        plain(value),
        default,
        code(setting.variable),
        commands,
        "yes" if setting.recorded else "",
    ]
