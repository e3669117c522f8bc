"""What `driftctl install` applies: the CRD and driftctl's own installation, as values.

Pure. The one copy of driftctl's installation: built for a given repository, image,
schedule, RBAC variant and form (CronJob or operator), so that a CLI installed with pipx
carries it without the repository's files, and the shipped kustomizations are made from it
with example settings (render.shipped, `make manifests`): `cronjob/` (the default:
cluster-wide RBAC), `cronjob/namespaced/` (Roles in the target namespaces only),
`operator/` and `operator/namespaced/` (`watch` instead of the CronJob), each in the parts
a folder keeps in a file each (`parts`). A unit test fails when a committed file is not
what this module makes. The Pods read their settings from one --config file in the
settings ConfigMap, mounted (core.installed_settings).

Everything lives in driftctl's namespace (conventions.LOCK_NAMESPACE), where every run
keeps its lock. Several instances may be installed side by side (`--instance`): each has
its own workload (CronJob or Deployment), settings, ServiceAccount and bindings, named
`driftctl-<instance>...` (`Names`); the default instance keeps the names cronjob/ and
operator/ give them (`driftctl`, `driftctl-settings`, `driftctl-lock`, `driftctl-crd`), so
nothing installed before changes. What they share (`SHARED`) is the namespace and the two
ClusterRoles their bindings name: an install says it found them; an uninstall takes them
away only with the last instance. A ClusterRole of an operator beside a CronJob grants what
both forms need (`watch` too).

The repository must be one a Pod can reach: a local path or a file:// URL is refused. The
Git credentials' Secret (driftctl-git) and the keys --verify trusts (driftctl-keys) are
never made here: driftctl touches no Secret; both are mounted when they exist, and the
settings only name the credentials' files, when asked (`git_auth`).
pipeline.install takes an installation down in the order docs/how-to/
upgrade-and-uninstall.md says: the runs stopped first, the finalizers released, then the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.installed_settings import (
    GIT_FILES,
    KEY_FILES,
    SETTINGS_DIR,
    SETTINGS_KEY,
    settings_file,
)
from driftctl.core.source.repo_url import is_url
from driftctl.errors import UsageError
from driftctl.settings.install import DEFAULT_SCHEDULE, Form, GitAuth, Install, Rbac

Obj = dict[str, Any]
NAMESPACE = c.LOCK_NAMESPACE
NAME = "driftctl"  # the ServiceAccount, the roles, the CronJob or Deployment
CRD_READER = "driftctl-crd"  # the ClusterRole (and binding) reading the WebApp CRD
SETTINGS = "driftctl-settings"
GIT_SECRET = "driftctl-git"
KEYS_SECRET = "driftctl-keys"
CRONJOB_NAME_LIMIT = 52  # the API server's: a CronJob's Jobs add 11 characters to its name
_NAME_LABEL = {c.NAME_LABEL: NAME}
# What the instances installed in one cluster share (kind, namespace, name), in the order
# an uninstall deletes them, the namespace last.
SHARED: tuple[tuple[str, str | None, str], ...] = (
    ("ClusterRole", None, NAME),
    ("ClusterRole", None, CRD_READER),
    ("Namespace", None, NAMESPACE),
)


@dataclass(frozen=True)
class Names:
    """The names of what one instance alone uses. The default instance's are those of
    cronjob/ and operator/; another's begin `driftctl-<instance>`."""

    instance: str = c.DEFAULT_INSTANCE

    @property
    def workload(self) -> str:
        """Its CronJob or Deployment, its ServiceAccount, its ClusterRoleBinding and Roles."""
        default = self.instance == c.DEFAULT_INSTANCE
        return NAME if default else f"{NAME}-{self.instance}"

    @property
    def settings(self) -> str:
        return f"{self.workload}-settings"

    @property
    def lock(self) -> str:
        """Its Role and RoleBinding on the run lock's namespace."""
        return f"{self.workload}-lock"

    @property
    def crd_reader(self) -> str:
        """Its ClusterRoleBinding to the shared ClusterRole that reads the CRD."""
        return CRD_READER if self.workload == NAME else f"{self.workload}-crd"

    def own(self, scope: tuple[str, ...] = ()) -> list[tuple[str, str | None, str]]:
        """What it alone uses besides its workload (kind, namespace, name), in the order an
        uninstall deletes them; `scope`: the namespaces of its Roles (--rbac namespaced)."""
        roles = [(kind, ns, self.workload) for ns in scope for kind in ("RoleBinding", "Role")]
        return [
            ("ConfigMap", NAMESPACE, self.settings),
            ("RoleBinding", NAMESPACE, self.lock),
            ("Role", NAMESPACE, self.lock),
            ("ClusterRoleBinding", None, self.workload),
            ("ClusterRoleBinding", None, self.crd_reader),
            *roles,
            ("ServiceAccount", NAMESPACE, self.workload),
        ]


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

    @property
    def names(self) -> Names:
        return Names(self.instance)

    def __post_init__(self) -> None:
        unreachable = _unreachable(self.repo)
        if unreachable is not None:
            raise UsageError(
                f"--repo {self.repo!r} is {unreachable}, which no Pod can read",
                hint="give the URL the cluster reaches it at (https://, ssh://, git@host:...); "
                "a repository on this machine must be served to the cluster first",
            )
        if self.form is Form.CRONJOB and len(self.names.workload) > CRONJOB_NAME_LIMIT:
            raise UsageError(
                f"--instance {self.instance!r} makes the CronJob {self.names.workload}, longer "
                f"than the {CRONJOB_NAME_LIMIT} characters the API server takes",
                hint="a shorter instance name",
            )
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


