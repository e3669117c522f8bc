"""A command's options, made from the settings declarations, and its request, built from them.

Every setting a command takes becomes one click option (driftctl.settings.declare says
what it is: name, kind, default, help, heading), listed under its group's heading in
`--help`, reading its variable `DRIFTCTL_<NAME>` (and those the declaration adds, such as
`KUBECONFIG`) and, through the context's default map, a `--config` file (cli.config):
click weighs them, flag > variable > file > default. The values come back typed by
click where click has the type (a switch, a whole number in a range, a choice, a path, a
duration), as text otherwise, and each settings group is built from them (`build_request`),
its kinds reading the text, the group checking its values together.

`-o/--output` is each command's own (its formats, its variable DRIFTCTL_<COMMAND>_OUTPUT):
no setting, no `--config` key.

A value refused names its flag, and the variable it came from only when it came from one
(`named`): click's own errors named every variable, even beside a flag typed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from driftctl import durations
from driftctl.cli.layout import kept_whole
from driftctl.settings.declare import Setting, build, groups_of, taken_by
from driftctl.settings.kinds import Choice, FilePath, Kind, Switch, Whole, Word
from driftctl.settings.spans import Seconds, Span
from driftctl.settings.urls import Url

R = TypeVar("R")
OWN_SECTION = "Flags"  # the heading of a command's own flags in --help
GLOBAL_SECTION = "Global flags"


class Flag(click.Option):
    """A click option that knows the heading it is listed under in `--help` (`section`:
    its group's title, or None for the command's own flags) and the setting it is."""

    def __init__(
        self, *args: Any, section: str | None = None, setting: Setting | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.section = section
        self.setting = setting

    def get_error_hint(self, ctx: click.Context | None) -> str:
        return named(self, ctx)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        """click's, with the default kept whole however the help is wrapped (cli.layout)."""
        record = super().get_help_record(ctx)
        default = self.get_help_extra(ctx).get("default")
        if record is None or not default:
            return record
        shown = f"default: {default}"
        return record[0], record[1].replace(shown, f"default: {kept_whole(default)}")


def named(param: click.Parameter, ctx: click.Context | None) -> str:
    """A parameter as an error names it: its long flag (an argument: its name), and the
    variable its value came from when it came from one: `--timeout (from DRIFTCTL_TIMEOUT)`."""
    flags = [each for each in param.opts if each.startswith("-")]
    name = max(flags, key=len) if flags else param.human_readable_name
    variable = _variable_given(param, ctx)
    return name if variable is None else f"{name} (from {variable})"


def _variable_given(param: click.Parameter, ctx: click.Context | None) -> str | None:
    """The variable the parameter's value came from (the first set, as click reads them)."""
    environment = click.core.ParameterSource.ENVIRONMENT
    if ctx is None or param.name is None or ctx.get_parameter_source(param.name) != environment:
        return None
    variables = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar or ())
    return next((each for each in variables if os.environ.get(each)), None)


def named_by_variable(ctx: click.Context, params: Sequence[click.Parameter]) -> dict[str, str]:
    """How the parameters whose values came from a variable are named (`named`), by name."""
    return {
        param.name: named(param, ctx)
        for param in params
        if param.name and _variable_given(param, ctx) is not None
    }


class Duration(click.ParamType[float]):
    """A duration in the one grammar (driftctl.durations), as its setting's kind reads it."""

    name = "duration"

    def __init__(self, kind: Seconds | Span) -> None:
        self.kind = kind

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "DURATION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        from driftctl.settings.kinds import Refusal

        try:
            return self.kind.parse(value)
        except Refusal as refusal:
            self.fail(refusal.reason, param, ctx)


class Formats(click.Choice[str]):
    """An output format, also as `-o=json` (kubectl's spelling: click reads `=json`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.startswith("="):
            value = value[1:]
        return super().convert(value, param, ctx)


def output_option(*formats: str) -> click.Option:
    """-o/--output with the command's formats; the first is the default. Its variable is
    the command's own, DRIFTCTL_<COMMAND>_OUTPUT (set by cli.command.Command)."""
    return Flag(
        ["-o", "--output"],
        type=Formats(list(formats)),
        default=formats[0],
        show_default=True,
        show_envvar=True,
        help="Output format: " + ", ".join(formats) + ".",
    )


def options_of(request: type[Any], command: str) -> list[click.Parameter]:
    """The options (and arguments) of every setting `command` takes, group by group in the
    request's order, each group's in the order declared."""
    out: list[click.Parameter] = []
    for _, group in groups_of(request):
        section = group.GROUP.title
        out.extend(parameter_of(each, command, section) for each in taken_by(group, command))
    return out


