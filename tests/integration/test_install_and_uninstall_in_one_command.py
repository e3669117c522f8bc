"""`driftctl install` and `driftctl uninstall` on a control plane of their own (they make and
delete the CRD and driftctl-system, which the other tests' control plane needs).

install applies the CRD and the CronJob installation, and the CronJob's ServiceAccount can
then apply two WebApps (they carry driftctl's finalizer). uninstall, as
docs/how-to/upgrade-and-uninstall.md does it: a dry run changes nothing; then the runs
stop, the finalizers are released, driftctl's objects go and the applications stay,
unmanaged; installed again and applied again, `--delete-webapps --delete-crd` leaves
nothing, and nothing Terminating.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.builders import webapp
from tests.support.control_plane import driftctl_on as driftctl
from tests.support.control_plane import kubectl_of as kubectl
from tests.support.gitrepos import Repo
from tests.support.harness import eventually

APPS_NAMESPACE = "shop"
REPO = "https://git.example.com/you/webapps.git"


def as_cronjob_account(plane: launcher.ControlPlane, folder: Path) -> Path:
    """A kubeconfig with a token of the ServiceAccount driftctl install made."""
    token = kubectl(plane, "create", "token", "driftctl", "-n", c.LOCK_NAMESPACE).strip()
    config = json.loads(plane.kubeconfig.read_text())
    config["users"] = [{"name": "driftctl", "user": {"token": token}}]
    config["contexts"][0]["context"]["user"] = "driftctl"
    path = folder / "driftctl.kubeconfig"
    path.write_text(json.dumps(config))
    return path


def applied_by_the_cronjob_account(plane: launcher.ControlPlane, repo: Repo, folder: Path) -> None:
    run = driftctl(
        as_cronjob_account(plane, folder), "apply", "--repo", str(repo.path), "--ref", "main",
        "--path", "apps", "--namespace", APPS_NAMESPACE,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr


def items(plane: launcher.ControlPlane, *args: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = json.loads(kubectl(plane, "get", *args, "-o", "json"))["items"]
    return listed


def gone(plane: launcher.ControlPlane, *args: str) -> bool:
    return not kubectl(plane, "get", *args, "--ignore-not-found", "-o", "name").strip()


def test_install_then_uninstall_keeping_the_applications_then_removing_everything(
    plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    admin = plane.kubeconfig
    repo = Repo(tmp_path / "repo")
    repo.write({f"apps/{name}.yaml": webapp(name, replicas=1) for name in ("shop", "blog")})
    repo.commit()
    kubectl(plane, "create", "namespace", APPS_NAMESPACE)

    installed = driftctl(admin, "install", "--repo", REPO, "--path", "apps")
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.splitlines()[:2] == [
        f"applied CustomResourceDefinition/{c.CRD_NAME}",
        f"applied Namespace/{c.LOCK_NAMESPACE}",
    ]
    assert installed.stdout.splitlines()[-1] == f"applied CronJob/{c.LOCK_NAMESPACE}/driftctl"
    [settings] = items(plane, "configmaps", "-n", c.LOCK_NAMESPACE, "--field-selector",
                       "metadata.name=driftctl-settings")  # fmt: skip
    assert yaml.safe_load(settings["data"]["settings.yaml"])["repo"] == REPO
    applied_by_the_cronjob_account(plane, repo, tmp_path)
    held = {
        i["metadata"]["name"]: i["metadata"].get("finalizers")
        for i in items(plane, "webapps", "-n", APPS_NAMESPACE)
    }
    assert held == {"blog": [c.FINALIZER], "shop": [c.FINALIZER]}

    rehearsed = driftctl(admin, "uninstall", "--dry-run")
    assert rehearsed.returncode == 0, rehearsed.stderr
    assert f"deleted CronJob/{c.LOCK_NAMESPACE}/driftctl (dry run)" in rehearsed.stdout
    assert not gone(plane, "cronjob", "driftctl", "-n", c.LOCK_NAMESPACE)

    kept = driftctl(admin, "uninstall")
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.splitlines()[:4] == [
        f"deleted CronJob/{c.LOCK_NAMESPACE}/driftctl",
        f"released WebApp/{APPS_NAMESPACE}/blog",
        f"released WebApp/{APPS_NAMESPACE}/shop",
        "2 WebApps of instance default released",
    ]
    assert gone(plane, "namespace", c.LOCK_NAMESPACE)
    assert gone(plane, "clusterrole", "driftctl")
    assert {
        i["metadata"]["name"]: i["metadata"].get("finalizers")
        for i in items(plane, "webapps", "-n", APPS_NAMESPACE)
    } == {"blog": None, "shop": None}
    assert len(items(plane, "deployments", "-n", APPS_NAMESPACE)) == 2
    kubectl(plane, "delete", "webapp", "blog", "-n", APPS_NAMESPACE, "--timeout=30s")  # no hang

    again = driftctl(admin, "install", "--repo", REPO, "--path", "apps")
    assert again.returncode == 0, again.stderr
    applied_by_the_cronjob_account(plane, repo, tmp_path)
    removed = driftctl(admin, "uninstall", "--delete-webapps", "--delete-crd")

    assert removed.returncode == 0, removed.stderr
    assert f"deleted WebApp/{APPS_NAMESPACE}/shop" in removed.stdout
    assert removed.stdout.splitlines()[-1] == f"deleted CustomResourceDefinition/{c.CRD_NAME}"
    assert gone(plane, "crd", c.CRD_NAME)
    assert eventually(lambda: gone(plane, "deployments", "-n", APPS_NAMESPACE), 60)
    assert gone(plane, "namespace", c.LOCK_NAMESPACE)
