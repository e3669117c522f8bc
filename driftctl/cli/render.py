"""`driftctl render`: the WebApps a kustomization at --path renders, as a run sees them
(pipeline.offline); with --configuration, the WebApp's transformer configuration."""

from __future__ import annotations

import os

import click

from driftctl.cli.command import command
from driftctl.cli.logs import style
from driftctl.settings import RenderRequest


@command(
    RenderRequest,
    outputs=("yaml", "json"),
    examples=[
        "# The WebApps the overlay overlays/prod renders, from the working tree:",
        "$ driftctl render --path overlays/prod",
        "# The same at a commit of a remote repository:",
        "$ driftctl render --repo https://git.example.com/you/webapps.git --ref main "
        "--path overlays/prod",
        "# The transformer configuration to commit and list under `configurations:`:",
        "$ driftctl render --configuration > overlays/webapp-configuration.yaml",
    ],
)
def render(*, request: RenderRequest, output: str) -> None:
    """Print the WebApps the desired state renders, as plan, apply and watch read them.

    A kustomization.yaml (or kustomization.yml, Kustomization) directly at --path is rendered
    (its resources, components, patches and transformers; what it cannot render is refused);
    a plain folder is printed as its WebApps. The WebApps are validated first: exit 0 when
    valid, 3 with every problem (file:line:column: reason) otherwise, 4 when Git cannot be
    read. With --configuration, print the kustomize transformer configuration for WebApp.
    """
    from driftctl.render.manifests import to_json, to_yaml

    if request.options.configuration:
        from driftctl.core.source.kustomize.configuration import WEBAPP_CONFIGURATION

        click.echo(WEBAPP_CONFIGURATION, nl=False)
        return

    from driftctl.pipeline import offline

    rendered = offline.render_source(request.source, os.environ)
    for warning in rendered.warnings:
        click.echo(f"{style().paint('warning', 'yellow')}: {warning}", err=True)
    if output == "json":
        click.echo(
            to_json({"apiVersion": "v1", "kind": "List", "items": rendered.webapps}), nl=False
        )
    else:
        click.echo("---\n".join(to_yaml(body) for body in rendered.webapps), nl=False)
