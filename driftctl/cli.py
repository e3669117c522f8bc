"""The command line: the only module that imports click.

Each command turns flags into settings, makes one pipeline call, prints what it returns
and exits with the code from errors.ExitCode. No decision is made here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import click

from driftctl import __version__
from driftctl.core.crd import GENERATED_NOTICE, webapp_crd
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState
from driftctl.render.manifests import to_json, to_yaml

F = TypeVar("F", bound=Callable[..., object])


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="driftctl")
def cli() -> None:
    """Keep WebApp resources and their Deployments equal to a Git repository."""


@cli.command()
@click.option(
    "-o", "--output", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True
)
def crd(output: str) -> None:
    """Print the WebApp CustomResourceDefinition, generated from driftctl's model.

    Install it with `driftctl crd | kubectl apply -f -`. specs/webapp-crd.yaml is this
    output, committed.
    """
    manifest = webapp_crd()
    click.echo(
        to_json(manifest) if output == "json" else to_yaml(manifest, notice=GENERATED_NOTICE),
        nl=False,
    )


def report_error(error: DriftctlError) -> None:
    """Print an error the way a person reads it: the message, each problem, the hint."""
    click.echo(f"error: {error.message}", err=True)
    if isinstance(error, InvalidDesiredState):
        for problem in error.problems:
            click.echo(f"  {problem}", err=True)
    if error.hint:
        click.echo(f"hint: {error.hint}", err=True)


def main() -> None:
    """Entry point of the `driftctl` command: run, and map errors to exit codes."""
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Exit as done:
        code = done.exit_code
    except click.ClickException as usage:
        usage.show()
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
