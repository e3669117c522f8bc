"""The command line: the only module that imports click.

Each command turns flags into settings, makes one pipeline call, prints what it returns
and exits with the code from errors.ExitCode. No decision is made here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from driftctl import __version__, pipeline
from driftctl.core.crd import GENERATED_NOTICE, webapp_crd
from driftctl.core.validate import Options
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState
from driftctl.render import desired as render
from driftctl.render.manifests import to_json, to_yaml
from driftctl.render.style import Style
from driftctl.shell.git_source import SourceRequest

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


def source_options(*, with_ref: bool) -> Callable[[F], F]:
    """--repo, [--ref,] --path, --cache-dir, --namespace, --skip-unknown-kinds."""

    def decorate(command: F) -> F:
        options = [
            click.option(
                "--repo",
                envvar="DRIFTCTL_REPO",
                default=".",
                show_default=True,
                help="Repository: a local path, or a URL (https://, ssh://, git@host:path, file://).",
            ),
            click.option(
                "--path",
                envvar="DRIFTCTL_PATH",
                default="",
                help="Folder inside the repository holding the manifests (default: the root).",
            ),
            click.option(
                "--cache-dir",
                envvar="DRIFTCTL_CACHE_DIR",
                type=click.Path(file_okay=False, path_type=Path),
                help="Where fetched repositories are kept (default: ~/.cache/driftctl/repos).",
            ),
            click.option(
                "--namespace",
                default="default",
                show_default=True,
                help="Namespace of WebApps that do not name one.",
            ),
            click.option(
                "--skip-unknown-kinds",
                is_flag=True,
                help="Skip documents of other kinds with a warning instead of refusing them.",
            ),
        ]
        if with_ref:
            options.insert(
                1,
                click.option(
                    "--ref",
                    envvar="DRIFTCTL_REF",
                    help="Branch, tag or commit to read (default: the working tree of a local "
                    "path, the default branch of a URL).",
                ),
            )
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def _request(repo: str, path: str, cache_dir: Path | None, ref: str | None) -> SourceRequest:
    return SourceRequest(repo=repo, ref=ref, path=path, cache_dir=cache_dir)


def _style() -> Style:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return Style(colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))


@cli.command()
@source_options(with_ref=True)
@click.option(
    "-o", "--output", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.pass_context
def validate(
    ctx: click.Context,
    *,
    repo: str,
    ref: str | None,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    output: str,
) -> None:
    """Check the desired state in Git without a cluster.

    Reads every *.yaml/*.yml file under --path, refuses unsafe YAML, and checks each WebApp
    against the CRD schema, Kubernetes naming rules and duplicates. Exit 0 when valid, 3 with
    every problem (file:line:column: reason) otherwise, 4 when Git cannot be read.
    """
    report = pipeline.validate_source(
        _request(repo, path, cache_dir, ref), Options(namespace, skip_unknown_kinds), os.environ
    )
    if output == "json":
        click.echo(render.validation_json(report), nl=False)
    elif report.valid:
        click.echo(render.validation_text(report, _style()), nl=False)
    else:
        click.echo(render.validation_text(report, _style()), nl=False, err=True)
    ctx.exit(ExitCode.OK if report.valid else ExitCode.INVALID_INPUT)


@cli.command()
@click.option("--base", required=True, help="Branch, tag or commit before the change (e.g. main).")
@click.option(
    "--head",
    help="Branch, tag or commit after the change (default: the working tree of a local path).",
)
@source_options(with_ref=False)
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.pass_context
def diff(
    ctx: click.Context,
    *,
    base: str,
    head: str | None,
    repo: str,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    output: str,
) -> None:
    """Show how the desired state changes between two commits, without a cluster.

    WebApps added, removed and changed (field by field, old -> new). What a pre-merge check
    runs: `driftctl diff --base origin/main --head HEAD -o markdown`. Exit 0 when equal, 1 when
    different, 3 when either side is invalid (the message says which), 4 when Git cannot be
    read.
    """
    request = _request(repo, path, cache_dir, None)
    report = pipeline.desired_diff(
        pipeline.at_ref(request, base),
        pipeline.at_ref(request, head),
        Options(namespace, skip_unknown_kinds),
        os.environ,
    )
    if output == "json":
        click.echo(render.diff_json(report), nl=False)
    elif output == "markdown":
        click.echo(render.diff_markdown(report), nl=False)
    else:
        click.echo(render.diff_text(report, _style()), nl=False)
    ctx.exit(ExitCode.OK if report.diff.equal else ExitCode.CHANGES)


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
