"""What `driftctl install` applies: the CRD and driftctl's own installation, as values.

Pure. The objects are those of the shipped kustomizations, built for a given repository,
image, schedule, RBAC variant and form (CronJob or operator), so that a CLI installed with
pipx carries them without the repository's files: `cronjob/` (the default: cluster-wide
RBAC), `cronjob/namespaced/` (Roles in the target namespaces only), `operator/` and
`operator/namespaced/` (`watch` instead of the CronJob).
tests/integration/test_install_renders_the_shipped_kustomizations.py
holds each variant, built with the shipped settings, equal to what `kubectl kustomize`
renders of its folder: a change to those folders must be made here too, and the reverse.

Everything lives in driftctl's namespace (conventions.LOCK_NAMESPACE), where every run
keeps its lock. The Git credentials' Secret (driftctl-git) and the keys --verify trusts
(driftctl-keys) are never made here: driftctl touches no Secret; both are mounted when they
exist, and the settings only name the credentials' files, when asked (`git_auth`).
pipeline.install takes an installation down in the order docs/how-to/
upgrade-and-uninstall.md says: the runs stopped first, the finalizers released, then the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.errors import UsageError
from driftctl.settings.install import DEFAULT_SCHEDULE, Form, GitAuth, Install, Rbac

Obj = dict[str, Any]
NAMESPACE = c.LOCK_NAMESPACE
NAME = "driftctl"  # the ServiceAccount, the roles, the CronJob or Deployment
CRD_READER = "driftctl-crd"  # the ClusterRole (and binding) reading the WebApp CRD
SETTINGS = "driftctl-settings"
GIT_SECRET = "driftctl-git"
GIT_FILES = "/var/run/secrets/driftctl/git"
KEYS_SECRET = "driftctl-keys"
KEY_FILES = "/var/run/secrets/driftctl/keys"
_NAME_LABEL = {c.NAME_LABEL: NAME}


@dataclass(frozen=True)
class Installation:
    """One installation of driftctl, as `driftctl install` is told it."""

    repo: str
    ref: str | None = None
    path: str = ""
    image: str = "driftctl:latest"
    schedule: str = DEFAULT_SCHEDULE
    form: Form = Form.CRONJOB
    rbac: Rbac = Rbac.CLUSTER
    target_namespaces: tuple[str, ...] = ()
    instance: str = c.DEFAULT_INSTANCE
    git_auth: GitAuth = GitAuth.NONE

    @classmethod
    def of(cls, told: Install, instance: str) -> Installation:
        """The installation `driftctl install` is told, for `instance`."""
        return cls(
            told.repo, told.ref, told.path, told.image, told.schedule, told.form, told.rbac,
            told.target_namespaces, instance, told.git_auth,
        )  # fmt: skip

    def __post_init__(self) -> None:
        if self.rbac is Rbac.NAMESPACED and not self.target_namespaces:
            raise UsageError(
                "--rbac namespaced needs --target-namespaces",
                hint="the namespaces driftctl may read and write, e.g. --target-namespaces web",
            )
        if self.rbac is Rbac.CLUSTER and self.target_namespaces:
            raise UsageError(
                "--target-namespaces needs --rbac namespaced",
                hint="with cluster-wide RBAC driftctl reads every namespace",
            )
        if len(self.schedule.split()) != 5:
            raise UsageError(
                f"--schedule must be a cron schedule of five fields, got {self.schedule!r}",
                hint='for example --schedule "*/5 * * * *"',
            )


def manifests(install: Installation, crd: Obj) -> list[Obj]:
    """Every object the installation applies, in the order to apply them: the CRD first
    (the rest may name its resources), the namespace, who driftctl is and what it may do,
    its settings, and last what runs."""
    return [
        crd,
        _namespace(),
        _labelled(_object("v1", "ServiceAccount", NAME, NAMESPACE)),
        *_lock_rbac(),
        *_crd_rbac(),
        *_webapp_rbac(install),
        _labelled(_settings(install)),
        _cronjob(install) if install.form is Form.CRONJOB else _deployment(install),
    ]


def _object(api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
    meta: Obj = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


def _labelled(obj: Obj) -> Obj:
    """The kustomizations label what cronjob/ holds with app.kubernetes.io/name."""
    obj["metadata"]["labels"] = {**_NAME_LABEL, **obj["metadata"].get("labels", {})}
    return obj


def _namespace() -> Obj:
    obj = _object("v1", "Namespace", NAMESPACE)
    obj["metadata"]["labels"] = {
        **_NAME_LABEL,
        "pod-security.kubernetes.io/audit": "restricted",
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/enforce-version": "latest",
        "pod-security.kubernetes.io/warn": "restricted",
    }
    return obj


def _rule(group: str, resource: str, *verbs: str) -> Obj:
    return {"apiGroups": [group], "resources": [resource], "verbs": list(verbs)}


def _role(kind: str, name: str, namespace: str | None, rules: list[Obj]) -> Obj:
    role = _object("rbac.authorization.k8s.io/v1", kind, name, namespace)
    role["rules"] = rules
    return role


def _subject() -> list[Obj]:
    return [{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}]


def _binding(kind: str, name: str, namespace: str | None, role_kind: str) -> Obj:
    obj = _object("rbac.authorization.k8s.io/v1", kind, name, namespace)
    obj["roleRef"] = {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": name}
    obj["subjects"] = _subject()
    return obj


def _lock_rbac() -> list[Obj]:
    """The run lock, a Lease in driftctl's namespace, the Event about it, and the
    notifications' record (a ConfigMap beside the Lease)."""
    rules = [
        _rule("coordination.k8s.io", "leases", "get", "create", "update"),
        _rule("", "events", "create"),
        _rule("", "configmaps", "get", "create", "update"),
    ]
    role = _role("Role", "driftctl-lock", NAMESPACE, rules)
    binding = _binding("RoleBinding", "driftctl-lock", NAMESPACE, "Role")
    return [_labelled(role), _labelled(binding)]


