"""`driftctl version`: this driftctl's, the API server's and the CRD's (pipeline.everyday)."""

from __future__ import annotations

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, as_format, style
from driftctl.settings import VersionRequest


@command(
    VersionRequest,
    outputs=("text", "json", "yaml"),
    examples=[
        "# This driftctl, the API server of the current context, and its WebApp CRD:",
        "$ driftctl version",
        "# This driftctl only, as JSON:",
        "$ driftctl version --client -o json",
    ],
)
def version(*, request: VersionRequest, output: str) -> None:
    """Print this driftctl's version and, from the cluster, the API server's and the CRD's.

    The CRD line says whether the cluster's WebApp CRD has the schema this driftctl
    generates (`driftctl crd`); when it has another, install this driftctl's. With
    --client, no cluster is read. Exit 0; 4 when the cluster cannot be read (as text, the
    client's line is printed first all the same).
    """
    from driftctl.pipeline import everyday
    from driftctl.render import overview

    here = everyday.client_version()
    if output == "text":  # as kubectl's: the client's line even when the cluster fails
        document = overview.version_document(*here, None, None)
        click.echo(overview.client_version_text(document), nl=False)
    cluster = None if request.options.client else request.cluster
    found = everyday.cluster_versions(cluster, TextLog(style()).retry)
    document = overview.version_document(*here, *found)
    if output == "text":
        click.echo(overview.cluster_version_text(document), nl=False)
    else:
        click.echo(as_format(overview.version_json(document), output), nl=False)