def parameter_of(setting: Setting, command: str, section: str | None) -> click.Parameter:
    """The click option (or argument) of one setting, as `command` shows it."""
    if setting.argument:
        return click.Argument([setting.parameter], nargs=-1, metavar=setting.metavar)
    spellings = [setting.flag]
    if setting.negative:
        spellings = [f"{setting.flag}/--{setting.negative}"]
    if setting.short:
        spellings.insert(0, setting.short)
    return Flag(
        [*spellings, setting.parameter],
        section=section,
        setting=setting,
        envvar=[setting.variable, *setting.env],
        show_envvar=True,
        help=_help(setting, command),
        required=setting.required,
        multiple=setting.many,
        metavar=setting.metavar
        or (setting.kind.metavar if isinstance(setting.kind, Url) else None),
        show_default=setting.show_default,
        **_typed(setting),
    )


def _help(setting: Setting, command: str) -> str:
    text = setting.help_of(command)
    if isinstance(setting.kind, Seconds | Span):  # the forms a duration takes, once per flag
        text = f"{text.removesuffix('.')} ({durations.FORMS})."
    return text


def _typed(setting: Setting) -> dict[str, Any]:
    """The click type and default of a setting: click's own type where it has one (so that
    --help shows ranges and choices as kubectl-like tools do), text otherwise, which the
    setting's kind reads when the group is built. Defaults are given as text, as typed."""
    kind, default = setting.kind, setting.default
    if isinstance(kind, Switch):
        return {"is_flag": True, "default": bool(default)}
    if setting.many:
        texts = tuple(kind.text(each) for each in default or ())
        return {"type": _splitting(setting.env_splitter), "default": texts}
    if isinstance(kind, Whole):
        return {"type": click.IntRange(kind.minimum, kind.maximum), "default": default}
    text = None if default in (None, ()) else kind.text(default)
    return {"type": _click_type(kind), "default": text}


def _click_type(kind: Kind[Any]) -> click.ParamType[Any]:
    """The click type a kind of one text is read with (click.STRING: the kind reads it)."""
    if isinstance(kind, Choice):
        return click.Choice(list(kind.names))
    if isinstance(kind, Word):
        return click.Choice(list(kind.among))
    if isinstance(kind, FilePath):
        return click.Path(file_okay=not kind.folder, dir_okay=kind.folder, path_type=Path)
    if isinstance(kind, Seconds | Span):
        return Duration(kind)
    return click.STRING


class _Semicolons(click.types.StringParamType):
    """Text, several in one variable separated by `;` (a window holds spaces)."""

    envvar_list_splitter = ";"


def _splitting(splitter: str | None) -> click.ParamType[str]:
    """Text, several in one variable separated by `splitter` (None: white space)."""
    if splitter is None:
        return click.STRING
    if splitter != ";":
        raise ValueError(f"no variable splits on {splitter!r}")
    return _Semicolons()


def build_request(
    request: type[R],
    command: str,
    values: Mapping[str, object],
    names: Mapping[str, str] | None = None,
) -> R:
    """The command's request from its parameters' values: each group built in order (so a
    bad value is refused in --help's order), the others taken as given by name. `names`: how
    a refusal names a parameter other than by its flag (`named_by_variable`)."""
    groups = dict(groups_of(request))
    built = {name: build(group, values, command, names) for name, group in groups.items()}
    return request(**built)


def setting_parameters(request: type[Any], command: str) -> tuple[str, ...]:
    """The parameter names of every setting `command` takes."""
    return tuple(
        each.parameter for _, group in groups_of(request) for each in taken_by(group, command)
    )


def given(ctx: click.Context, *names: str) -> tuple[str, ...]:
    """The flags among `names` set on the command line or by their variable (a default, or a
    `--config` file that serves every command, is not given)."""
    unset = (None, click.core.ParameterSource.DEFAULT, click.core.ParameterSource.DEFAULT_MAP)
    return tuple(
        "--" + name.replace("_", "-")
        for name in names
        if ctx.get_parameter_source(name) not in unset
    )


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def with_parameters(params: Sequence[click.Parameter]) -> Decorator:
    """A decorator adding ready-made parameters to a command, in the order given."""

    def add(function: Callable[..., Any]) -> Callable[..., Any]:
        existing = getattr(function, "__click_params__", [])
        function.__click_params__ = [*reversed(params), *existing]  # type: ignore[attr-defined]
        return function

    return add
