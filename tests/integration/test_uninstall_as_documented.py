"""The uninstall steps of docs/how-to/upgrade-and-uninstall.md, run as written, on a
control plane of their own (they delete driftctl-system and the CRD, which the other tests'
control plane needs).

driftctl is installed with `kubectl apply -k cronjob/` and has applied two WebApps (as its
ServiceAccount), so they carry its cleanup finalizer. Then, as the page says: stop the
CronJob, and either keep the applications (`kubectl delete -k cronjob/ --ignore-not-found`:
the WebApps and Deployments stay and run on; one deleted later waits for its finalizer
until `driftctl doctor --release-finalizers` releases it), or delete them too (the WebApps
first, released by `driftctl doctor --release-finalizers`, their Deployments deleted by the
garbage collector through their ownerReference, then driftctl, then the CRD). Nothing is
left Terminating.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.builders import webapp
from tests.support.gitrepos import Repo
from tests.support.harness import eventually
from tests.support.kustomize import CRONJOB, NAMESPACE
from tests.support.paths import ROOT

CRD_FILE = ROOT / "specs" / "webapp-crd.yaml"
APPS = ("shop", "blog")
APPS_NAMESPACE = "shop"


class Kubectl:
    """kubectl as admin on one control plane."""

    def __init__(self, plane: launcher.ControlPlane) -> None:
        self.argv = [str(plane.bin_dir / "kubectl"), f"--kubeconfig={plane.kubeconfig}"]
        self.kubeconfig = plane.kubeconfig

    def __call__(self, *args: str) -> str:
        done = subprocess.run([*self.argv, *args], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout

    def items(self, *args: str) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = json.loads(self("get", *args, "-o", "json"))["items"]
        return listed


@pytest.fixture
def kubectl(tmp_path: Path) -> Iterator[Kubectl]:
    """A control plane of this test's own, with driftctl installed from cronjob/ and two
    WebApps applied by it (as its ServiceAccount), holding its finalizer."""
    plane = launcher.start(tmp_path / "plane", [CRD_FILE])
    try:
        run = Kubectl(plane)
        run("apply", "--server-side", "-k", str(CRONJOB))
        run("create", "namespace", APPS_NAMESPACE)
        applied = driftctl_apply(run, plane, Repo(tmp_path / "repo"), tmp_path)
        assert applied.returncode == 0, applied.stderr
        yield run
    finally:
        launcher.stop(tmp_path / "plane")


def driftctl_apply(
    run: Kubectl, plane: launcher.ControlPlane, repo: Repo, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    repo.write({f"apps/{name}.yaml": webapp(name, replicas=1) for name in APPS})
    repo.commit()
    token = run("create", "token", "driftctl", "-n", NAMESPACE).strip()
    config = json.loads(plane.kubeconfig.read_text())
    config["users"] = [{"name": "driftctl", "user": {"token": token}}]
    config["contexts"][0]["context"]["user"] = "driftctl"
    kubeconfig = tmp_path / "driftctl.kubeconfig"
    kubeconfig.write_text(json.dumps(config))
    return subprocess.run(
        [
            sys.executable, "-m", "driftctl", "apply", "--kubeconfig", str(kubeconfig),
            "--repo", str(repo.path), "--ref", "main", "--path", "apps",
            "--namespace", APPS_NAMESPACE, "--lock-namespace", NAMESPACE,
        ],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip


def stop_the_cronjob(kubectl: Kubectl) -> None:
    """Step 1 of the documented uninstall."""
    kubectl("delete", "cronjob", "driftctl", "-n", NAMESPACE, "--cascade=foreground")


def release(kubectl: Kubectl) -> str:
    """`driftctl doctor --release-finalizers`, as the page runs it: what it printed."""
    released = subprocess.run(
        [
            sys.executable, "-m", "driftctl", "doctor", "--release-finalizers", "--stuck-after",
            "0s", "--yes", "--kubeconfig", str(kubectl.kubeconfig),
        ],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert released.returncode == 0, released.stdout + released.stderr
    return released.stdout


def finalizers(kubectl: Kubectl) -> dict[str, list[str]]:
    return {
        item["metadata"]["name"]: item["metadata"].get("finalizers", [])
        for item in kubectl.items("webapps", "-n", APPS_NAMESPACE)
    }


def gone(kubectl: Kubectl, *args: str) -> bool:
    return not kubectl("get", *args, "--ignore-not-found", "-o", "name").strip()


def test_keeping_the_applications_leaves_them_running_and_a_later_delete_released(
    kubectl: Kubectl,
) -> None:
    assert finalizers(kubectl) == {name: [c.FINALIZER] for name in APPS}
    stop_the_cronjob(kubectl)
    kubectl("delete", "-k", str(CRONJOB), "--ignore-not-found", "--wait=true")

    assert len(kubectl.items("deployments", "-n", APPS_NAMESPACE)) == len(APPS)
    assert eventually(lambda: gone(kubectl, "namespace", NAMESPACE), 60)
    assert gone(kubectl, "clusterrole", "driftctl")
    kubectl("delete", "webapp", "blog", "-n", APPS_NAMESPACE, "--wait=false")
    printed = release(kubectl)
    assert printed.splitlines()[0] == (
        f"ok    finalizers  released WebApp/{APPS_NAMESPACE}/blog: "
        f"Deployment/{APPS_NAMESPACE}/blog goes with it (its ownerReference)"
    )
    assert eventually(lambda: gone(kubectl, "webapp", "blog", "-n", APPS_NAMESPACE), 30)
    assert eventually(lambda: gone(kubectl, "deployment", "blog", "-n", APPS_NAMESPACE), 60)
    assert finalizers(kubectl) == {"shop": [c.FINALIZER]}  # the one kept runs on


def test_removing_everything_leaves_nothing_terminating(kubectl: Kubectl) -> None:
    assert finalizers(kubectl) == {name: [c.FINALIZER] for name in APPS}
    stop_the_cronjob(kubectl)
    kubectl(
        "delete", "webapps", "--all-namespaces", "-l", f"{c.INSTANCE_LABEL}=default",
        "--wait=false",
    )  # fmt: skip
    printed = release(kubectl)
    kubectl("delete", "-k", str(CRONJOB), "--ignore-not-found", "--wait=true")
    kubectl("delete", "crd", c.CRD_NAME, "--timeout=60s")

    assert [line.split(":")[0] for line in printed.splitlines()[:2]] == [
        f"ok    finalizers  released WebApp/{APPS_NAMESPACE}/{name}" for name in sorted(APPS)
    ]
    assert eventually(lambda: gone(kubectl, "deployments", "-n", APPS_NAMESPACE), 60)
    assert eventually(lambda: gone(kubectl, "namespace", NAMESPACE), 60)
    assert gone(kubectl, "crd", c.CRD_NAME)
