"""Two driftctl instances installed side by side with `driftctl install --instance`, on a
control plane of their own (install and uninstall make and delete the CRD and
driftctl-system, which the other tests' control plane needs). Issue 34:

- `install --instance b` made the same CronJob, ConfigMap and ServiceAccount as the
  default instance, so it overwrote the default's; now each has its own, and each runs as
  its own ServiceAccount (the RBAC of both works). Here the default instance is the
  operator (a Deployment) and b a CronJob: the ClusterRole they share keeps granting
  `watch`, which the operator needs;
- `install` re-applied the cluster-wide RBAC it found without a word; now it says what it
  found, and whose it is too;
- `uninstall --instance b` (even `--dry-run`) deleted the ClusterRoles, bindings and
  namespace the default instance still needs; now it removes what b alone uses (its Lease
  too), and the shared objects go with the last instance, or with `--all-instances`,
  which asks first on a terminal.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.builders import webapp
from tests.support.control_plane import driftctl_on as driftctl
from tests.support.control_plane import kubectl_of as kubectl
from tests.support.gitrepos import Repo
from tests.support.terminal import answered

NS = c.LOCK_NAMESPACE
REPOS = {"default": "https://git.example.com/you/webapps.git", "b": "https://git.example.com/b.git"}
APPS = {"default": "shop", "b": "blog"}  # each instance's WebApp, in a namespace of its own
SHARED = [
    ("clusterrole", "driftctl", ""),
    ("clusterrole", "driftctl-crd", ""),
    ("namespace", NS, ""),
]
B_ALONE = [
    ("cronjob", "driftctl-b", NS),
    ("configmap", "driftctl-b-settings", NS),
    ("serviceaccount", "driftctl-b", NS),
    ("role", "driftctl-b-lock", NS),
    ("rolebinding", "driftctl-b-lock", NS),
    ("clusterrolebinding", "driftctl-b", ""),
    ("clusterrolebinding", "driftctl-b-crd", ""),
    ("lease", "driftctl-b", NS),
]
DEFAULT_ALONE = [
    ("deployment", "driftctl", NS),
    ("configmap", "driftctl-settings", NS),
    ("serviceaccount", "driftctl", NS),
    ("role", "driftctl-lock", NS),
    ("rolebinding", "driftctl-lock", NS),
    ("clusterrolebinding", "driftctl", ""),
    ("clusterrolebinding", "driftctl-crd", ""),
    ("lease", "driftctl-default", NS),
]


def there(plane: launcher.ControlPlane, objects: list[tuple[str, str, str]]) -> list[str]:
    """Those of `objects` (kind, name, namespace) the cluster has."""
    found = []
    for kind, name, namespace in objects:
        where = ["-n", namespace] if namespace else []
        if kubectl(plane, "get", kind, name, *where, "--ignore-not-found", "-o", "name").strip():
            found.append(f"{kind}/{name}")
    return found


def names(objects: list[tuple[str, str, str]]) -> list[str]:
    return [f"{kind}/{name}" for kind, name, _ in objects]


def applied_as_its_account(
    plane: launcher.ControlPlane, instance: str, folder: Path
) -> subprocess.CompletedProcess[str]:
    """The instance's CronJob's run, as its ServiceAccount: its repository's WebApp."""
    account = "driftctl" if instance == "default" else f"driftctl-{instance}"
    token = kubectl(plane, "create", "token", account, "-n", NS).strip()
    config = json.loads(plane.kubeconfig.read_text())
    config["users"] = [{"name": account, "user": {"token": token}}]
    config["contexts"][0]["context"]["user"] = account
    path = folder / f"{account}.kubeconfig"
    path.write_text(json.dumps(config))
    repo = Repo(folder / f"repo-{instance}")
    repo.write({"apps/app.yaml": webapp(APPS[instance], replicas=1)})
    repo.commit()
    return driftctl(
        path, "apply", "--repo", str(repo.path), "--ref", "main", "--path", "apps",
        "--namespace", APPS[instance], "--instance", instance,
    )  # fmt: skip


