"""The commands without a cluster: crd, validate, diff (pipeline.offline); `crd --diff`
alone reads one object of a cluster, the installed CRD (pipeline.crd)."""

from __future__ import annotations

import os

import click

from driftctl.cli.command import command
from driftctl.cli.flag_groups import kubeconfig_flags, source_flags, source_flags_without_ref
from driftctl.cli.flags import flag, output_flag
from driftctl.cli.logs import TextLog, as_format, style
from driftctl.errors import ExitCode
from driftctl.settings import Cluster, Source


@command(
    examples=[
        "# Install the CRD (driftctl install does it too):",
        "$ driftctl crd | kubectl apply --server-side -f -",
        "$ driftctl crd -o json > webapp-crd.json",
        "# What installing this driftctl's CRD changes in the cluster's:",
        "$ driftctl crd --diff",
    ]
)
@flag(
    "diff",
    is_flag=True,
    help="Instead, show what installing it changes in the cluster's CRD: a unified diff of "
    "the installed spec (--kubeconfig, --context) to this one.",
)
@kubeconfig_flags
@output_flag("yaml", "json")
@click.pass_context
def crd(ctx: click.Context, *, diff: bool, cluster: Cluster, output: str) -> None:
    """Print the WebApp CustomResourceDefinition, generated from driftctl's model.

    Install it with `driftctl crd | kubectl apply --server-side -f -`.
    specs/webapp-crd.yaml is this output, committed. With --diff, nothing is printed but
    what an upgrade of the CRD installed in the cluster changes (only --diff reads a
    cluster): exit 0 when it is this one already, 1 when it differs or is not installed,
    4 when the cluster cannot be read.
    """
    from driftctl.core.source.crd import GENERATED_NOTICE, webapp_crd
    from driftctl.render.manifests import to_json, to_yaml

    if diff:
        from driftctl.pipeline.crd import crd_diff

        found = crd_diff(cluster, TextLog(style()).retry)
        if not found.installed:
            click.echo("note: the CRD is not installed: all of it is new", err=True)
        click.echo(found.text, nl=False)
        ctx.exit(ExitCode.CHANGES if found.text else ExitCode.OK)

    manifest = webapp_crd()
    click.echo(
        to_json(manifest) if output == "json" else to_yaml(manifest, notice=GENERATED_NOTICE),
        nl=False,
    )


@command(
    examples=[
        "# The working tree of this clone, folder apps/:",
        "$ driftctl validate --path apps",
        "# A commit of a remote repository, as JSON:",
        "$ driftctl validate --repo https://git.example.com/you/webapps.git --ref main -o json",
    ]
)
@source_flags
@output_flag("text", "json", "yaml")
@click.pass_context
def validate(ctx: click.Context, *, source: Source, output: str) -> None:
    """Check the desired state in Git without a cluster.

    Reads every *.yaml/*.yml file under --path, refuses unsafe YAML, and checks each WebApp
    against the CRD schema, Kubernetes naming rules and duplicates. Exit 0 when valid, 3 with
    every problem (file:line:column: reason) otherwise, 4 when Git cannot be read.
    """
    from driftctl.pipeline import offline
    from driftctl.render import offline as offline_render

    report = offline.validate_source(source, os.environ)
    if output in ("json", "yaml"):
        click.echo(as_format(offline_render.validation_json(report), output), nl=False)
    else:
        text = offline_render.validation_text(report, style())
        click.echo(text, nl=False, err=not report.valid)
    ctx.exit(ExitCode.OK if report.valid else ExitCode.INVALID_INPUT)


@command(
    examples=[
        "# What a branch changes in the desired state, as a pull-request comment would say:",
        "$ driftctl diff --base origin/main --head HEAD --path apps -o markdown",
        "# Uncommitted edits against the last commit:",
        "$ driftctl diff --base HEAD --path apps",
    ]
)
@flag("base", required=True, help="Branch, tag or commit before the change (e.g. main).")
@flag(
    "head",
    help="Branch, tag or commit after the change (default: the working tree of a local path).",
)
@source_flags_without_ref
@output_flag("text", "json", "yaml", "markdown")
@click.pass_context
def diff(ctx: click.Context, *, base: str, head: str | None, source: Source, output: str) -> None:
    """Show how the desired state changes between two commits, without a cluster.

    WebApps added, removed and changed (field by field, old -> new). What a pre-merge check
    runs: `driftctl diff --base origin/main --head HEAD -o markdown`. Exit 0 when equal, 1 when
    different, 3 when either side is invalid (the message says which), 4 when Git cannot be
    read.
    """
    from driftctl.pipeline import offline
    from driftctl.render import offline as offline_render

    report = offline.diff_sources(source.at(base), source.at(head), os.environ)
    if output in ("json", "yaml"):
        click.echo(as_format(offline_render.diff_json(report), output), nl=False)
    elif output == "markdown":
        click.echo(offline_render.diff_markdown(report), nl=False)
    else:
        click.echo(offline_render.diff_text(report, style()), nl=False)
    ctx.exit(ExitCode.OK if report.diff.equal else ExitCode.CHANGES)
