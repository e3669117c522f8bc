"""The command line: the only package that imports click.

Each command receives one request (driftctl.settings.requests), built from its flags,
their variables and a `--config` file (cli.command, cli.options, cli.config_file), makes
one pipeline call, prints what it returns and exits with the code from errors.ExitCode. No
decision is made here. Every setting's flag (every flag but -o) also reads an environment
variable, `DRIFTCTL_<FLAG>` (e.g. `--max-prune` from `DRIFTCTL_MAX_PRUNE`), so a CronJob
can be configured from a ConfigMap; `--kubeconfig` also reads `KUBECONFIG`,
`--shard-index` also `JOB_COMPLETION_INDEX` (an Indexed Job's); `-o` reads the command's
own `DRIFTCTL_<COMMAND>_OUTPUT` (cli.command).

This module only wires the commands (one module per command, named for it: cli/plan.py,
cli/apply.py...; install and uninstall share one), places each in a section of `driftctl
--help` (SECTIONS) and maps errors to exit codes; what click refuses is said as driftctl
says what it refuses itself, `error: ...` then `hint: ...` (`click_refusal`). Each
command imports the pipeline, the shell and the renderers it uses when it runs, so that
`driftctl --help` (and a usage error) costs click and the settings, not the Kubernetes
client, GitPython and the planner: measured in docs/development/index.md (Start-up).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from driftctl import __version__
from driftctl.cli.apply import apply
from driftctl.cli.check import check
from driftctl.cli.completion import completion
from driftctl.cli.config import config
from driftctl.cli.crd import crd
from driftctl.cli.diff import diff
from driftctl.cli.doctor import doctor
from driftctl.cli.global_flags import Group
from driftctl.cli.history import history
from driftctl.cli.install import install, uninstall
from driftctl.cli.options import named
from driftctl.cli.plan import plan
from driftctl.cli.render import render
from driftctl.cli.show import show
from driftctl.cli.status import status
from driftctl.cli.unlock import unlock
from driftctl.cli.validate import validate
from driftctl.cli.version import version
from driftctl.cli.watch import watch
from driftctl.errors import (
    DriftctlError,
    ExitCode,
    InvalidDesiredState,
    InvalidSettings,
    UsageError,
)
from driftctl.shell.git_env import drop_inherited

__all__ = ["SECTIONS", "cli", "main", "report_error"]

# `driftctl --help` lists the commands by task, as kubectl's does: the everyday three first.
# A new command is placed here, in the section of its task (a unit test fails until it is:
# tests/unit/test_help_reads_summary_examples_then_flags.py), and in the same section of
# docs/reference/commands/index.md and of README.md's "Commands".
SECTIONS = (
    ("Basic commands", ("plan", "apply", "status")),
    ("Running in a cluster", ("install", "uninstall", "watch", "unlock", "history", "doctor")),
    ("Offline (no cluster needed)", ("validate", "render", "diff", "check", "crd", "show")),
    ("Settings", ("config",)),
    ("Other commands", ("completion", "version")),
)


@click.group(
    cls=Group,
    commands=[
        crd,
        validate,
        render,
        diff,
        plan,
        apply,
        check,
        watch,
        unlock,
        status,
        history,
        doctor,
        show,
        version,
        completion,
        install,
        uninstall,
        config,
    ],
    sections=SECTIONS,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", prog_name="driftctl")
def cli() -> None:
    """Keep WebApp resources and their Deployments equal to a Git repository."""


def report_error(error: DriftctlError) -> None:
    """Print an error the way a person reads it: the message, each problem, the hint."""
    click.echo(f"error: {error.message}", err=True)
    if isinstance(error, InvalidDesiredState | InvalidSettings):
        for problem in error.problems:
            click.echo(f"  {problem}", err=True)
    if error.hint:
        click.echo(f"hint: {error.hint}", err=True)


def click_refusal(error: click.ClickException, args: Sequence[str] = ()) -> UsageError:
    """What click refused, said as driftctl says what it refuses itself (`report_error`):
    `error: --timeout: why`, then a hint; the variable named only when the value came from
    it (cli.options.named). `args`: the command line, for the command an error without
    its context was about (a flag missing its value)."""
    ctx = error.ctx if isinstance(error, click.UsageError) else None
    typed = next((f"driftctl {arg}" for arg in args if arg in cli.commands), "driftctl")
    path = ctx.command_path if ctx else typed
    if isinstance(error, click.NoSuchOption | click.NoSuchCommand):
        return _unknown(error, path)
    if (
        isinstance(error, click.BadParameter)
        and not isinstance(error, click.MissingParameter)
        and error.param is not None
        and error.param_hint is None
    ):
        message = _sentence(f"{named(error.param, ctx)}: {error.message}")
        return UsageError(
            message, hint=f"`{path} --help` says what {named(error.param, None)} takes"
        )
    return UsageError(
        _sentence(error.format_message()), hint=f"`{path} --help` says how it is used"
    )


def _unknown(error: click.NoSuchOption | click.NoSuchCommand, path: str) -> UsageError:
    """A flag or a command there is none of, and those it may have meant."""
    if isinstance(error, click.NoSuchOption):
        message, listed = f"no such option: {error.option_name}", "flags"
    else:
        message, listed = f"no such command: {error.command_name}", "commands"
    hint = f"`{path} --help` lists its {listed}"
    meant = error.possibilities or []
    return UsageError(message, hint=f"did you mean {_either(meant)}? {hint}" if meant else hint)


def _sentence(message: str) -> str:
    """click's message as driftctl's are: one line, lowercase, no closing full stop."""
    line = " ".join(message.split()).removesuffix(".")
    return line[:1].lower() + line[1:] if line[1:2].islower() else line


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def dry_run_answer(unknown: click.NoSuchOption) -> click.UsageError:
    """kubectl's `--dry-run` asked of a command that has none: where its dry run is."""
    name = unknown.ctx.info_name if unknown.ctx else "driftctl"
    if name in ("apply", "watch"):
        where = (
            "`driftctl plan` with the same flags is its dry run: it dry-runs every change on "
            "the API server and prints exactly what apply would do (`-o json` for a machine)"
        )
    else:
        where = "it writes nothing to the cluster"
    return click.UsageError(f"{name} has no --dry-run: {where}", unknown.ctx)


def main() -> None:
    """Entry point of the `driftctl` command: run, and map errors to exit codes."""
    drop_inherited()  # before any thread starts, and before GitPython reads them
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Exit as done:
        code = done.exit_code
    except click.NoSuchOption as unknown:
        answer = dry_run_answer(unknown) if unknown.option_name == "--dry-run" else unknown
        report_error(click_refusal(answer, sys.argv[1:]))
        code = ExitCode.USAGE
    except click.ClickException as usage:
        report_error(click_refusal(usage, sys.argv[1:]))
        code = ExitCode.USAGE
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        code = ExitCode.INTERRUPTED
    except DriftctlError as error:
        report_error(error)
        code = error.exit_code
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        code = ExitCode.INTERRUPTED
    sys.exit(int(code or 0))
