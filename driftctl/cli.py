"""The command line: the only module that imports click.

Each command turns flags into settings, makes one pipeline call, prints what it returns
and exits with the code from errors.ExitCode. No decision is made here.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from driftctl import __version__, pipeline, reconcile
from driftctl import conventions as c
from driftctl.core.crd import GENERATED_NOTICE, webapp_crd
from driftctl.core.entries import ObjectOutcome, Outcome
from driftctl.core.guards import PruneOptions, parse_max_prune
from driftctl.core.objects import ObjectKey
from driftctl.core.validate import Options
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState
from driftctl.render import desired as render
from driftctl.render import plan as plan_render
from driftctl.render.manifests import to_json, to_yaml
from driftctl.render.style import Style
from driftctl.shell.apply import Progress
from driftctl.shell.git_source import SourceRequest
from driftctl.shell.kube import in_cluster_namespace

F = TypeVar("F", bound=Callable[..., object])


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="driftctl")
def cli() -> None:
    """Keep WebApp resources and their Deployments equal to a Git repository."""


def output_option(*formats: str) -> Callable[[F], F]:
    """-o/--output with the command's formats; the first is the default."""
    return click.option(
        "-o", "--output", type=click.Choice(list(formats)), default=formats[0], show_default=True
    )


@cli.command()
@output_option("yaml", "json")
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


@dataclass(frozen=True)
class Source:
    """Where the desired state is read, and how it is validated: the source flags, bundled."""

    request: SourceRequest
    options: Options


@dataclass(frozen=True)
class NamedOption:
    """A click option and the Python name of its value (as click names it)."""

    name: str
    decorate: Callable[[Callable[..., object]], Callable[..., object]]


def option(*declarations: str, **attributes: Any) -> NamedOption:
    """click.option, remembering its value's name: the bare name if declared, else the flag."""
    bare = [d for d in declarations if not d.startswith("-")]
    name = bare[0] if bare else declarations[0].lstrip("-").replace("-", "_")
    return NamedOption(name, click.option(*declarations, **attributes))


def bundled(
    name: str, build: Callable[..., object], options: Sequence[NamedOption]
) -> Callable[[F], F]:
    """Add `options` to a command and hand it their values as one keyword: name=build(...).

    Commands then take `source: Source` or `cluster: ClusterOptions` instead of a dozen flags.
    """

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def run(*args: object, **flags: object) -> object:
            values = {o.name: flags.pop(o.name) for o in options if o.name in flags}
            return command(*args, **flags, **{name: build(**values)})

        wrapped: Callable[..., object] = run
        for each in reversed(options):
            wrapped = each.decorate(wrapped)
        return cast(F, wrapped)

    return decorate


def _source(*, ref: str | None = None, **flags: Any) -> Source:
    request = SourceRequest(
        repo=flags["repo"], ref=ref, path=flags["path"], cache_dir=flags["cache_dir"]
    )
    return Source(request, Options(flags["namespace"], flags["skip_unknown_kinds"]))


def source_options(*, with_ref: bool) -> Callable[[F], F]:
    """--repo, [--ref,] --path, --cache-dir, --namespace, --skip-unknown-kinds as `source`."""
    options = [
        option(
            "--repo",
            envvar="DRIFTCTL_REPO",
            default=".",
            show_default=True,
            help="Repository: a local path, or a URL (https://, ssh://, git@host:path, file://).",
        ),
        option(
            "--path",
            envvar="DRIFTCTL_PATH",
            default="",
            help="Folder inside the repository holding the manifests (default: the root).",
        ),
        option(
            "--cache-dir",
            envvar="DRIFTCTL_CACHE_DIR",
            type=click.Path(file_okay=False, path_type=Path),
            help="Where fetched repositories are kept (default: ~/.cache/driftctl/repos).",
        ),
        option(
            "--namespace",
            default="default",
            show_default=True,
            help="Namespace of WebApps that do not name one.",
        ),
        option(
            "--skip-unknown-kinds",
            is_flag=True,
            help="Skip documents of other kinds with a warning instead of refusing them.",
        ),
    ]
    if with_ref:
        options.insert(
            1,
            option(
                "--ref",
                envvar="DRIFTCTL_REF",
                help="Branch, tag or commit to read (default: the working tree of a local "
                "path, the default branch of a URL).",
            ),
        )
    return bundled("source", _source, options)


def _style() -> Style:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return Style(colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))


