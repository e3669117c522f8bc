"""The global flags, and the group that takes them before a command's name, as kubectl does.

- The flags every command takes: `--no-color` (besides NO_COLOR), `-q/--quiet`,
  `-v/--verbose`. They set the run's `Verbosity` and colour, read by cli.logs. They are no
  settings: they say how a person reads one run, and no --config file holds them.
- `Group`: `driftctl` itself, where global flags may come before the command name, as in
  `driftctl --kubeconfig k.yaml plan` (they are handed to the command), and whose help
  lists its commands by task, as kubectl's does (`Sections`: the table cli/__init__.py
  gives it).
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from driftctl.cli import layout
from driftctl.cli.options import GLOBAL_SECTION, Flag
from driftctl.settings.declare import ENV_PREFIX

# Flags that may come before the command name (kubectl's global flags): each command that
# takes one gets it from there. Those taking a value, and those that do not.
MOVABLE_WITH_VALUE = ("--kubeconfig", "--context", "--instance", "--log-format", "--config")
MOVABLE_ALONE = ("--no-color", "-q", "--quiet", "-v", "--verbose")
_QUIET_KEY = "driftctl.verbosity"
_COLOUR_KEY = "driftctl.no_colour"
Sections = tuple[tuple[str, tuple[str, ...]], ...]  # (heading, command names), in order


class Verbosity(enum.IntEnum):
    """How much a command says: -q (errors and the summary), normal, -v (unchanged too)."""

    QUIET = 0
    NORMAL = 1
    VERBOSE = 2


def verbosity() -> Verbosity:
    """The running command's verbosity (-q/-v), NORMAL outside a command."""
    context = click.get_current_context(silent=True)
    found = context.find_root().meta.get(_QUIET_KEY) if context else None
    return found if isinstance(found, Verbosity) else Verbosity.NORMAL


def colour_wanted(stream: Any = None) -> bool:
    """Colour only on a terminal, never with --no-color or NO_COLOR set (no-color.org)."""
    context = click.get_current_context(silent=True)
    refused = bool(context and context.find_root().meta.get(_COLOUR_KEY))
    terminal = (stream or sys.stdout).isatty()
    return terminal and not refused and not os.environ.get("NO_COLOR")


def _set_verbosity(level: Verbosity) -> Callable[[click.Context, click.Parameter, bool], None]:
    def store(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if not value:
            return
        meta = ctx.find_root().meta
        if meta.get(_QUIET_KEY, level) != level:
            raise click.UsageError("-q/--quiet and -v/--verbose cannot be used together", ctx)
        meta[_QUIET_KEY] = level

    return store


def _no_colour(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.find_root().meta[_COLOUR_KEY] = True


def global_params() -> list[click.Parameter]:
    """The global flags as parameters, made afresh for one command."""
    return [
        Flag(
            ["--no-color"],
            is_flag=True,
            expose_value=False,
            callback=_no_colour,
            section=GLOBAL_SECTION,
            envvar=[f"{ENV_PREFIX}NO_COLOR"],
            show_envvar=True,
            help="No colour, even on a terminal (as NO_COLOR=1 does).",
        ),
        Flag(
            ["-q", "--quiet"],
            is_flag=True,
            expose_value=False,
            callback=_set_verbosity(Verbosity.QUIET),
            section=GLOBAL_SECTION,
            envvar=[f"{ENV_PREFIX}QUIET"],
            show_envvar=True,
            help="Say less: no progress, no notes, no line per object; errors and the summary "
            "stay.",
        ),
        Flag(
            ["-v", "--verbose"],
            is_flag=True,
            expose_value=False,
            callback=_set_verbosity(Verbosity.VERBOSE),
            section=GLOBAL_SECTION,
            envvar=[f"{ENV_PREFIX}VERBOSE"],
            show_envvar=True,
            help="Say more: unchanged objects too.",
        ),
    ]


class Group(click.Group):
    """`driftctl`: its commands by task (`sections`), each summary whole, then its own
    flags; global flags before a command name are handed to the command (`driftctl
    --context prod plan` is `driftctl plan --context prod`), as kubectl takes them."""

    context_class = layout.Context

    def __init__(self, *args: Any, sections: Sections = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sections = sections

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, moved_after_command(args, set(self.commands)))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands under the heading of their task, their summaries in one column; one
        no section names is listed under the last (a unit test asks that each be placed)."""
        widest = max(map(len, self.list_commands(ctx)), default=0)
        for title, names in placed(self.sections, self.list_commands(ctx)):
            commands = [(name, self.get_command(ctx, name)) for name in names]
            rows = [
                (name.ljust(widest), each.get_short_help_str())
                for name, each in commands
                if each is not None and not each.hidden
            ]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_commands(ctx, formatter)
        click.Command.format_options(self, ctx, formatter)
        with formatter.section("Global flags (before or after the command)"):
            formatter.write_text(
                "--kubeconfig, --context, --instance and --log-format (where the command "
                "takes them), --no-color, -q/--quiet and -v/--verbose: each command's --help "
                "says what they do."
            )


def placed(sections: Sections, commands: Sequence[str]) -> Sections:
    """The sections with the commands that exist, in the sections' order; the commands no
    section names are added to the last."""
    named = {name for _, names in sections for name in names}
    left = tuple(name for name in commands if name not in named)
    found = [(title, tuple(n for n in names if n in commands)) for title, names in sections]
    if left:
        title, names = found.pop() if found else ("Other commands", ())
        found.append((title, names + left))
    return tuple(found)


def moved_after_command(args: Sequence[str], commands: set[str]) -> list[str]:
    """`args` with the global flags written before the command name moved right after it;
    anything else before it (--help, --version, an unknown flag) stays for the group."""
    before: list[str] = []
    moved: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in commands:
            return [*before, arg, *moved, *args[index + 1 :]]
        if arg in MOVABLE_WITH_VALUE and index + 1 < len(args):
            moved += [arg, args[index + 1]]
            index += 2
            continue
        if arg in MOVABLE_ALONE or arg.split("=", 1)[0] in MOVABLE_WITH_VALUE:
            moved.append(arg)
        else:
            before.append(arg)
        index += 1
    return [*before, *moved]
