"""The JSON log of a cluster command (`--log-format json`): one JSON object per line on
stderr (render.log makes each line), so that a log pipeline can parse every line while
stdout carries only what `-o` asks for. What stops the run is logged as a line and the
run's summary, and the command exits with its code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from driftctl.errors import DriftctlError, ExitCode

if TYPE_CHECKING:
    from driftctl.core.planning.actions import Plan
    from driftctl.core.planning.outcomes import ApplyReport
    from driftctl.render import log as log_render
    from driftctl.shell.apply import Progress, Tick


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

    def plan_done(self, plan: Plan, code: int, output: str) -> None:
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