@cli.command()
@source_options(with_ref=True)
@output_option("text", "json")
@click.pass_context
def validate(ctx: click.Context, *, source: Source, output: str) -> None:
    """Check the desired state in Git without a cluster.

    Reads every *.yaml/*.yml file under --path, refuses unsafe YAML, and checks each WebApp
    against the CRD schema, Kubernetes naming rules and duplicates. Exit 0 when valid, 3 with
    every problem (file:line:column: reason) otherwise, 4 when Git cannot be read.
    """
    report = pipeline.validate_source(source.request, source.options, os.environ)
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
@output_option("text", "json", "markdown")
@click.pass_context
def diff(ctx: click.Context, *, base: str, head: str | None, source: Source, output: str) -> None:
    """Show how the desired state changes between two commits, without a cluster.

    WebApps added, removed and changed (field by field, old -> new). What a pre-merge check
    runs: `driftctl diff --base origin/main --head HEAD -o markdown`. Exit 0 when equal, 1 when
    different, 3 when either side is invalid (the message says which), 4 when Git cannot be
    read.
    """
    report = pipeline.desired_diff(
        pipeline.at_ref(source.request, base),
        pipeline.at_ref(source.request, head),
        source.options,
        os.environ,
    )
    if output == "json":
        click.echo(render.diff_json(report), nl=False)
    elif output == "markdown":
        click.echo(render.diff_markdown(report), nl=False)
    else:
        click.echo(render.diff_text(report, _style()), nl=False)
    ctx.exit(ExitCode.OK if report.diff.equal else ExitCode.CHANGES)


def _cluster(**flags: Any) -> reconcile.ClusterOptions:
    return reconcile.ClusterOptions(**flags, notice=_notice)


cluster_options = bundled(
    "cluster",
    _cluster,
    [
        option(
            "--kubeconfig",
            envvar="KUBECONFIG",
            type=click.Path(dir_okay=False),
            help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the Pod's "
            "service account in a cluster).",
        ),
        option("--context", help="Kubeconfig context to use (default: its current context)."),
        option(
            "--instance",
            envvar="DRIFTCTL_INSTANCE",
            default=c.DEFAULT_INSTANCE,
            show_default=True,
            help="This driftctl's instance: it only sees and changes objects labelled "
            f"{c.INSTANCE_LABEL}=<instance>.",
        ),
        option(
            "--field-manager",
            "manager",
            default=c.FIELD_MANAGER,
            show_default=True,
            help="Field manager of server-side apply.",
        ),
        option(
            "--timeout",
            type=click.FloatRange(min=1),
            default=300,
            show_default=True,
            help="Seconds the whole run may take, retries of transient failures included.",
        ),
        option(
            "--concurrency",
            type=click.IntRange(min=1, max=64),
            default=4,
            show_default=True,
            help="Objects sent to the API server at once.",
        ),
    ],
)
"""--kubeconfig, --context, --instance, --field-manager, --timeout, --concurrency as `cluster`."""

lock_namespace_option = click.option(
    "--lock-namespace",
    envvar="DRIFTCTL_LOCK_NAMESPACE",
    help="Namespace of the run lock, Lease driftctl-<instance> (default: the Pod's namespace "
    "in a cluster, else default).",
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
@output_option("text", "json", "markdown")
@click.pass_context
def plan(
    ctx: click.Context,
    *,
    source: Source,
    cluster: reconcile.ClusterOptions,
    show_unchanged: bool,
    output: str,
) -> None:
    """Show what `apply` would change in the cluster, exactly, without changing anything.

    Per object: create, update (with the field changes and who changed them), unchanged,
    prune, cleanup pending, replace needed, or skip. Objects that cannot have drifted cost
    no request; the others are checked with a server-side dry-run. Takes no lock.
    Exit 0 when nothing would change, 1 when something would, 3/4 on errors.
    """
    planned = reconcile.plan(source.request, source.options, os.environ, cluster, PruneOptions())
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
@lock_namespace_option
@click.option(
    "--lock-timeout",
    type=click.FloatRange(min=0),
    default=0,
    show_default=True,
    help="Seconds to wait for another run's lock before exiting 6.",
)
@output_option("text", "json")
@click.pass_context
def apply(
    ctx: click.Context,
    *,
    source: Source,
    cluster: reconcile.ClusterOptions,
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

    def outcome(item: ObjectOutcome) -> None:
        if output == "text" and item.outcome is not Outcome.UNCHANGED:
            click.echo(plan_render.outcome_line(item, style))

    def status(key: ObjectKey, written: dict[str, Any]) -> None:
        if output == "text":
            click.echo(plan_render.status_line(key, written, style))

    report = reconcile.apply(
        source.request,
        source.options,
        os.environ,
        options=cluster,
        applying=applying,
        progress=Progress(outcome, status),
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
@lock_namespace_option
def unlock(*, cluster: reconcile.ClusterOptions, lock_namespace: str | None) -> None:
    """Break this instance's run lock on purpose (when a run died holding it)."""
    where = lock_namespace or in_cluster_namespace()
    holder = reconcile.unlock(cluster, where)
    lease = f"Lease {where}/{c.lease_name(cluster.instance)}"
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
