"""How a flag is made: its environment variable, its section, durations, flags that make one
settings value.

Every flag but -o also reads an environment variable, `DRIFTCTL_<FLAG>` (e.g. `--max-prune`
from `DRIFTCTL_MAX_PRUNE`), so a CronJob can be configured from a ConfigMap; `-o/--output`
reads `DRIFTCTL_<COMMAND>_OUTPUT`, one per command (cli.command names it, and warns of a set
DRIFTCTL_OUTPUT), since each command has formats of its own. A `FlagGroup` is the flags of
one settings value (driftctl.settings): a command names the group once and receives the
value, built and validated, instead of the flags; its flags show under the group's own
heading in `--help`. The groups themselves are in cli.flag_groups.

Values as kubectl takes them: durations as `30s`, `5m`, `1h30m` or plain seconds
(`Duration`); `-o json` and `-o=json` alike.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast

import click

F = TypeVar("F", bound=Callable[..., object])
T = TypeVar("T")
Option = Callable[[Callable[..., Any]], Callable[..., Any]]  # what `flag` returns
ENV_PREFIX = "DRIFTCTL_"
OWN_SECTION = "Flags"  # the heading of a command's own flags in --help


class Flag(click.Option):
    """A click option that knows the heading it is listed under in `--help` (`section`:
    its FlagGroup's title, or None for the command's own flags)."""

    def __init__(self, *args: Any, section: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.section = section


def flag(name: str, *, env: Sequence[str] = (), **attributes: Any) -> Callable[[F], F]:
    """A click option `--name` that also reads DRIFTCTL_NAME (and `env`, in that order).

    `name` may be a pair, `prune/--no-prune`; its variable is named after the first.
    `short` gives it a one-letter spelling too (`short="-q"`).
    """
    variable = ENV_PREFIX + name.split("/", maxsplit=1)[0].upper().replace("-", "_")
    attributes.setdefault("show_default", True)
    spellings = [f"--{name}"]
    if short := attributes.pop("short", None):
        spellings.insert(0, short)
    return click.option(
        *spellings, cls=Flag, envvar=[variable, *env], show_envvar=True, **attributes
    )


class Formats(click.Choice[str]):
    """An output format, also as `-o=json` (kubectl's spelling: click reads `=json`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.startswith("="):
            value = value[1:]
        return super().convert(value, param, ctx)


def output_flag(*formats: str) -> Callable[[F], F]:
    """-o/--output with the command's formats; the first is the default. Its variable is
    the command's own, DRIFTCTL_<COMMAND>_OUTPUT (set by cli.command.Command)."""
    return click.option(
        "-o",
        "--output",
        cls=Flag,
        type=Formats(list(formats)),
        default=formats[0],
        show_default=True,
        show_envvar=True,
        help="Output format: " + ", ".join(formats) + ".",
    )


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


class Duration(click.ParamType[float]):
    """Seconds, written as kubectl writes durations (`30s`, `5m`, `1h30m`, `500ms`) or as a
    plain number of seconds (`300`, `0.5`); at least `minimum` seconds."""

    name = "duration"

    def __init__(self, minimum: float = 0.0) -> None:
        self.minimum = minimum

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "DURATION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int | float):
            seconds = float(value)
        else:
            seconds = self._seconds(str(value).strip(), param, ctx)
        if seconds < self.minimum:
            self.fail(f"must be at least {seconds_text(self.minimum)}, got {value!r}", param, ctx)
        return seconds

    def _seconds(
        self, text: str, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            return float(text)
        except ValueError:
            pass
        parts = _DURATION.findall(text)
        if not parts or "".join(number + unit for number, unit in parts) != text:
            self.fail(
                f"{text!r} is not a duration: write 30s, 5m, 1h30m, 500ms or plain seconds",
                param,
                ctx,
            )
        return sum(float(number) * _UNITS[unit] for number, unit in parts)


def seconds_text(seconds: float) -> str:
    """Seconds as a duration is written: `1s`, `5m`, `1h30m`, `0.5s`."""
    if seconds and seconds == int(seconds):
        whole = int(seconds)
        hours, rest = divmod(whole, 3600)
        minutes, secs = divmod(rest, 60)
        parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else ""]
        return "".join(parts) + (f"{secs}s" if secs or not any(parts) else "")
    return f"{seconds:g}s"


class FlagGroup(Generic[T]):
    """The flags of one settings value: a command receives the value, never the flags.

    As a decorator it adds its flags to a command, in the order written, under the heading
    `title` in --help, and when the command runs it takes their values out of the
    command's arguments and passes `build(**values)` as the argument `keyword` instead.
    Groups build their values (and so validate their flags) in the order they are written
    above a command, top first.
    """

    def __init__(
        self, keyword: str, build: Callable[..., T], *flags: Option, title: str | None = None
    ) -> None:
        self.keyword = keyword
        self.build = build
        self.flags = flags
        self.title = title
        self.names = _parameter_names(flags)

    def __call__(self, command: F) -> F:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> object:
            values = {name: kwargs.pop(name) for name in self.names}
            kwargs[self.keyword] = self.build(**values)
            return command(*args, **kwargs)

        decorated = _with_options(run, self.flags)
        for param in getattr(decorated, "__click_params__", []):
            if isinstance(param, Flag) and param.name in self.names and param.section is None:
                param.section = self.title
        return cast(F, decorated)


def _with_options(command: Callable[..., Any], options: Sequence[Option]) -> Callable[..., Any]:
    """`command` with `options`, shown in --help in the order given."""
    for option in reversed(options):
        command = option(command)
    return command


def _parameter_names(options: Sequence[Option]) -> tuple[str, ...]:
    """The names click gives the parameters of `options`, in the order shown in --help."""

    def probe() -> None:
        """Only carries the options, to read their names."""

    command = click.command()(_with_options(probe, options))
    return tuple(param.name for param in command.params if param.name)


def given(ctx: click.Context, *names: str) -> tuple[str, ...]:
    """The flags among `names` set on the command line or by their variable."""
    defaulted = (None, click.core.ParameterSource.DEFAULT)
    return tuple(
        "--" + name.replace("_", "-")
        for name in names
        if ctx.get_parameter_source(name) not in defaulted
    )
