"""cronjob/ and operator/ as files: what `driftctl install` applies, in kustomize's folders.

The objects are core.installation's, made with the example settings (`SHIPPED`: the
repository https://git.example.com/platform/webapps.git, its `apps` folder, a token); each
variant is a folder whose kustomization lists plain files, no patch, so that what
`kubectl apply -k FOLDER` sends is what `driftctl install` applies, object for object:

    cronjob/              the CronJob, cluster-wide RBAC      (driftctl install)
    cronjob/namespaced/   the CronJob, Roles in `webapps`     (--rbac namespaced ...)
    operator/             `driftctl watch`, cluster-wide RBAC (--form operator)
    operator/namespaced/  `driftctl watch`, Roles in `webapps`
    cronjob/base/         what the four have alike: the namespace, the ServiceAccount,
                          the run lock's Role, the read of the CRD

Pure: `files()` gives each file's path and text; `make manifests` writes them
(docsgen/shipped.py), and tests/unit/test_the_shipped_manifests_are_made_from_the_code.py
fails when a committed one differs. cronjob/sharded/ (a patch of the CronJob that install
has no form for) and cronjob/git-secret.example.yaml are written by hand.
"""

from __future__ import annotations

import posixpath
import textwrap
from dataclasses import replace

from driftctl import __version__
from driftctl.core.installation import Installation, Obj, parts
from driftctl.render.manifests import to_yaml
from driftctl.settings.install import Form, GitAuth, Rbac

SHIPPED = Installation(
    repo="https://git.example.com/platform/webapps.git",
    ref="main",
    path="apps",
    image=f"driftctl:{__version__}",
    git_auth=GitAuth.TOKEN,
)
NAMESPACED = replace(SHIPPED, rbac=Rbac.NAMESPACED, target_namespaces=("webapps",))
BASE = ("namespace", "serviceaccount", "lock-rbac", "crd-rbac")  # alike in every variant
VARIANTS = {
    "cronjob": SHIPPED,
    "cronjob/namespaced": NAMESPACED,
    "operator": replace(SHIPPED, form=Form.OPERATOR),
    "operator/namespaced": replace(NAMESPACED, form=Form.OPERATOR),
}
MADE = (
    "Made from driftctl/core/installation.py (what `driftctl install` applies) by `make",
    "manifests`: change the code, not this file (a unit test fails when they differ).",
)


def files() -> dict[str, str]:
    """Each shipped file, by its path from the repository's root, with its text."""
    out: dict[str, str] = {}
    for folder, install in VARIANTS.items():
        own = []
        for name, objects in parts(install):
            where = "cronjob/base" if name in BASE else folder
            out[f"{where}/{name}.yaml"] = _file(_about(name, install), objects)
            own += [] if name in BASE else [f"{name}.yaml"]
        base = posixpath.relpath("cronjob/base", folder)
        out[f"{folder}/kustomization.yaml"] = _kustomization(_folder(install), [base, *own])
    out["cronjob/base/kustomization.yaml"] = _kustomization(
        _BASE_ABOUT, [f"{name}.yaml" for name in BASE]
    )
    return out


def _file(about: tuple[str, ...], objects: list[Obj]) -> str:
    return _comment((*MADE, "", *about)) + "---\n".join(to_yaml(obj) for obj in objects)


def _kustomization(about: tuple[str, ...], resources: list[str]) -> str:
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": resources,
    }
    return _comment((*MADE, "", *about)) + to_yaml(kustomization)


def _comment(lines: tuple[str, ...]) -> str:
    """Comment lines: the lines up to an empty one are a paragraph, wrapped at 88."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line:
            paragraphs[-1].append(line)
        else:
            paragraphs.append([])
    wrapped = [textwrap.wrap(" ".join(words), 88) for words in paragraphs]
    return "#\n".join("".join(f"# {line}\n" for line in each) for each in wrapped)


_FORMS = {
    Form.CRONJOB: "driftctl as a CronJob of `driftctl apply`",
    Form.OPERATOR: "driftctl as a long-running process, `driftctl watch` (not beside the"
    " CronJob: both would take the same Lease, in turn)",
}
_SCOPES = {
    Rbac.CLUSTER: "WebApps and Deployments everywhere (cluster-wide RBAC)",
    Rbac.NAMESPACED: "WebApps and Deployments in the namespace webapps only (a Role there)",
}
_GRANTS = {
    Rbac.CLUSTER: "cluster-wide: a ClusterRole and its binding",
    Rbac.NAMESPACED: "in chosen namespaces only: a Role and RoleBinding in each (copy the"
    " pair for another namespace, which must exist first, and add it to settings.yaml's"
    " target-namespaces)",
}


def _folder(install: Installation) -> tuple[str, ...]:
    """What a variant's kustomization says of its folder."""
    return (
        f"{_FORMS[install.form]}, for {_SCOPES[install.rbac]}: `kubectl apply -k` this folder.",
        "Make your own overlay rather than editing these files (docs/get-started/cluster.md):",
        "the image's name in your registry (`images:`), your repository in settings.yaml (a",
        "patch of the ConfigMap).",
    )


