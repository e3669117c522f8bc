"""Installing driftctl in a cluster and taking it away: install, uninstall (pipeline.install)."""

from __future__ import annotations

import sys

import click

from driftctl import __version__
from driftctl.cli.command import command
from driftctl.cli.flag_groups import connection_flags
from driftctl.cli.flags import flag
from driftctl.cli.logs import TextLog, style
from driftctl.core.installation import DEFAULT_SCHEDULE, Form, GitAuth, Installation, Rbac
from driftctl.settings import Cluster, namespace_list


def _say(line: str) -> None:
    click.echo(line)


@command(
    examples=[
        "# The CronJob, every five minutes, for a public repository's apps/ folder:",
        "$ driftctl install --repo https://git.example.com/you/webapps.git --ref main \\",
        "    --path apps --image registry.example.com/driftctl:0.1.0",
        "# The operator form with namespace-scoped RBAC; first see what it would apply:",
        "$ driftctl install --repo https://git.example.com/you/webapps.git --path apps \\",
        "    --form operator --rbac namespaced --target-namespaces web,shop --dry-run",
    ]
)
@flag("repo", required=True, help="The Git repository driftctl keeps the cluster equal to (a URL).")
@flag("ref", help="Branch, tag or commit to apply (default: the repository's default branch).")
@flag("path", default="", show_default=False, help="Folder of the WebApps in the repository.")
@flag(
    "image",
    default=f"driftctl:{__version__}",
    help="driftctl's image, as your registry names it (image/ builds it).",
)
@flag(
    "form",
    type=click.Choice([str(each) for each in Form]),
    default=str(Form.CRONJOB),
    help="cronjob: `driftctl apply` on a schedule (cronjob/); operator: `driftctl watch`, "
    "two replicas, one leading (operator/).",
)
@flag("schedule", default=DEFAULT_SCHEDULE, help="The CronJob's schedule (cron syntax, UTC).")
@flag(
    "rbac",
    type=click.Choice([str(each) for each in Rbac]),
    default=str(Rbac.CLUSTER),
    help="cluster: WebApps and Deployments in every namespace; namespaced: only in "
    "--target-namespaces (Roles there, no ClusterRole).",
)
@flag(
    "target-namespaces",
    metavar="NS[,NS...]",
    help="With --rbac namespaced: the namespaces driftctl may read and write.",
)
@flag(
    "git-auth",
    type=click.Choice([str(each) for each in GitAuth]),
    default=str(GitAuth.NONE),
    help="Which files of the Secret driftctl-git (yours to create) hold the credentials: "
    "token (https://), ssh (key and known_hosts), none (a public repository).",
)
@flag("dry-run", is_flag=True, help="Print what would be applied, as YAML; apply nothing.")
@connection_flags
def install(
    *,
    repo: str,
    ref: str | None,
    path: str,
    image: str,
    form: str,
    schedule: str,
    rbac: str,
    target_namespaces: str | None,
    git_auth: str,
    dry_run: bool,
    cluster: Cluster,
) -> None:
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
    from driftctl.pipeline import install as installing
    from driftctl.render.manifests import to_yaml

    installation = Installation(
        repo, ref, path, image, schedule, Form(form), Rbac(rbac),
        namespace_list(target_namespaces), cluster.instance, GitAuth(git_auth),
    )  # fmt: skip
    if dry_run:
        click.echo(
            "---\n".join(to_yaml(obj) for obj in installing.rendered(installation)), nl=False
        )
        return
    installing.install(installation, cluster, notice=TextLog(style()).retry, say=_say)


@command(
    examples=[
        "# Take driftctl away; the applications stay, unmanaged:",
        "$ driftctl uninstall",
        "# Take the instance's WebApps (and their Deployments) and the CRD away too:",
        "$ driftctl uninstall --delete-webapps --delete-crd --dry-run",
        "# Take the instance blue away, leaving the others:",
        "$ driftctl uninstall --instance blue",
    ]
)
@flag(
    "delete-webapps",
    is_flag=True,
    help="Also delete this instance's WebApps (every instance's with --all-instances; their "
    "Deployments go with them).",
)
@flag(
    "delete-crd",
    is_flag=True,
    help="Also delete the WebApp CRD, once no WebApp of any instance is left.",
)
@flag(
    "all-instances",
    is_flag=True,
    help="Take away every instance installed here, then what they share; asks first on a terminal.",
)
@flag("dry-run", is_flag=True, help="Say what would be done; write nothing.")
@connection_flags
def uninstall(
    *,
    delete_webapps: bool,
    delete_crd: bool,
    all_instances: bool,
    dry_run: bool,
    cluster: Cluster,
) -> None:
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

    removal = installing.Removal(webapps=delete_webapps, crd=delete_crd)
    installing.uninstall(
        cluster,
        removal,
        dry_run=dry_run,
        notice=TextLog(style()).retry,
        say=_say,
        everything=all_instances,
        confirm=_asked if sys.stdin.isatty() and sys.stdout.isatty() else None,
    )


def _asked(question: str) -> bool:
    return click.confirm(question, default=False, err=True)
