"""`driftctl install` and `driftctl uninstall`: driftctl put in a cluster and taken away
(pipeline.install)."""

from __future__ import annotations

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, style
from driftctl.settings import InstallRequest, UninstallRequest


def _say(line: str) -> None:
    click.echo(line)


@command(
    InstallRequest,
    examples=[
        "# The CronJob, every five minutes, for a public repository's apps/ folder:",
        "$ driftctl install --repo https://git.example.com/you/webapps.git --ref main \\",
        "    --path apps --image registry.example.com/driftctl:0.1.0",
        "# The operator form with namespace-scoped RBAC; first see what it would apply:",
        "$ driftctl install --repo https://git.example.com/you/webapps.git --path apps \\",
        "    --form operator --rbac namespaced --target-namespaces web,shop --dry-run",
    ],
)
def install(*, request: InstallRequest) -> None:
    """Install driftctl in the cluster: the WebApp CRD, then the CronJob or the operator.

    Renders what cronjob/ (or cronjob/namespaced/, or operator/) holds, for your repository,
    image, schedule and RBAC variant, and applies it with server-side apply: the CRD (and
    waits until it is established), the namespace driftctl-system, the ServiceAccount
    driftctl and its RBAC (the least that works), the settings ConfigMap, then what runs.
    The Git credentials' Secret driftctl-git is yours to create (docs/how-to/private-
    repositories.md). Running it again updates the installation (an upgrade: a new --image).
    --dry-run prints the objects and applies nothing. Exit 0; 2 for flags that cannot work;
    4 when the cluster refuses (you need the rights to make a CRD and RBAC).
    """
    from driftctl.core.installation import Installation
    from driftctl.core.source.repo_url import is_url
    from driftctl.pipeline import install as installing
    from driftctl.render.manifests import to_yaml

    told = request.install
    if not is_url(told.repo):
        raise click.UsageError(f"--repo must be a URL the cluster can reach, not {told.repo!r}")
    installation = Installation.of(told, request.cluster.instance)
    if request.dry_run.dry_run:
        objects = installing.rendered(installation)
        click.echo("---\n".join(to_yaml(obj) for obj in objects), nl=False)
        return
    installing.install(installation, request.cluster, notice=TextLog(style()).retry, say=_say)


@command(
    UninstallRequest,
    examples=[
        "# Take driftctl away; the applications stay, unmanaged:",
        "$ driftctl uninstall",
        "# Take the instance's WebApps (and their Deployments) and the CRD away too:",
        "$ driftctl uninstall --delete-webapps --delete-crd --dry-run",
    ],
)
def uninstall(*, request: UninstallRequest) -> None:
    """Take driftctl away from the cluster, releasing its finalizers first.

    As docs/how-to/upgrade-and-uninstall.md does it: stops the runs (deletes the CronJob or
    the operator's Deployment and waits until their Pods are gone), releases driftctl's
    finalizer from each WebApp of the instance (each patch tests that the entry is still
    driftctl's), then deletes driftctl's objects and its namespace. The WebApps and their
    Deployments stay and run on, unmanaged, unless --delete-webapps; the CRD stays unless
    --delete-crd (refused while WebApps of any instance are left: its deletion would delete
    them). Exit 0; 4 when the cluster refuses.
    """
    from driftctl.pipeline import install as installing

    installing.uninstall(
        request.cluster,
        request.removal,
        dry_run=request.dry_run.dry_run,
        notice=TextLog(style()).retry,
        say=_say,
    )
