"""The command line: the only module that imports click.

Each command turns flags into settings, makes one pipeline call, prints what it returns
and exits with the code from errors.ExitCode. No decision is made here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import click

from driftctl import __version__, pipeline, reconcile
from driftctl import conventions as c
from driftctl.core.crd import GENERATED_NOTICE, webapp_crd
from driftctl.core.entries import ObjectOutcome, Outcome
from driftctl.core.guards import PruneOptions, parse_max_prune
from driftctl.core.validate import Options
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState
from driftctl.render import desired as render
from driftctl.render import plan as plan_render
from driftctl.render.manifests import to_json, to_yaml
from driftctl.render.style import Style
from driftctl.shell.git_source import SourceRequest
from driftctl.shell.kube import in_cluster_namespace

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


def cluster_options(command: F) -> F:
    """--kubeconfig, --context, --instance, --field-manager, --timeout, --concurrency."""
    options = [
        click.option(
            "--kubeconfig",
            envvar="KUBECONFIG",
            type=click.Path(dir_okay=False),
            help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the Pod's "
            "service account in a cluster).",
        ),
        click.option("--context", help="Kubeconfig context to use (default: its current context)."),
        click.option(
            "--instance",
            envvar="DRIFTCTL_INSTANCE",
            default=c.DEFAULT_INSTANCE,
            show_default=True,
            help="This driftctl's instance: it only sees and changes objects labelled "
            f"{c.INSTANCE_LABEL}=<instance>.",
        ),
        click.option(
            "--field-manager",
            default=c.FIELD_MANAGER,
            show_default=True,
            help="Field manager of server-side apply.",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=1),
            default=300,
            show_default=True,
            help="Seconds the whole run may take, retries of transient failures included.",
        ),
        click.option(
            "--concurrency",
            type=click.IntRange(min=1, max=64),
            default=4,
            show_default=True,
            help="Objects sent to the API server at once.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _cluster(
    *,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
) -> reconcile.ClusterOptions:
    return reconcile.ClusterOptions(
        kubeconfig, context, instance, field_manager, timeout, concurrency, notice=_notice
    )


def _notice(line: str) -> None:
    """Something a person watching the run should know now (a retry), on stderr."""
    click.echo(f"note: {line}", err=True)


def _warn(desired_warnings: Sequence[object]) -> None:
    for warning in desired_warnings:
        click.echo(f"warning: {warning}", err=True)


@cli.command()
@source_options(with_ref=True)
@cluster_options
@click.option("--show-unchanged", is_flag=True, help="List unchanged objects too (text output).")
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
)
@click.pass_context
def plan(
    ctx: click.Context,
    *,
    repo: str,
    ref: str | None,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    show_unchanged: bool,
    output: str,
) -> None:
    """Show what `apply` would change in the cluster, exactly, without changing anything.

    Per object: create, update (with the field changes and who changed them), unchanged,
    prune, cleanup pending, replace needed, or skip. Objects that cannot have drifted cost
    no request; the others are checked with a server-side dry-run. Takes no lock.
    Exit 0 when nothing would change, 1 when something would, 3/4 on errors.
    """
    planned = reconcile.plan(
        _request(repo, path, cache_dir, ref),
        Options(namespace, skip_unknown_kinds),
        os.environ,
        _cluster(
            kubeconfig=kubeconfig,
            context=context,
            instance=instance,
            field_manager=field_manager,
            timeout=timeout,
            concurrency=concurrency,
        ),
        PruneOptions(),
    )
    _warn(planned.desired.warnings)
    if output == "json":
        click.echo(plan_render.plan_json(planned.plan), nl=False)
    elif output == "markdown":
        click.echo(plan_render.plan_markdown(planned.plan), nl=False)
    else:
        click.echo(
            plan_render.plan_text(planned.plan, _style(), show_unchanged=show_unchanged), nl=False
        )
    ctx.exit(ExitCode.CHANGES if planned.plan.has_changes else ExitCode.OK)


@cli.command()
@source_options(with_ref=True)
@cluster_options
@click.option(
    "--prune/--no-prune",
    default=True,
    show_default=True,
    help="Delete this instance's WebApps that Git no longer declares.",
)
@click.option(
    "--allow-empty", is_flag=True, help="Allow pruning when Git declares no WebApp at all."
)
@click.option(
    "--max-prune",
    metavar="N|P%",
    help="Most deletions in one run: a count or a percentage of the managed WebApps "
    "(default: half of them).",
)
@click.option(
    "--recreate",
    is_flag=True,
    help="Delete and create again objects whose immutable fields changed.",
)
@click.option(
    "--lock-namespace",
    envvar="DRIFTCTL_LOCK_NAMESPACE",
    help="Namespace of the run lock (Lease driftctl-<instance>) (default: the Pod's "
    "namespace in a cluster, else default).",
)
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0),
    default=0,
    show_default=True,
    help="Seconds to wait for another run's lock before exiting 6.",
)
@click.option(
    "-o", "--output", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.pass_context
def apply(
    ctx: click.Context,
    *,
    repo: str,
    ref: str | None,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    prune: bool,
    allow_empty: bool,
    max_prune: str | None,
    recreate: bool,
    lock_namespace: str | None,
    lock_timeout: float,
    output: str,
) -> None:
    """Make the cluster equal to Git: apply, prune through the finalizer, write status.

    Takes the run lock, plans exactly as `plan` does, then carries the plan out with
    server-side apply. Prints one line per changed object and a summary. Exit 0 when every
    object succeeded, 5 when some failed (the others applied), 6 when another run holds the
    lock, 3/4 on errors.
    """
    limits = PruneOptions(prune, allow_empty, parse_max_prune(max_prune) if max_prune else None)
    applying = reconcile.ApplyOptions(
        limits, recreate, lock_namespace or in_cluster_namespace(), lock_timeout
    )
    style = _style()

    def progress(item: ObjectOutcome) -> None:
        if output == "text" and item.outcome is not Outcome.UNCHANGED:
            click.echo(plan_render.outcome_line(item, style))

    report = reconcile.apply(
        _request(repo, path, cache_dir, ref),
        Options(namespace, skip_unknown_kinds),
        os.environ,
        options=_cluster(
            kubeconfig=kubeconfig,
            context=context,
            instance=instance,
            field_manager=field_manager,
            timeout=timeout,
            concurrency=concurrency,
        ),
        applying=applying,
        progress=progress,
    )
    if output == "json":
        click.echo(plan_render.outcomes_json(report.outcomes), nl=False)
    else:
        for refusal in report.refusals:
            click.echo(style.paint(f"refused: {refusal}", "red"), err=True)
        click.echo(plan_render.outcome_summary(report.outcomes))
    ctx.exit(report.exit_code)


@cli.command()
@cluster_options
@click.option(
    "--lock-namespace",
    envvar="DRIFTCTL_LOCK_NAMESPACE",
    help="Namespace of the run lock (default: the Pod's namespace in a cluster, else default).",
)
def unlock(
    *,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    lock_namespace: str | None,
) -> None:
    """Break this instance's run lock on purpose (when a run died holding it)."""
    where = lock_namespace or in_cluster_namespace()
    holder = reconcile.unlock(
        _cluster(
            kubeconfig=kubeconfig,
            context=context,
            instance=instance,
            field_manager=field_manager,
            timeout=timeout,
            concurrency=concurrency,
        ),
        where,
    )
    lease = f"Lease {where}/{c.lease_name(instance)}"
    click.echo(f"unlocked {lease} (it was held by {holder})" if holder else f"{lease} was not held")


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
