"""The command line: the only module that imports click.

Each command takes plain click options, builds the settings (driftctl.settings validates
them), makes one pipeline call, prints what it returns and exits with the code from
errors.ExitCode. No decision is made here. Every flag also reads an environment variable,
`DRIFTCTL_<FLAG>` (e.g. `--max-prune` from `DRIFTCTL_MAX_PRUNE`), so a CronJob can be
configured from a ConfigMap; `--kubeconfig` also reads `KUBECONFIG`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from driftctl import __version__
from driftctl import conventions as c
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
from driftctl.core.source.crd import GENERATED_NOTICE, webapp_crd
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState
from driftctl.pipeline import cluster as run
from driftctl.pipeline import offline
from driftctl.render import offline as offline_render
from driftctl.render import plan as plan_render
from driftctl.render.manifests import to_json, to_yaml
from driftctl.render.style import Style
from driftctl.settings import Cluster, Lock, Policy, Source
from driftctl.shell.apply import Progress

F = TypeVar("F", bound=Callable[..., object])
ENV_PREFIX = "DRIFTCTL_"


def flag(name: str, *, env: Sequence[str] = (), **attributes: Any) -> Callable[[F], F]:
    """A click option `--name` that also reads DRIFTCTL_NAME (and `env`, in that order).

    `name` may be a pair, `prune/--no-prune`; its variable is named after the first.
    """
    variable = ENV_PREFIX + name.split("/", maxsplit=1)[0].upper().replace("-", "_")
    attributes.setdefault("show_default", True)
    return click.option(f"--{name}", envvar=[variable, *env], show_envvar=True, **attributes)


def stacked(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Several options applied as one decorator, in the order they are written."""

    def decorate(command: F) -> F:
        for each in reversed(decorators):
            command = each(command)
        return command

    return decorate


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="driftctl")
def cli() -> None:
    """Keep WebApp resources and their Deployments equal to a Git repository."""


def output_flag(*formats: str) -> Callable[[F], F]:
    """-o/--output with the command's formats; the first is the default."""
    return click.option(
        "-o",
        "--output",
        type=click.Choice(list(formats)),
        default=formats[0],
        show_default=True,
        envvar=ENV_PREFIX + "OUTPUT",
        show_envvar=True,
    )


@cli.command()
@output_flag("yaml", "json")
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


repo_flag = flag(
    "repo",
    default=".",
    help="Repository: a local path, or a URL (https://, ssh://, git@host:path, file://).",
)
ref_flag = flag(
    "ref",
    help="Branch, tag or commit to read (default: the working tree of a local path, the "
    "default branch of a URL).",
)
source_flags = stacked(
    flag(
        "path",
        default="",
        show_default=False,
        help="Folder inside the repository holding the manifests (default: the root).",
    ),
    flag(
        "cache-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Where fetched repositories are kept (default: ~/.cache/driftctl/repos).",
    ),
    flag(
        "namespace", default=c.DEFAULT_NAMESPACE, help="Namespace of WebApps that do not name one."
    ),
    flag(
        "skip-unknown-kinds",
        is_flag=True,
        help="Skip documents of other kinds with a warning instead of refusing them.",
    ),
)
"""--path, --cache-dir, --namespace, --skip-unknown-kinds (with --repo and maybe --ref)."""


def _style() -> Style:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return Style(colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))


@cli.command()
@repo_flag
@ref_flag
@source_flags
@output_flag("text", "json")
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
    source = Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds)
    report = offline.validate_source(source, os.environ)
    if output == "json":
        click.echo(offline_render.validation_json(report), nl=False)
    else:
        text = offline_render.validation_text(report, _style())
        click.echo(text, nl=False, err=not report.valid)
    ctx.exit(ExitCode.OK if report.valid else ExitCode.INVALID_INPUT)


@cli.command()
@flag("base", required=True, help="Branch, tag or commit before the change (e.g. main).")
@flag(
    "head",
    help="Branch, tag or commit after the change (default: the working tree of a local path).",
)
@repo_flag
@source_flags
@output_flag("text", "json", "markdown")
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
    source = Source(repo, None, path, cache_dir, namespace, skip_unknown_kinds)
    report = offline.diff_sources(source.at(base), source.at(head), os.environ)
    if output == "json":
        click.echo(offline_render.diff_json(report), nl=False)
    elif output == "markdown":
        click.echo(offline_render.diff_markdown(report), nl=False)
    else:
        click.echo(offline_render.diff_text(report, _style()), nl=False)
    ctx.exit(ExitCode.OK if report.diff.equal else ExitCode.CHANGES)


