"""What every driftctl command is, as kubectl's are: its help, its global flags, its examples.

- `Command`: its flags listed under one heading per flag group (`Source flags`, `Cluster
  flags`...), its own first, the global ones last; examples after them; its summary whole
  in `driftctl --help`; `-o/--output` reading the command's own variable,
  DRIFTCTL_<COMMAND>_OUTPUT (one shared variable broke `driftctl crd | kubectl apply`).
  DRIFTCTL_OUTPUT, read by no command, is warned of when set, naming the variable the
  command's -o reads (`shared_output_warning`: a refusal would stop CronJobs that set it).
- The global flags every command takes: `--no-color` (besides NO_COLOR), `-q/--quiet`,
  `-v/--verbose`. They set the run's `Verbosity` and colour, read by cli.logs.
- `Group`: `driftctl` itself, where global flags may come before the command name, as in
  `driftctl --kubeconfig k.yaml plan` (they are handed to the command).
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from driftctl.cli.flags import ENV_PREFIX, OWN_SECTION, F, Flag, flag

GLOBAL_SECTION = "Global flags"
# Flags that may come before the command name (kubectl's global flags): each command that
# takes one gets it from there. Those taking a value, and those that do not.
MOVABLE_WITH_VALUE = ("--kubeconfig", "--context", "--instance", "--log-format")
MOVABLE_ALONE = ("--no-color", "-q", "--quiet", "-v", "--verbose")
_QUIET_KEY = "driftctl.verbosity"
_COLOUR_KEY = "driftctl.no_colour"
_WARNINGS_KEY = "driftctl.warnings"
SHARED_OUTPUT = f"{ENV_PREFIX}OUTPUT"  # read by no command: each -o reads its own


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


GLOBAL_FLAGS = (
    flag(
        "no-color",
        is_flag=True,
        expose_value=False,
        callback=_no_colour,
        section=GLOBAL_SECTION,
        help="No colour, even on a terminal (as NO_COLOR=1 does).",
    ),
    flag(
        "quiet",
        short="-q",
        is_flag=True,
        expose_value=False,
        callback=_set_verbosity(Verbosity.QUIET),
        section=GLOBAL_SECTION,
        help="Say less: no progress, no notes, no line per object; errors and the summary stay.",
    ),
    flag(
        "verbose",
        short="-v",
        is_flag=True,
        expose_value=False,
        callback=_set_verbosity(Verbosity.VERBOSE),
        section=GLOBAL_SECTION,
        help="Say more: unchanged objects too.",
    ),
)


class Command(click.Command):
    """A driftctl command (module docstring). `examples`: lines shown under `Examples:`,
    each `$ driftctl ...` command, or a `# comment` saying what the next one does."""

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = tuple(examples)
        self.params.extend(_global_params())
        for param in self.params:
            if param.name == "output" and self.name:
                param.envvar = f"{ENV_PREFIX}{self.name.upper().replace('-', '_')}_OUTPUT"

    def invoke(self, ctx: click.Context) -> Any:
        """Runs the command, after the warning a set DRIFTCTL_OUTPUT gets: said here, or by
        the command's log when it has one (--log-format: cli.logs.logged says it)."""
        warning = shared_output_warning(self, os.environ)
        if warning is not None:
            if any(param.name == "log_format" for param in self.params):
                ctx.meta.setdefault(_WARNINGS_KEY, []).append(warning)
            else:
                click.echo(f"warning: {warning}", err=True)
        return super().invoke(ctx)

    def get_short_help_str(self, limit: int = 45) -> str:
        """The first sentence of the help, whole: `driftctl --help` never cuts one short."""
        if self.short_help:
            return self.short_help
        first = (self.help or "").strip().split("\n\n", 1)[0]
        return " ".join(first.split())

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The options under one heading per section: the command's own, each flag
        group's in the order they first appear, the global flags, then -h/--help."""
        sections: dict[str, list[tuple[str, str]]] = {OWN_SECTION: []}
        tail: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None or isinstance(param, click.Argument):
                continue
            if param is self.get_help_option(ctx):
                tail.append(record)
                continue
            section = param.section if isinstance(param, Flag) else None
            sections.setdefault(section or OWN_SECTION, []).append(record)
        globals_ = sections.pop(GLOBAL_SECTION, [])
        for title, records in [*sections.items(), (GLOBAL_SECTION, globals_ + tail)]:
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The examples, as written (never rewrapped), then any epilog."""
        if self.examples:
            with formatter.section("Examples"):
                for line in self.examples:
                    formatter.write(f"{' ' * formatter.current_indent}{line}\n")
        super().format_epilog(ctx, formatter)


def shared_output_warning(command: click.Command, environ: Mapping[str, str]) -> str | None:
    """What a set DRIFTCTL_OUTPUT gets from a command with -o: no command reads it, and the
    variable this command's -o reads is named (None: not set, or the command has no -o)."""
    own = next((p.envvar for p in command.params if p.name == "output"), None)
    if SHARED_OUTPUT not in environ or not isinstance(own, str):
        return None
    return (
        f"{SHARED_OUTPUT} is set, but no command reads it: -o/--output of `driftctl "
        f"{command.name}` reads {own} (each command has formats of its own)"
    )


def early_warnings() -> list[str]:
    """The warnings found before a command's log was made (cli.logs.logged says them)."""
    context = click.get_current_context(silent=True)
    return list(context.meta.get(_WARNINGS_KEY, ())) if context else []


def _global_params() -> list[click.Parameter]:
    """The global flags as parameters, made afresh for one command."""

    def probe() -> None:
        """Only carries the options."""

    carrier: Callable[..., Any] = probe
    for option in reversed(GLOBAL_FLAGS):
        carrier = option(carrier)
    return list(click.command()(carrier).params)


def command(*, examples: Sequence[str] = (), **attributes: Any) -> Callable[[F], F]:
    """`@click.command()` making a driftctl `Command`, with its examples."""
    return click.command(cls=Command, examples=examples, **attributes)  # type: ignore[return-value]


class Group(click.Group):
    """`driftctl`: its commands' summaries whole, and global flags before a command name
    handed to the command (`driftctl --context prod plan` is `driftctl plan --context
    prod`), as kubectl takes them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, moved_after_command(args, set(self.commands)))

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)
        with formatter.section("Global flags (before or after the command)"):
            formatter.write_text(
                "--kubeconfig, --context, --instance and --log-format (where the command "
                "takes them), --no-color, -q/--quiet and -v/--verbose: each command's --help "
                "says what they do."
            )


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
