"""Where a command's lines go: the text log for a person, the JSON log for a pipeline.

`plan`, `apply` and `watch` log as text for a person (the default) or, with
`--log-format json`, as one JSON object per line on stderr (render.log): then stdout
carries only what `-o` asks for, and nothing else is printed, so a log pipeline can parse
every line. The other cluster commands print their notes as the text log does. Colour only
on a terminal (not with --no-color or NO_COLOR); -q keeps errors, warnings and summaries
only, -v adds the unchanged objects (cli.command.Verbosity).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from driftctl.cli.command import Verbosity, colour_wanted, early_warnings, verbosity
from driftctl.cli.flags import F, flag
from driftctl.errors import DriftctlError, ExitCode
from driftctl.render.style import Style

if TYPE_CHECKING:
    from driftctl.core.planning.actions import Plan
    from driftctl.core.planning.outcomes import ApplyReport
    from driftctl.render import log as log_render
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

    def plan_done(self, plan: Plan, code: int) -> None:
        """The plan was printed on stdout already."""

    def applied(self, report: ApplyReport, output: str) -> None:
        from driftctl.render import plan as plan_render

        self._clear()
        if output == "text":
            for refusal in report.refusals:
                click.echo(self.style.paint(f"refused: {refusal}", "red"), err=True)
            click.echo(plan_render.outcome_summary(report.outcomes))
            if report.waited is not None:
                click.echo(plan_render.rollout_summary(report))


class JsonLog:
    """A cluster command's log as JSON lines on stderr (render.log), one write per line.

    Lines come from several threads (retries are reported by the workers sending
    requests), so each is written whole under a lock.
    """

    def __init__(self, context: log_render.LogContext) -> None:
        from driftctl.render import log as log_render

        self.render = log_render
        self.context = context
        self._lock = threading.Lock()
        self._started = time.monotonic()

    def write(self, record: log_render.Record) -> None:
        line = self.render.json_line(record, self.context, datetime.datetime.now(datetime.UTC))
        with self._lock:
            click.echo(line, err=True)

    @property
    def duration(self) -> float:
        return time.monotonic() - self._started

    @contextlib.contextmanager
    def run(self, command: str) -> Iterator[None]:
        """Log what stops the run, then its summary, and exit with its code."""
        try:
            yield
        except DriftctlError as error:
            self._stopped(command, self.render.error_record(error), error.exit_code)
        except (KeyboardInterrupt, click.exceptions.Abort):
            code = ExitCode.INTERRUPTED
            self._stopped(command, self.render.interrupted_record(code), code)

    def _stopped(self, command: str, record: log_render.Record, code: int) -> None:
        self.write(record)
        self.write(self.render.stopped_summary(command, code, self.duration))
        raise click.exceptions.Exit(code)

    def report(self, text: str) -> None:
        """The command's report on stdout (the log lines are on stderr)."""
        click.echo(text, nl=False)

    def retry(self, line: str) -> None:
        self.write(self.render.retry_record(line))

    def warn(self, line: str) -> None:
        self.write(self.render.warning_record(line))

    def say(self, line: str) -> None:
        self.write(self.render.watch_record(line))

    def tick(self, output: str) -> Tick:
        """No progress line among JSON log lines."""
        from driftctl.shell.apply import no_tick

        return no_tick

    def warnings(self, desired_warnings: Sequence[object]) -> None:
        for warning in desired_warnings:
            self.warn(str(warning))

    def progress(self, output: str) -> Progress:
        from driftctl.core.planning.objects import ObjectKey
        from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
        from driftctl.shell.apply import Progress

        def outcome(item: ObjectOutcome) -> None:
            if item.outcome is not Outcome.UNCHANGED:
                self.write(self.render.outcome_record(item))

        def status(key: ObjectKey, written: dict[str, Any]) -> None:
            self.write(self.render.status_record(key, written))

        return Progress(outcome, status)

    def planned(self, plan: Plan) -> None:
        """From here on every line carries the revision being applied; a suspended instance
        says so first."""
        from driftctl.render import plan as plan_render

        self.context = dataclasses.replace(self.context, revision=plan.revision)
        for line in plan_render.notices(plan):
            self.write(self.render.warning_record(line))

    def plan_done(self, plan: Plan, code: int) -> None:
        """A suspension of the instance, each action but the unchanged, the guards'
        refusals, then the summary."""
        self.planned(plan)
        for action in self.render.changing_actions(plan):
            self.write(self.render.action_record(action))
        for refusal in plan.refusals:
            self.write(self.render.refusal_record(refusal))
        self.write(self.render.plan_summary(plan, code, self.duration))

    def applied(self, report: ApplyReport, output: str) -> None:
        for refusal in report.refusals:
            self.write(self.render.refusal_record(refusal))
        self.write(self.render.apply_summary(report, self.duration))


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


log_format_flag = flag(
    "log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    help="text for a person; json: one JSON object per line on stderr, for a log pipeline.",
)


def logged(command: F) -> F:
    """Runs a cluster command inside its log, passed as `log`, as --log-format asks.

    Written right under the command, above its flag groups, so that a flag the settings
    refuse is logged too (one JSON line with --log-format json) and the values of the
    flags that name the run in a JSON log (--instance, the shard, --repo and the token
    file, whose secrets are masked) are read as given. Takes `log_format_flag`'s value.
    """

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> object:
        shard = (kwargs.get("shard_index", 0), kwargs.get("shard_count", 1))  # watch: unsharded
        log = log_for(
            kwargs.pop("log_format"),
            kwargs["instance"],
            shard,
            kwargs["repo"],
            kwargs["git_token_file"],
        )
        with log.run(command.__name__):
            for warning in early_warnings():
                log.warn(warning)
            return command(*args, log=log, **kwargs)

    return cast(F, run)