_BASE_ABOUT = (
    "What every variant of driftctl's installation has alike: its namespace, its",
    "ServiceAccount, the run lock's Role and the read of the WebApp CRD.",
)
_ABOUT: dict[str, tuple[str, ...]] = {
    "namespace": (
        "driftctl's own namespace: its workload, ServiceAccount, settings, Git Secret and run",
        "lock. Pods here must meet the `restricted` Pod Security Standard (enforced by the API",
        "server's PodSecurity admission); driftctl's do.",
    ),
    "serviceaccount": ("Who driftctl is in the cluster: its Pods get this account's token.",),
    "lock-rbac": (
        "The run lock, a Lease driftctl-<instance> (driftctl-<instance>-shard-<i> when",
        "sharded), lives in driftctl's own namespace: read, take, renew and release it; the",
        "Event that counts what --max-events left out is about that Lease. Beside it, when",
        "notifications are configured, the ConfigMap driftctl-<instance>-notified keeps what",
        "was last told: read, create and update it (driftctl writes only the one carrying its",
        "instance label; a ConfigMap's create cannot be limited by name).",
    ),
    "crd-rbac": (
        "Every run reads the WebApp CRD once (one GET): its schema says which status fields",
        "the cluster can hold (a CRD older than driftctl's, or the seed operator's, lacks",
        "some). One object, by name, read-only; cluster-scoped, so both RBAC variants have it.",
    ),
    "settings": (
        "driftctl's settings: one --config file, settings.yaml, mounted at /etc/driftctl and",
        "named by DRIFTCTL_CONFIG. A variable DRIFTCTL_<FLAG> on the container wins over it.",
    ),
}


def _about(name: str, install: Installation) -> tuple[str, ...]:
    if name == "rbac":
        return _rbac_about(install)
    if name == "cronjob":
        return _CRONJOB
    if name == "deployment":
        return _DEPLOYMENT
    return _ABOUT[name]


def _rbac_about(install: Installation) -> tuple[str, ...]:
    watch = (
        " The operator also watches what it keeps in memory: WebApps, Deployments, autoscalers."
        if install.form is Form.OPERATOR
        else ""
    )
    return (
        f"Least privilege for driftctl, {_GRANTS[install.rbac]}. Exactly the verbs a run uses,",
        "no wildcards, no Secrets (the Git Secret is mounted into the Pod; driftctl never reads",
        "it through the API). WebApps: list, get (apply --wait), create and patch (server-side",
        "apply), delete (prune), their status; Deployments the same; Events; the autoscalers",
        "(which Deployments one scales); a rollout's ReplicaSets and Pods (why it is not Ready",
        f"yet). Objects of other instances are told apart by label in driftctl itself.{watch}",
    )


_CRONJOB = (
    "driftctl's main job: `driftctl apply` every 5 minutes, one run at a time (Forbid; its",
    "own Lease would refuse a second anyway), as the ServiceAccount driftctl, non-root, with",
    "a read-only root file system. A run that could not start within 4 minutes is skipped:",
    "the next does the same work. No retry (backoffLimit 0): the next run is the retry, and",
    "driftctl retries transient API failures itself within its timeout; a stuck Pod is",
    "stopped at activeDeadlineSeconds (600), above timeout plus wait-timeout.",
    "Its settings are the file of the ConfigMap driftctl-settings (settings.yaml), its Git",
    "credentials files of the Secret driftctl-git (../git-secret.example.yaml), with --verify",
    "the keys it trusts files of the Secret driftctl-keys: both optional, so that a missing",
    "Secret is one clear error line from driftctl, not a Pod stuck creating. The image is",
    "named driftctl:<version>: set your registry's name in your overlay (`images:`).",
)
_DEPLOYMENT = (
    "`driftctl watch` as a Deployment of two: the one holding the Lease driftctl-<instance>",
    "reconciles, the other is a standby that takes over when the Lease is released (SIGTERM,",
    "a rollout) or expires (30 s after the leader died). The leader finishes its reconciles",
    "(at most 30 s) and releases the Lease within its grace period. Same ServiceAccount,",
    "settings and Secrets as the CronJob; /healthz is the liveness probe, /readyz the",
    "readiness probe (a standby is ready: it can take over), and Prometheus scrapes /metrics",
    "on port 8080.",
)
