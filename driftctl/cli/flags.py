"""How a flag is made: its environment variable, and flags that make one settings value.

Every flag also reads an environment variable, `DRIFTCTL_<FLAG>` (e.g. `--max-prune` from
`DRIFTCTL_MAX_PRUNE`), so a CronJob can be configured from a ConfigMap. A `FlagGroup` is
the flags of one settings value (driftctl.settings): a command names the group once and
receives the value, built and validated, instead of the flags. The groups themselves are
in cli.flag_groups.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast

import click

F = TypeVar("F", bound=Callable[..., object])
T = TypeVar("T")
Option = Callable[[Callable[..., Any]], Callable[..., Any]]  # what `flag` returns
ENV_PREFIX = "DRIFTCTL_"


def flag(name: str, *, env: Sequence[str] = (), **attributes: Any) -> Callable[[F], F]:
    """A click option `--name` that also reads DRIFTCTL_NAME (and `env`, in that order).

    `name` may be a pair, `prune/--no-prune`; its variable is named after the first.
    """
    variable = ENV_PREFIX + name.split("/", maxsplit=1)[0].upper().replace("-", "_")
    attributes.setdefault("show_default", True)
    return click.option(f"--{name}", envvar=[variable, *env], show_envvar=True, **attributes)


def output_flag(*formats: str) -> Callable[[F], F]:
    """-o/--output with the command's formats; the first is the default."""
    return click.option(
        "-o",
        "--output",
        type=click.Choice(list(formats)),
        default=formats[0],
        show_default=True,
        envvar=ENV_PREFIX + "OUTPUT",
        show_envvar=True,
    )


class FlagGroup(Generic[T]):
    """The flags of one settings value: a command receives the value, never the flags.

    As a decorator it adds its flags to a command, in the order written, and when the
    command runs it takes their values out of the command's arguments and passes
    `build(**values)` as the argument `keyword` instead. Groups build their values (and so
    validate their flags) in the order they are written above a command, top first.
    """

    def __init__(self, keyword: str, build: Callable[..., T], *flags: Option) -> None:
        self.keyword = keyword
        self.build = build
        self.flags = flags
        self.names = _parameter_names(flags)

    def __call__(self, command: F) -> F:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> object:
            values = {name: kwargs.pop(name) for name in self.names}
            kwargs[self.keyword] = self.build(**values)
            return command(*args, **kwargs)

        return cast(F, _with_options(run, self.flags))


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
