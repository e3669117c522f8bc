"""Where a command's lines go: the text log for a person, the JSON log for a pipeline.

`plan`, `apply` and `watch` log as text for a person (the default, `TextLog`) or, with
`--log-format json`, as one JSON object per line on stderr (cli.json_log): then stdout
carries only what `-o` asks for, and nothing else is printed, so a log pipeline can parse
every line. The other cluster commands print their notes as the text log does. Colour only
on a terminal (not with --no-color or NO_COLOR); -q keeps errors, warnings and summaries
only, -v adds the unchanged objects (cli.global_flags.Verbosity).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from driftctl.cli.command import early_warnings
from driftctl.cli.global_flags import Verbosity, colour_wanted, verbosity
from driftctl.cli.json_log import JsonLog
from driftctl.cli.options import options_of
from driftctl.render.style import Style
from driftctl.settings.outputs import Logging

if TYPE_CHECKING:
    from driftctl.core.planning.actions import Plan
    from driftctl.core.planning.outcomes import ApplyReport
    from driftctl.shell.apply import Progress, Tick
    from driftctl.shell.terminal import TerminalProgress


def style() -> Style:
    """Colour only on a terminal, never with --no-color or NO_COLOR set (no-color.org)."""
    return Style(colour=colour_wanted())


class TextLog:
    """A cluster command's log for a person: object lines on stdout, the rest on stderr.

    On a terminal (`terminal`: stderr is one) it also shows how far the run is, on one
    line of stderr that is erased before anything else is printed and when the run ends.
    """

    def __init__(self, style: Style, terminal: TerminalProgress | None = None) -> None:
        self.style = style
        self.terminal = terminal

    @contextlib.contextmanager
    def run(self, command: str) -> Iterator[None]:
        """Errors go up to main(), which prints them (after the progress line is erased)."""
        try:
            yield
        finally:
            self._clear()

    def _clear(self) -> None:
        if self.terminal:
            self.terminal.clear()

    def tick(self, output: str) -> Tick:
        """How far the run is, on the terminal: never with JSON or Markdown output."""
        from driftctl.shell.apply import no_tick

        return self.terminal.tick if self.terminal and output == "text" else no_tick

    def report(self, text: str) -> None:
        """The command's report on stdout, the progress line erased first (both may be one
        terminal)."""
        self._clear()
        click.echo(text, nl=False)

    def retry(self, line: str) -> None:
        """A retry, as it happens: a person watching the run should know now (not with -q)."""
        if verbosity() is Verbosity.QUIET:
            return
        self._clear()
        click.echo(f"note: {line}", err=True)

    def warn(self, line: str) -> None:
        self._clear()
        click.echo(f"warning: {line}", err=True)

    def say(self, line: str) -> None:
        """What `watch` does besides its objects (leading, standby, a full pass), on stderr."""
        if verbosity() is Verbosity.QUIET:
            return
        self._clear()
        click.echo(line, err=True)

    def warnings(self, desired_warnings: Sequence[object]) -> None:
        for warning in desired_warnings:
            self.warn(str(warning))

    def progress(self, output: str) -> Progress:
        """Text output as apply goes: a line per changed object and per status written."""
        from driftctl.core.planning.objects import ObjectKey
        from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
        from driftctl.render import plan as plan_render
        from driftctl.shell.apply import Progress

        level = verbosity()
        if output != "text" or level is Verbosity.QUIET:
            return Progress(tick=self.tick(output))

        def echo(line: str) -> None:
            self._clear()
            click.echo(line)

        def outcome(item: ObjectOutcome) -> None:
            if item.outcome is not Outcome.UNCHANGED or level is Verbosity.VERBOSE:
                echo(plan_render.outcome_line(item, self.style))

        def status(key: ObjectKey, written: dict[str, Any]) -> None:
            echo(plan_render.status_line(key, written, self.style))

        return Progress(outcome, status, self.tick(output))

    def planned(self, plan: Plan) -> None:
        """Apply is about to carry out `plan`: a suspended instance says so first, on stderr
        (stdout carries only what -o asks for)."""
        from driftctl.render import plan as plan_render

        for line in plan_render.notices(plan):
            self._clear()
            click.echo(self.style.paint(line, "cyan"), err=True)

    def ask(self, plan: Plan) -> bool:
        """Whether a person at the terminal lets apply go on with `plan`, asked only when it
        deletes what runs (the verbs that ask: core.planning.verbs); yes when it does not."""
        from driftctl.core.planning.verbs import MEANINGS, counted
        from driftctl.render import plan as plan_render

        asked = [action for action in plan.actions if MEANINGS[action.verb].asks]
        if not asked:
            return True
        self._clear()
        for action in asked:
            click.echo(plan_render.action_lines(action, self.style)[0], err=True)
        verbs = [verb for verb, row in MEANINGS.items() if row.asks]
        what = ", ".join(counted(verb, plan.count(verb)) for verb in verbs if plan.count(verb))
        return click.confirm(f"Apply, with {what}?", default=False, err=True)

    def plan_done(self, plan: Plan, code: int, output: str) -> None:
        """The plan was printed on stdout already; a guard's refusal is said on stderr too
        when that plan is a document (-o json, yaml or markdown), as apply says it: the run
        exits 5 for it, and a CI log shows stderr first."""
        if output == "text":  # its text says `refused: ...` where a person reads it
            return
        self._clear()
        for refusal in plan.refusals:
            click.echo(self.style.paint(f"refused: {refusal}", "red"), err=True)

    def applied(self, report: ApplyReport, output: str) -> None:
        from driftctl.render import plan as plan_render

        self._clear()
        for refusal in report.refusals:  # on stderr whatever -o is: the run exits 5 for it
            click.echo(self.style.paint(f"refused: {refusal}", "red"), err=True)
        if output == "text":
            click.echo(plan_render.outcome_summary(report.outcomes))
            if report.waited is not None:
                click.echo(plan_render.rollout_summary(report))


Log = TextLog | JsonLog


def log_for(
    log_format: str, instance: str, shard: tuple[int, int], repo: str, token_file: Path | None
) -> Log:
    """The log a cluster command writes, as --log-format asks."""
    from driftctl.render import log as log_render
    from driftctl.render.progress import progress_line
    from driftctl.shell.git_auth import secrets_of
    from driftctl.shell.terminal import TerminalProgress

    if log_format == "text":
        shown = sys.stderr.isatty() and verbosity() is not Verbosity.QUIET
        terminal = TerminalProgress(sys.stderr, progress_line) if shown else None
        return TextLog(style(), terminal)
    index, count = shard
    context = log_render.LogContext(
        instance, index, count, secrets=secrets_of(repo, os.environ, token_file)
    )
    return JsonLog(context)


def as_format(json_text: str, output: str) -> str:
    """A report written as JSON, in the format -o asks for: the JSON, or the same as YAML."""
    from driftctl.render.manifests import json_as_yaml

    return json_as_yaml(json_text) if output == "yaml" else json_text


def _logging_options(command: str) -> list[click.Parameter]:
    """--log-format, after the command's -o."""
    return options_of(LoggingOnly, command)


def _around(command: str, raw: Mapping[str, Any], go: Callable[[Log], object]) -> object:
    """Runs a cluster command inside its log, passed as `log`, as --log-format asks.

    The log is made before the settings are built, so that a value the settings refuse is
    logged too (one JSON line with --log-format json); the values that name the run in a
    JSON log (--instance, the shard, --repo and the token file, whose secrets are masked)
    are read as given.
    """
    shard = (raw.get("shard_index", 0), raw.get("shard_count", 1))  # watch: may be None
    log = log_for(
        str(raw.get("log_format", "text")),
        str(raw.get("instance")),
        (shard[0] or 0, shard[1] or 1),
        str(raw.get("repo")),
        raw.get("git_token_file"),
    )
    with log.run(command):
        for warning in early_warnings():
            log.warn(warning)
        return go(log)


@dataclasses.dataclass(frozen=True)
class LoggingOnly:
    """The request of --log-format alone (its options, after -o)."""

    logging: Logging = dataclasses.field(default_factory=Logging)


logged = (_around, _logging_options)
"""For cli.command.command(logged=...): --log-format after -o, and the run inside its log."""