def _crd_rbac() -> list[Obj]:
    """The one read of the WebApp CRD every run makes (which status fields it declares):
    cluster-scoped, so a ClusterRole in both RBAC variants, for that one object."""
    rule = _rule("apiextensions.k8s.io", "customresourcedefinitions", "get")
    rule["resourceNames"] = [c.CRD_NAME]
    role = _role("ClusterRole", CRD_READER, None, [rule])
    binding = _binding("ClusterRoleBinding", CRD_READER, None, "ClusterRole")
    return [_labelled(role), _labelled(binding)]


def _webapp_rules(form: Form) -> list[Obj]:
    """The operator also watches what it keeps in memory: WebApps, Deployments, autoscalers."""
    watch = ("watch",) if form is Form.OPERATOR else ()
    edit = ("get", "list", "create", "patch", "delete", *watch)
    return [
        _rule(c.GROUP, c.PLURAL, *edit),
        _rule(c.GROUP, f"{c.PLURAL}/status", "patch"),
        _rule("apps", "deployments", *edit),
        _rule("", "events", "create"),
        _rule("autoscaling", "horizontalpodautoscalers", "list", *watch),
        _rule("apps", "replicasets", "list"),  # a rollout's new ReplicaSet, its Pods
        _rule("", "pods", "list"),
    ]


def _webapp_rbac(install: Installation) -> list[Obj]:
    """What driftctl may do to WebApps: a ClusterRole, or a Role in each target namespace."""
    rules = _webapp_rules(install.form)
    if install.rbac is Rbac.CLUSTER:
        role = _role("ClusterRole", NAME, None, rules)
        binding = _binding("ClusterRoleBinding", NAME, None, "ClusterRole")
        return [_labelled(role), _labelled(binding)]
    out: list[Obj] = []
    for namespace in install.target_namespaces:
        out += [
            _labelled(_role("Role", NAME, namespace, rules)),
            _labelled(_binding("RoleBinding", NAME, namespace, "Role")),
        ]
    return out


def settings_data(install: Installation) -> dict[str, str]:
    """The settings ConfigMap: each a DRIFTCTL_<FLAG> variable the container reads."""
    data = {"DRIFTCTL_REPO": install.repo}
    if install.ref is not None:
        data["DRIFTCTL_REF"] = install.ref
    if install.path:
        data["DRIFTCTL_PATH"] = install.path
    data |= {
        "DRIFTCTL_TIMEOUT": "300",
        "DRIFTCTL_LOG_FORMAT": "json",
        "DRIFTCTL_WAIT": "false",
        "DRIFTCTL_WAIT_TIMEOUT": "240",
    }
    if install.git_auth is GitAuth.TOKEN:
        data["DRIFTCTL_GIT_TOKEN_FILE"] = f"{GIT_FILES}/token"
    elif install.git_auth is GitAuth.SSH:
        data["DRIFTCTL_GIT_SSH_KEY_FILE"] = f"{GIT_FILES}/ssh-privatekey"
        data["DRIFTCTL_GIT_KNOWN_HOSTS_FILE"] = f"{GIT_FILES}/known_hosts"
    if install.instance != c.DEFAULT_INSTANCE:
        data["DRIFTCTL_INSTANCE"] = install.instance
    if install.target_namespaces:
        data["DRIFTCTL_TARGET_NAMESPACES"] = ",".join(install.target_namespaces)
    return dict(sorted(data.items()))


