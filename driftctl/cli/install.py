"""`driftctl install` and `driftctl uninstall`: driftctl put in a cluster and taken away
(pipeline.install)."""

from __future__ import annotations

import sys

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
    Another --instance gets its own CronJob (or Deployment), settings, ServiceAccount and
    bindings, named driftctl-<instance>, beside the others; the namespace and the
    ClusterRoles are shared, and it first says which cluster-scoped objects it found. --repo
    is the URL a Pod reaches (a local path or file:// is refused). The Git credentials'
    Secret driftctl-git is yours to create (docs/how-to/private-repositories.md). Running it
    again updates the installation (an upgrade: a new --image). --dry-run prints the objects
    and applies nothing. Exit 0; 2 for flags that cannot work; 4 when the cluster refuses
    (you need the rights to make a CRD and RBAC).
    """
    from driftctl.core.installation import Installation
    from driftctl.pipeline import install as installing
    from driftctl.render.manifests import to_yaml

    installation = Installation.of(request.install, request.cluster.instance)
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
        "# Take the instance blue away, leaving the others:",
        "$ driftctl uninstall --instance blue",
    ],
)
def uninstall(*, request: UninstallRequest) -> None:
    """Take driftctl away from the cluster, releasing its finalizers first.

    As docs/how-to/upgrade-and-uninstall.md does it, for the instance (--instance): stops
    its runs (deletes its CronJob or operator Deployment and waits until their Pods are
    gone), releases driftctl's finalizer from each of its WebApps (each patch tests that the
    entry is still driftctl's), then deletes what it alone uses: its settings, its
    ServiceAccount and bindings, its Leases. The namespace and the ClusterRoles the instances
    share go only with the last of them: while another instance's CronJob, Deployment or
    Lease is left, they stay, and it says whose. --all-instances takes every instance away,
    then what they share (asking first on a terminal). The WebApps and their Deployments stay
    and run on, unmanaged, unless --delete-webapps; the CRD stays unless --delete-crd
    (refused while WebApps of any instance are left: its deletion would delete them). Exit
    0; 1 when the answer was no; 4 when the cluster refuses.
    """
    from driftctl.pipeline import install as installing

    installing.uninstall(
        request.cluster,
        request.removal,
        dry_run=request.dry_run.dry_run,
        notice=TextLog(style()).retry,
        say=_say,
        everything=request.removal.all_instances,
        confirm=_asked if sys.stdin.isatty() and sys.stdout.isatty() else None,
    )


def _asked(question: str) -> bool:
    return click.confirm(question, default=False, err=True)
