"""`driftctl diff`: how the desired state changes between two refs, without a cluster
(pipeline.offline)."""

from __future__ import annotations

import os

import click

from driftctl.cli.command import command
from driftctl.cli.logs import as_format, style
from driftctl.errors import ExitCode
from driftctl.settings import DiffRequest


@command(
    DiffRequest,
    outputs=("text", "json", "yaml", "markdown"),
    examples=[
        "# What a branch changes in the desired state, as a pull-request comment would say:",
        "$ driftctl diff --base origin/main --head HEAD --path apps -o markdown",
        "# Uncommitted edits against the last commit:",
        "$ driftctl diff --base HEAD --path apps",
    ],
)
@click.pass_context
def diff(ctx: click.Context, *, request: DiffRequest, output: str) -> None:
    """Show how the desired state changes between two commits, without a cluster.

    WebApps added, removed and changed (field by field, old -> new). What a pre-merge check
    runs: `driftctl diff --base origin/main --head HEAD -o markdown`. Exit 0 when equal, 1 when
    different, 3 when either side is invalid (the message says which), 4 when Git cannot be
    read.
    """
    from driftctl.pipeline import offline
    from driftctl.render import offline as offline_render

    source, refs = request.source, request.refs
    report = offline.diff_sources(source.at(refs.base), source.at(refs.head), os.environ)
    if output in ("json", "yaml"):
        click.echo(as_format(offline_render.diff_json(report), output), nl=False)
    elif output == "markdown":
        click.echo(offline_render.diff_markdown(report), nl=False)
    else:
        click.echo(offline_render.diff_text(report, style()), nl=False)
    ctx.exit(ExitCode.OK if report.diff.equal else ExitCode.CHANGES)