def _settings(install: Installation) -> Obj:
    obj = _object("v1", "ConfigMap", SETTINGS, NAMESPACE)
    obj["data"] = settings_data(install)
    return obj


def _container(install: Installation, command: str) -> Obj:
    return {
        "args": [command],
        "env": [
            {"name": "DRIFTCTL_CACHE_DIR", "value": "/var/cache/driftctl"},
            {"name": "HOME", "value": "/tmp"},
        ],
        "envFrom": [{"configMapRef": {"name": SETTINGS}}],
        "image": install.image,
        "imagePullPolicy": "IfNotPresent",
        "name": NAME,
        "resources": {
            "limits": {"memory": "512Mi"},
            "requests": {"cpu": "100m", "memory": "128Mi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
        },
        "volumeMounts": [
            {"mountPath": "/var/cache/driftctl", "name": "git-cache"},
            {"mountPath": "/tmp", "name": "tmp"},
            {"mountPath": GIT_FILES, "name": "git-credentials", "readOnly": True},
            {"mountPath": KEY_FILES, "name": "trusted-keys", "readOnly": True},
        ],
    }


def _pod_spec(container: Obj) -> Obj:
    return {
        "automountServiceAccountToken": True,
        "containers": [container],
        "enableServiceLinks": False,
        "securityContext": {
            "fsGroup": 65532,
            "runAsGroup": 65532,
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "serviceAccountName": NAME,
        "volumes": [
            {"emptyDir": {"sizeLimit": "512Mi"}, "name": "git-cache"},
            {"emptyDir": {"sizeLimit": "64Mi"}, "name": "tmp"},
            {
                "name": "git-credentials",
                "secret": {"defaultMode": 0o440, "optional": True, "secretName": GIT_SECRET},
            },
            {
                "name": "trusted-keys",
                "secret": {"defaultMode": 0o444, "optional": True, "secretName": KEYS_SECRET},
            },
        ],
    }


def _cronjob(install: Installation) -> Obj:
    pod = {**_pod_spec(_container(install, "apply")), "restartPolicy": "Never"}
    obj = _labelled(_object("batch/v1", "CronJob", NAME, NAMESPACE))
    obj["spec"] = {
        "concurrencyPolicy": "Forbid",
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {
            "spec": {
                "activeDeadlineSeconds": 600,
                "backoffLimit": 0,
                "template": {
                    "metadata": {
                        "labels": {"app.kubernetes.io/component": "cronjob", **_NAME_LABEL}
                    },
                    "spec": dict(sorted(pod.items())),
                },
            }
        },
        "schedule": install.schedule,
        "startingDeadlineSeconds": 240,
        "successfulJobsHistoryLimit": 3,
        "timeZone": "Etc/UTC",
    }
    return obj


def _deployment(install: Installation) -> Obj:
    container = _container(install, "watch")
    container["env"].append({"name": "DRIFTCTL_METRICS_ADDR", "value": ":8080"})
    probe = {"path": "/healthz", "port": "metrics"}
    container |= {
        "livenessProbe": {"httpGet": probe, "periodSeconds": 10},
        "ports": [{"containerPort": 8080, "name": "metrics"}],
        "readinessProbe": {"httpGet": {**probe, "path": "/readyz"}, "periodSeconds": 5},
    }
    labels = {"app.kubernetes.io/component": "watch", **_NAME_LABEL}
    pod = {**_pod_spec(dict(sorted(container.items()))), "terminationGracePeriodSeconds": 45}
    obj = _object("apps/v1", "Deployment", NAME, NAMESPACE)
    obj["spec"] = {
        "replicas": 2,
        "selector": {"matchLabels": labels},
        "strategy": {
            "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
            "type": "RollingUpdate",
        },
        "template": {
            "metadata": {
                "annotations": {"prometheus.io/port": "8080", "prometheus.io/scrape": "true"},
                "labels": labels,
            },
            "spec": dict(sorted(pod.items())),
        },
    }
    return obj


def object_name(obj: Mapping[str, Any]) -> str:
    """`Kind/namespace/name`, or `Kind/name` for a cluster-scoped object, as lines say it."""
    meta = obj["metadata"]
    where = f"{meta['namespace']}/" if "namespace" in meta else ""
    return f"{obj['kind']}/{where}{meta['name']}"
