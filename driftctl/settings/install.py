"""What `driftctl install` is told (`Install`) and what `uninstall` takes away besides
driftctl (`Removal`); both may only say what they would do (`DryRun`).

`Install` names the repository the installed driftctl reads: the same `--repo`, `--ref` and
`--path` keys as a run's source (one `--config` file serves both), but a URL the cluster can
reach, and a folder of it. core.installation builds the objects from it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

from driftctl import __version__
from driftctl.errors import UsageError
from driftctl.kube_formats import label_problem
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import Choice, Listed, Switch, Text

DEFAULT_SCHEDULE = "*/5 * * * *"
_INSTALL = frozenset({"install"})


class Form(enum.StrEnum):
    """How driftctl runs in the cluster: a CronJob of `apply`, or `watch` (operator/)."""

    CRONJOB = "cronjob"
    OPERATOR = "operator"


class Rbac(enum.StrEnum):
    """What driftctl may touch: WebApps and Deployments everywhere, or in some namespaces."""

    CLUSTER = "cluster"
    NAMESPACED = "namespaced"


class GitAuth(enum.StrEnum):
    """Which files of the Secret driftctl-git the settings name (none: a public repository)."""

    NONE = "none"
    TOKEN = "token"
    SSH = "ssh"


@dataclass(frozen=True, kw_only=True)
class Install:
    """What `driftctl install` is told (module docstring)."""

    GROUP: ClassVar = Group(None, _INSTALL)

    repo: str = setting(
        "repo",
        Text(),
        required=True,
        help="The Git repository driftctl keeps the cluster equal to (a URL).",
    )
    ref: str | None = setting(
        "ref",
        Text(),
        help="Branch, tag or commit to apply (default: the repository's default branch).",
    )
    path: str = setting(
        "path",
        Text(),
        "",
        show_default=False,
        help="Folder of the WebApps in the repository.",
    )
    image: str = setting(
        "image",
        Text(),
        f"driftctl:{__version__}",
        help="driftctl's image, as your registry names it (image/ builds it).",
    )
    form: Form = setting(
        "form",
        Choice(Form),
        Form.CRONJOB,
        help="cronjob: `driftctl apply` on a schedule (cronjob/); operator: `driftctl watch`, "
        "two replicas, one leading (operator/).",
    )
    schedule: str = setting(
        "schedule",
        Text(),
        DEFAULT_SCHEDULE,
        help="The CronJob's schedule (cron syntax, UTC).",
    )
    rbac: Rbac = setting(
        "rbac",
        Choice(Rbac),
        Rbac.CLUSTER,
        help="cluster: WebApps and Deployments in every namespace; namespaced: only in "
        "--target-namespaces (Roles there, no ClusterRole).",
    )
    target_namespaces: tuple[str, ...] = setting(
        "target-namespaces",
        Listed(check=label_problem),
        (),
        metavar="NS[,NS...]",
        show_default=False,
        help="With --rbac namespaced: the namespaces driftctl may read and write.",
    )
    git_auth: GitAuth = setting(
        "git-auth",
        Choice(GitAuth),
        GitAuth.NONE,
        help="Which files of the Secret driftctl-git (yours to create) hold the credentials: "
        "token (https://), ssh (key and known_hosts), none (a public repository).",
    )


@dataclass(frozen=True, kw_only=True)
class Removal:
    """What `uninstall` takes away besides driftctl itself."""

    GROUP: ClassVar = Group(None, frozenset({"uninstall"}))

    webapps: bool = setting(
        "delete-webapps",
        Switch(),
        False,
        help="Also delete this instance's WebApps (every instance's with --all-instances; "
        "their Deployments go with them).",
    )
    crd: bool = setting(
        "delete-crd",
        Switch(),
        False,
        help="Also delete the WebApp CRD, once no WebApp of any instance is left.",
    )
    all_instances: bool = setting(
        "all-instances",
        Switch(),
        False,
        help="Take away every instance installed here, then what they share; asks first on a "
        "terminal.",
    )

    def __post_init__(self) -> None:
        if self.crd and not self.webapps:
            raise UsageError(
                "--delete-crd needs --delete-webapps",
                hint="deleting the CRD deletes every WebApp, and so every Deployment",
            )


@dataclass(frozen=True, kw_only=True)
class DryRun:
    """Whether `install` and `uninstall` only say what they would do."""

    GROUP: ClassVar = Group(None, frozenset({"install", "uninstall"}))

    dry_run: bool = setting(
        "dry-run",
        Switch(),
        False,
        in_file=False,
        help="Print what would be applied, as YAML; apply nothing.",
        help_for={"uninstall": "Say what would be done; write nothing."},
    )