def two_instances(plane: launcher.ControlPlane, folder: Path) -> subprocess.CompletedProcess[str]:
    """The default instance and b, installed and each run once; b's install."""
    for namespace in APPS.values():
        kubectl(plane, "create", "namespace", namespace)
    first = driftctl(
        plane.kubeconfig, "install", "--repo", REPOS["default"], "--path", "apps",
        "--form", "operator",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    second = driftctl(
        plane.kubeconfig, "install", "--repo", REPOS["b"], "--path", "apps", "--instance", "b"
    )
    assert second.returncode == 0, second.stderr
    for instance in APPS:
        ran = applied_as_its_account(plane, instance, folder)
        assert ran.returncode == 0, ran.stderr
    return second


def test_a_second_instance_installs_beside_the_first_and_goes_alone(
    plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    second = two_instances(plane, tmp_path)

    role = json.loads(kubectl(plane, "get", "clusterrole", "driftctl", "-o", "json"))
    settings = {
        name: yaml.safe_load(
            json.loads(kubectl(plane, "get", "configmap", name, "-n", NS, "-o", "json"))["data"][
                "settings.yaml"
            ]
        )
        for name in ("driftctl-settings", "driftctl-b-settings")
    }
    rehearsed = driftctl(plane.kubeconfig, "uninstall", "--instance", "b", "--dry-run")
    after_rehearsal = there(plane, [*SHARED, *DEFAULT_ALONE, *B_ALONE])
    alone = driftctl(plane.kubeconfig, "uninstall", "--instance", "b")
    left = there(plane, [*SHARED, *DEFAULT_ALONE, *B_ALONE])
    still = applied_as_its_account(plane, "default", tmp_path)
    last = driftctl(plane.kubeconfig, "uninstall")

    assert second.stdout.splitlines()[0] == (
        f"found CustomResourceDefinition/{c.CRD_NAME}, Namespace/{NS}, ClusterRole/driftctl-crd, "
        f"ClusterRole/driftctl: applied again; shared with instance default "
        f"(Deployment/{NS}/driftctl)"
    )
    [webapps] = [rule for rule in role["rules"] if rule["resources"] == [c.PLURAL]]
    assert "watch" in webapps["verbs"]  # the operator's, kept by b's install
    assert settings["driftctl-settings"]["repo"] == REPOS["default"]
    assert settings["driftctl-b-settings"]["repo"] == REPOS["b"]
    assert "instance" not in settings["driftctl-settings"]
    assert settings["driftctl-b-settings"]["instance"] == "b"
    assert rehearsed.returncode == 0, rehearsed.stderr
    assert after_rehearsal == names([*SHARED, *DEFAULT_ALONE, *B_ALONE])  # nothing written
    shared_with = (
        f"shared with instance default (Deployment/{NS}/driftctl, Lease/{NS}/driftctl-default)"
    )
    assert rehearsed.stdout.splitlines()[-3:] == [
        f"kept ClusterRole/driftctl: {shared_with} (dry run)",
        f"kept ClusterRole/driftctl-crd: {shared_with} (dry run)",
        f"kept Namespace/{NS}: {shared_with} (dry run)",
    ]
    for line in (
        f"deleted CronJob/{NS}/driftctl-b (dry run)",
        f"deleted Lease/{NS}/driftctl-b (dry run)",
    ):
        assert line in rehearsed.stdout.splitlines()
    assert "ClusterRole/driftctl " not in rehearsed.stdout.replace("kept ClusterRole", "")
    assert alone.returncode == 0, alone.stderr
    assert left == names([*SHARED, *DEFAULT_ALONE])
    assert still.returncode == 0, still.stderr  # the default instance's RBAC is whole
    assert last.returncode == 0, last.stderr
    assert there(plane, [*SHARED, *DEFAULT_ALONE]) == []


def test_all_instances_goes_only_once_a_person_at_a_terminal_says_yes(
    plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    two_instances(plane, tmp_path)

    code, screen = on_a_terminal(plane.kubeconfig, "n", "uninstall", "--all-instances")
    kept = there(plane, [*SHARED, *DEFAULT_ALONE, *B_ALONE])
    code_yes, screen_yes = on_a_terminal(plane.kubeconfig, "y", "uninstall", "--all-instances")

    question = (
        f"Take away every driftctl instance here (b, default), and what they share "
        f"(ClusterRole/driftctl, ClusterRole/driftctl-crd, Namespace/{NS})? [y/N]: "
    )
    assert code == 1, screen
    assert question in screen
    assert "error: nothing was taken away: the answer was no" in screen
    assert kept == names([*SHARED, *DEFAULT_ALONE, *B_ALONE])
    assert code_yes == 0, screen_yes
    assert f"deleted CronJob/{NS}/driftctl-b" in screen_yes
    assert there(plane, [*SHARED, *DEFAULT_ALONE, *B_ALONE]) == []
    assert not kubectl(plane, "get", "webapps", "-A", "-o", "jsonpath={..finalizers}").strip()


def on_a_terminal(kubeconfig: Path, answer: str, *args: str) -> tuple[int, str]:
    """`driftctl ARGS` on a pseudo-terminal, typing `answer` once it asks: (exit code, what
    the terminal showed)."""
    argv = [sys.executable, "-m", "driftctl", *args, "--kubeconfig", str(kubeconfig)]
    return answered(argv, "[y/N]: ", answer, seconds=240)