cluster_flags = stacked(
    flag(
        "kubeconfig",
        env=["KUBECONFIG"],
        type=click.Path(dir_okay=False),
        help="Kubeconfig file (default: ~/.kube/config, or the Pod's service account in a "
        "cluster).",
    ),
    flag("context", help="Kubeconfig context to use (default: its current context)."),
    flag(
        "instance",
        default=c.DEFAULT_INSTANCE,
        help="This driftctl's instance: it only sees and changes objects labelled "
        f"{c.INSTANCE_LABEL}=<instance>.",
    ),
    flag("field-manager", default=c.FIELD_MANAGER, help="Field manager of server-side apply."),
    flag(
        "timeout",
        type=click.FloatRange(min=1),
        default=300,
        help="Seconds the whole run may take, retries of transient failures included.",
    ),
    flag(
        "concurrency",
        type=click.IntRange(min=1, max=64),
        default=4,
        help="Objects sent to the API server at once.",
    ),
)
"""--kubeconfig, --context, --instance, --field-manager, --timeout, --concurrency."""

policy_flags = stacked(
    flag(
        "prune/--no-prune",
        default=True,
        help="Delete this instance's WebApps that Git no longer declares.",
    ),
    flag("allow-empty", is_flag=True, help="Allow pruning when Git declares no WebApp at all."),
    flag(
        "max-prune",
        metavar="N|P%",
        help="Most deletions in one run: a count or a percentage of the managed WebApps "
        "(default: half of them).",
    ),
    flag(
        "recreate",
        is_flag=True,
        help="Delete and create again objects whose immutable fields changed.",
    ),
)
"""--prune/--no-prune, --allow-empty, --max-prune, --recreate: what apply may do."""

lock_namespace_flag = flag(
    "lock-namespace",
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
@repo_flag
@ref_flag
@source_flags
@cluster_flags
@policy_flags
@flag("show-unchanged", is_flag=True, help="List unchanged objects too (text output).")
@output_flag("text", "json", "markdown")
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
    prune: bool,
    allow_empty: bool,
    max_prune: str | None,
    recreate: bool,
    show_unchanged: bool,
    output: str,
) -> None:
    """Show what `apply` would change in the cluster, exactly, without changing anything.

    Per object: create, update (with the field changes and who changed them), unchanged,
    prune, cleanup pending, replace, or skip. Takes the same flags as `apply` for what it may
    do (--no-prune, --max-prune, --recreate...), so the two say the same. Objects that cannot
    have drifted cost no request; the others are checked with a server-side dry-run. Takes
    no lock. Exit 0 when the cluster equals Git, 1 when it differs, 3/4 on errors.
    """
    source = Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds)
    cluster = Cluster(kubeconfig, context, instance, field_manager, timeout, concurrency)
    policy = Policy.of(prune=prune, allow_empty=allow_empty, max_prune=max_prune, recreate=recreate)
    planned = run.plan(source, cluster, policy, environ=os.environ, notice=_notice)
    _warn(planned.desired.warnings)
    if output == "json":
        click.echo(plan_render.plan_json(planned.plan), nl=False)
    elif output == "markdown":
        click.echo(plan_render.plan_markdown(planned.plan), nl=False)
    else:
        text = plan_render.plan_text(planned.plan, _style(), show_unchanged=show_unchanged)
        click.echo(text, nl=False)
    ctx.exit(ExitCode.CHANGES if planned.plan.differs else ExitCode.OK)


@cli.command()
@repo_flag
@ref_flag
@source_flags
@cluster_flags
@policy_flags
@lock_namespace_flag
@flag(
    "lock-timeout",
    type=click.FloatRange(min=0),
    default=0,
    help="Seconds to wait for another run's lock before exiting 6.",
)
@output_flag("text", "json")
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
    source = Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds)
    cluster = Cluster(kubeconfig, context, instance, field_manager, timeout, concurrency)
    policy = Policy.of(prune=prune, allow_empty=allow_empty, max_prune=max_prune, recreate=recreate)
    lock = Lock(lock_namespace, lock_timeout)
    style = _style()
    progress = _progress(style) if output == "text" else Progress()
    report = run.apply(
        source, cluster, policy, lock, environ=os.environ, notice=_notice, progress=progress
    )
    if output == "json":
        click.echo(plan_render.outcomes_json(report.outcomes), nl=False)
    else:
        for refusal in report.refusals:
            click.echo(style.paint(f"refused: {refusal}", "red"), err=True)
        click.echo(plan_render.outcome_summary(report.outcomes))
    ctx.exit(report.exit_code)


def _progress(style: Style) -> Progress:
    """Text output as apply goes: a line per changed object and per status written."""

    def outcome(item: ObjectOutcome) -> None:
        if item.outcome is not Outcome.UNCHANGED:
            click.echo(plan_render.outcome_line(item, style))

    def status(key: ObjectKey, written: dict[str, Any]) -> None:
        click.echo(plan_render.status_line(key, written, style))

    return Progress(outcome, status)


@cli.command()
@cluster_flags
@lock_namespace_flag
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
    cluster = Cluster(kubeconfig, context, instance, field_manager, timeout, concurrency)
    unlocked = run.unlock(cluster, Lock(lock_namespace), notice=_notice)
    click.echo(plan_render.unlocked_line(unlocked.lease.display, unlocked.holder))


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
