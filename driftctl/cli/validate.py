"""`driftctl validate`: the desired state in Git, checked without a cluster (pipeline.offline)."""

from __future__ import annotations

import os

import click

from driftctl.cli.command import command
from driftctl.cli.logs import as_format, style
from driftctl.errors import ExitCode
from driftctl.settings import ValidateRequest


@command(
    ValidateRequest,
    outputs=("text", "json", "yaml"),
    examples=[
        "# The working tree of this clone, folder apps/:",
        "$ driftctl validate --path apps",
        "# A commit of a remote repository, as JSON:",
        "$ driftctl validate --repo https://git.example.com/you/webapps.git --ref main -o json",
    ],
)
@click.pass_context
def validate(ctx: click.Context, *, request: ValidateRequest, output: str) -> None:
    """Check the desired state in Git without a cluster.

    Reads every *.yaml/*.yml file under --path, refuses unsafe YAML, and checks each WebApp
    against the CRD schema, Kubernetes naming rules and duplicates. Exit 0 when valid, 3 with
    every problem (file:line:column: reason) otherwise, 4 when Git cannot be read.
    """
    from driftctl.pipeline import offline
    from driftctl.render import offline as offline_render

    report = offline.validate_source(request.source, os.environ)
    if output in ("json", "yaml"):
        click.echo(as_format(offline_render.validation_json(report), output), nl=False)
    else:
        text = offline_render.validation_text(report, style())
        click.echo(text, nl=False, err=not report.valid)
    ctx.exit(ExitCode.OK if report.valid else ExitCode.INVALID_INPUT)
