"""`driftctl crd`: the WebApp CRD, generated; with --diff, what installing it changes in the
cluster's, its one read of a cluster (pipeline.crd)."""

from __future__ import annotations

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, style
from driftctl.errors import ExitCode
from driftctl.settings import CrdRequest


@command(
    CrdRequest,
    outputs=("yaml", "json"),
    examples=[
        "# Install the CRD (driftctl install does it too):",
        "$ driftctl crd | kubectl apply --server-side -f -",
        "$ driftctl crd -o json > webapp-crd.json",
        "# What installing this driftctl's CRD changes in the cluster's:",
        "$ driftctl crd --diff",
    ],
)
@click.pass_context
def crd(ctx: click.Context, *, request: CrdRequest, output: str) -> None:
    """Print the WebApp CustomResourceDefinition, generated from driftctl's model.

    Install it with `driftctl crd | kubectl apply --server-side -f -`.
    specs/webapp-crd.yaml is this output, committed. With --diff, nothing is printed but
    what an upgrade of the CRD installed in the cluster changes (only --diff reads a
    cluster): exit 0 when it is this one already, 1 when it differs or is not installed,
    4 when the cluster cannot be read.
    """
    from driftctl.core.source.crd import GENERATED_NOTICE, webapp_crd
    from driftctl.render.manifests import to_json, to_yaml

    if request.options.diff:
        from driftctl.pipeline.crd import crd_diff

        found = crd_diff(request.cluster, TextLog(style()).retry)
        if not found.installed:
            click.echo("note: the CRD is not installed: all of it is new", err=True)
        click.echo(found.text, nl=False)
        ctx.exit(ExitCode.CHANGES if found.text else ExitCode.OK)

    manifest = webapp_crd()
    click.echo(
        to_json(manifest) if output == "json" else to_yaml(manifest, notice=GENERATED_NOTICE),
        nl=False,
    )