def _unreachable(repo: str) -> str | None:
    """What `repo` is when no Pod can read it (a local path, a file:// URL), else None."""
    if not is_url(repo):
        return "a local path"
    if repo.lower().startswith("file:"):
        return "a file:// URL of this machine"
    return None


def manifests(install: Installation, crd: Obj, beside: frozenset[Form] = frozenset()) -> list[Obj]:
    """Every object the installation applies, in the order to apply them: the CRD first
    (the rest may name its resources), the namespace, who driftctl is and what it may do,
    its settings, and last what runs. `beside`: the forms of the other instances installed
    (a shared ClusterRole grants what each needs)."""
    return [crd, *(obj for _part, objects in parts(install, beside) for obj in objects)]


Part = tuple[str, list[Obj]]  # a part's name (the file it is in) and its objects


def parts(install: Installation, beside: frozenset[Form] = frozenset()) -> list[Part]:
    """The objects of `manifests` but the CRD, in order, in the parts the shipped folders
    keep in a file each (render.shipped): `namespace`, `serviceaccount`, `lock-rbac`,
    `crd-rbac` (what every variant has alike), `rbac` (the WebApps'), `settings`, and
    `cronjob` or `deployment`."""
    names = install.names
    account = _labelled(_object("v1", "ServiceAccount", names.workload, NAMESPACE))
    workload = (
        ("cronjob", _cronjob(install))
        if install.form is Form.CRONJOB
        else ("deployment", _deployment(install))
    )
    return [
        ("namespace", [_namespace()]),
        ("serviceaccount", [account]),
        ("lock-rbac", _lock_rbac(names)),
        ("crd-rbac", _crd_rbac(names)),
        ("rbac", _webapp_rbac(install, beside)),
        ("settings", [_labelled(_settings(install))]),
        (workload[0], [workload[1]]),
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


def _binding(
    kind: str, name: str, namespace: str | None, role: tuple[str, str], account: str
) -> Obj:
    """A binding `name` of the role (kind, name) to the ServiceAccount `account`."""
    obj = _object("rbac.authorization.k8s.io/v1", kind, name, namespace)
    role_kind, role_name = role
    obj["roleRef"] = {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role_name}
    obj["subjects"] = [{"kind": "ServiceAccount", "name": account, "namespace": NAMESPACE}]
    return obj


def _lock_rbac(names: Names) -> list[Obj]:
    """The run lock, a Lease in driftctl's namespace, the Event about it, and the
    notifications' record (a ConfigMap beside the Lease)."""
    rules = [
        _rule("coordination.k8s.io", "leases", "get", "create", "update"),
        _rule("", "events", "create"),
        _rule("", "configmaps", "get", "create", "update"),
    ]
    role = _role("Role", names.lock, NAMESPACE, rules)
    binding = _binding("RoleBinding", names.lock, NAMESPACE, ("Role", names.lock), names.workload)
    return [_labelled(role), _labelled(binding)]


def _crd_rbac(names: Names) -> list[Obj]:
    """The one read of the WebApp CRD every run makes (which status fields it declares):
    cluster-scoped, so a ClusterRole in both RBAC variants, for that one object (shared by
    the instances), and the instance's binding to it."""
    rule = _rule("apiextensions.k8s.io", "customresourcedefinitions", "get")
    rule["resourceNames"] = [c.CRD_NAME]
    role = _role("ClusterRole", CRD_READER, None, [rule])
    binding = _binding(
        "ClusterRoleBinding",
        names.crd_reader,
        None,
        ("ClusterRole", CRD_READER),
        names.workload,
    )
    return [_labelled(role), _labelled(binding)]


def _webapp_rules(forms: frozenset[Form]) -> list[Obj]:
    """Both forms read WebApps and Deployments as streamed lists (a WATCH); the operator also
    watches the autoscalers it keeps in memory."""
    watch = ("watch",) if Form.OPERATOR in forms else ()
    edit = ("get", "list", "watch", "create", "patch", "delete")
    return [
        _rule(c.GROUP, c.PLURAL, *edit),
        _rule(c.GROUP, f"{c.PLURAL}/status", "patch"),
        _rule("apps", "deployments", *edit),
        _rule("", "events", "create"),
        _rule("autoscaling", "horizontalpodautoscalers", "list", *watch),
        _rule("apps", "replicasets", "list"),  # a rollout's new ReplicaSet, its Pods
        _rule("", "pods", "list"),
    ]


def _webapp_rbac(install: Installation, beside: frozenset[Form]) -> list[Obj]:
    """What driftctl may do to WebApps: a ClusterRole (shared by the instances: for the
    forms of all of them), or the instance's own Role in each target namespace."""
    account = install.names.workload
    if install.rbac is Rbac.CLUSTER:
        role = _role("ClusterRole", NAME, None, _webapp_rules(beside | {install.form}))
        binding = _binding("ClusterRoleBinding", account, None, ("ClusterRole", NAME), account)
        return [_labelled(role), _labelled(binding)]
    rules = _webapp_rules(frozenset({install.form}))
    out: list[Obj] = []
    for namespace in install.target_namespaces:
        out += [
            _labelled(_role("Role", account, namespace, rules)),
            _labelled(_binding("RoleBinding", account, namespace, ("Role", account), account)),
        ]
    return out


def _settings(install: Installation) -> Obj:
    obj = _object("v1", "ConfigMap", install.names.settings, NAMESPACE)
    obj["data"] = {SETTINGS_KEY: settings_file(install)}
    return obj


def _container(install: Installation, command: str) -> Obj:
    return {
        "args": [command],
        "env": [
            {"name": "DRIFTCTL_CONFIG", "value": f"{SETTINGS_DIR}/{SETTINGS_KEY}"},
            {"name": "DRIFTCTL_CACHE_DIR", "value": "/var/cache/driftctl"},
            {"name": "HOME", "value": "/tmp"},
        ],
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
            {"mountPath": SETTINGS_DIR, "name": "settings", "readOnly": True},
            {"mountPath": "/var/cache/driftctl", "name": "git-cache"},
            {"mountPath": "/tmp", "name": "tmp"},
            {"mountPath": GIT_FILES, "name": "git-credentials", "readOnly": True},
            {"mountPath": KEY_FILES, "name": "trusted-keys", "readOnly": True},
        ],
    }


