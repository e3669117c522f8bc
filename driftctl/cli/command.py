"""What every driftctl command is, as kubectl's are: its help, its global flags, its examples.

- `command`: a command made from its request (driftctl.settings.requests): an option per
  setting it takes (cli.options), `-o` with its formats, and `--config`; when it runs, its
  request is built from them and handed to the function as `request` (inside its log, for
  the commands that log: `logged`, cli.logs).
- `Command`: its help in kubectl's order (cli.layout): its summary (two lines at most),
  its examples, its flags under one heading per settings group (`Source flags`, `Cluster
  flags`...), its own first, the global ones last (cli.global_flags), then the rest of its
  description and its page; its summary whole in `driftctl --help`; `-o/--output` reading
  the command's own variable, DRIFTCTL_<COMMAND>_OUTPUT (one shared variable broke
  `driftctl crd | kubectl apply`). DRIFTCTL_OUTPUT, read by no command, is warned of when
  set, naming the variable the command's -o reads (`shared_output_warning`: a refusal
  would stop CronJobs that set it).
- `Family`: a command of commands (`config view`), shown as a command is, its commands
  after its flags.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from driftctl.cli import collector, layout
from driftctl.cli.config_file import config_option
from driftctl.cli.global_flags import global_params
from driftctl.cli.options import (
    GLOBAL_SECTION,
    OWN_SECTION,
    Flag,
    build_request,
    named_by_variable,
    options_of,
    output_option,
    setting_parameters,
)
from driftctl.settings.declare import ENV_PREFIX

_WARNINGS_KEY = "driftctl.warnings"
SHARED_OUTPUT = f"{ENV_PREFIX}OUTPUT"  # read by no command: each -o reads its own


class Command(click.Command):
    """A driftctl command (module docstring). `examples`: lines shown under `Examples:`,
    each `$ driftctl ...` command, or a `# comment` saying what the next one does."""

    context_class = layout.Context

    def __init__(
        self,
        *args: Any,
        examples: Sequence[str] = (),
        request: type[Any] | None = None,
        family: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.examples = tuple(examples)
        self.request = request
        path = f"{family}-{self.name}" if family else self.name
        if request is not None:
            self.params.append(config_option())
        self.params.extend(global_params())
        for param in self.params:
            if param.name == "output" and path:
                param.envvar = f"{ENV_PREFIX}{path.upper().replace('-', '_')}_OUTPUT"

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
        """The summary, whole: `driftctl --help` never cuts one short."""
        return self.short_help or layout.summary(self.help)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The summary, then the examples: a person sees the first flag without scrolling."""
        layout.write_summary(self.help, formatter)
        layout.write_examples(self.examples, formatter)

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
        """After the flags: the rest of the description, the command's page, any epilog."""
        layout.write_details(self.help, ctx.command_path, formatter)
        click.Command.format_epilog(self, ctx, formatter)


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


class Family(click.Group):
    """A command of commands (`driftctl config view`), shown as a command is: its summary,
    its examples, its own flags under their headings, its commands, then the rest."""

    context_class = layout.Context

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = tuple(examples)

    get_short_help_str = Command.get_short_help_str
    format_help_text = Command.format_help_text
    format_epilog = Command.format_epilog

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        Command.format_options(self, ctx, formatter)  # type: ignore[arg-type]
        self.format_commands(ctx, formatter)


Around = Callable[[str, Mapping[str, Any], Callable[..., Any]], Any]
"""Runs a command's body (`go(log)`) around its settings' values, as given: cli.logs.logged."""
Extras = Callable[[str], list[click.Parameter]]  # a command's parameters after -o


def command(
    request: type[Any] | None = None,
    *,
    outputs: Sequence[str] = (),
    logged: tuple[Around, Extras] | None = None,
    examples: Sequence[str] = (),
    family: str | None = None,
    long_lived: bool = False,
) -> Callable[[Callable[..., Any]], Command]:
    """A driftctl command from a function taking `request` (module docstring).

    Its parameters, in --help's order: one per setting of `request` (its groups in order),
    the function's own click parameters, `-o` with `outputs` (the first is the default),
    then the parameters `logged` adds; with `logged`, the function also takes `log`.
    `long_lived`: it runs until stopped (`watch`), so the garbage collector stays on
    (cli.collector).
    """

    def make(function: Callable[..., Any]) -> Command:
        name = function.__name__.replace("_", "-")
        own = list(reversed(getattr(function, "__click_params__", [])))
        params = options_of(request, name) if request is not None else []
        params += own
        if outputs:
            params.append(output_option(*outputs))
        if logged is not None:
            params += logged[1](name)
        around = logged[0] if logged else None
        run = _runner(function, name, request, around, params, long_lived=long_lived)
        return Command(
            name, callback=run, params=params, help=function.__doc__, examples=examples,
            request=request, family=family,
        )  # fmt: skip

    return make


def _runner(
    function: Callable[..., Any],
    name: str,
    request: type[Any] | None,
    around: Around | None,
    params: Sequence[click.Parameter],
    *,
    long_lived: bool,
) -> Callable[..., Any]:
    """The callback: the request built from the settings' values, inside `around`, with
    the garbage collector paused unless the command is `long_lived` (cli.collector)."""
    settings = setting_parameters(request, name) if request is not None else ()
    extra = {param.name for param in params} - set(settings) - _own_names(function)

    @functools.wraps(function)
    def run(**kwargs: Any) -> Any:
        raw = {key: kwargs.pop(key) for key in (*settings, *extra) if key in kwargs}
        names = named_by_variable(click.get_current_context(), params)  # where each came from

        def go(log: object = None) -> Any:
            built = {} if request is None else {"request": build_request(request, name, raw, names)}
            logs = {} if around is None else {"log": log}
            return function(**built, **logs, **kwargs)

        with collector.paused_for(long_lived=long_lived):
            return go() if around is None else around(name, raw, go)

    return run


def _own_names(function: Callable[..., Any]) -> set[str]:
    """The names of the function's own click parameters, and -o's."""
    own = {param.name for param in getattr(function, "__click_params__", []) if param.name}
    return own | {"output"}