def _pod_spec(container: Obj, install: Installation) -> Obj:
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
        "serviceAccountName": install.names.workload,
        "volumes": [
            {"configMap": {"name": install.names.settings}, "name": "settings"},
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


def _pod_labels(install: Installation, component: str) -> dict[str, str]:
    """Its Pods' labels (the operator's selector): another instance's name its instance,
    app.kubernetes.io/instance (never driftctl's own instance label: that selects the
    objects an instance manages)."""
    labels = {"app.kubernetes.io/component": component, **_NAME_LABEL}
    if install.instance != c.DEFAULT_INSTANCE:
        labels["app.kubernetes.io/instance"] = install.instance
    return labels


def _cronjob(install: Installation) -> Obj:
    pod = {**_pod_spec(_container(install, "apply"), install), "restartPolicy": "Never"}
    obj = _labelled(_object("batch/v1", "CronJob", install.names.workload, NAMESPACE))
    obj["spec"] = {
        "concurrencyPolicy": "Forbid",
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {
            "spec": {
                "activeDeadlineSeconds": 600,
                "backoffLimit": 0,
                "template": {
                    "metadata": {"labels": _pod_labels(install, "cronjob")},
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
    labels = _pod_labels(install, "watch")
    pod = {
        **_pod_spec(dict(sorted(container.items())), install),
        "terminationGracePeriodSeconds": 45,
    }
    obj = _object("apps/v1", "Deployment", install.names.workload, NAMESPACE)
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


def is_workload(obj: Mapping[str, Any]) -> bool:
    """Whether a CronJob or Deployment is an instance's: driftctl's name, or one beginning
    `driftctl-`, and its Pods labelled app.kubernetes.io/name=driftctl."""
    name = str(obj["metadata"]["name"])
    spec = obj.get("spec") or {}
    template = ((spec.get("jobTemplate") or {}).get("spec") or spec).get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    return (name == NAME or name.startswith(f"{NAME}-")) and labels.get(c.NAME_LABEL) == NAME


def object_name(obj: Mapping[str, Any]) -> str:
    """`Kind/namespace/name`, or `Kind/name` for a cluster-scoped object, as lines say it."""
    meta = obj["metadata"]
    where = f"{meta['namespace']}/" if "namespace" in meta else ""
    return f"{obj['kind']}/{where}{meta['name']}"
