"""The driftctl image runs in the cluster as the CronJob would: non-root, in-cluster config.

The Pods use the host's network and reach the API server on loopback
(KUBERNETES_SERVICE_HOST/PORT): the `kubernetes` Service has no endpoints here and its
address is not on this machine. Everything else is as in a cluster: the projected
ServiceAccount token and CA, and Python 3.13's strict certificate checks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from image.build import USER_ID, driftctl_image, version
from image.oci import read_image
from tests.support.builders import webapp
from tests.support.gitrepos import Repo
from tests.support.kustomize import account
from tests.support.node import NodeCluster, wait_for
from tests.support.node_fixtures import require_root
from tests.support.paths import ROOT

NODE_OVERLAY = ROOT / "tests" / "node" / "overlay"
NAMESPACE = "driftctl-system"  # cronjob/'s


def driftctl_pod(
    cluster: NodeCluster, name: str, image: str, args: list[str], repo: Path | None = None
) -> dict[str, Any]:
    """A hostNetwork Pod running `driftctl ARGS` like the CronJob's container."""
    env = [{"name": k, "value": v} for k, v in cluster.node.host_network_environment().items()]
    mounts: list[dict[str, Any]] = [{"name": "tmp", "mountPath": "/tmp"}]
    volumes: list[dict[str, Any]] = [{"name": "tmp", "emptyDir": {}}]
    if repo is not None:
        mounts.append({"name": "repo", "mountPath": "/repo", "readOnly": True})
        volumes.append({"name": "repo", "hostPath": {"path": str(repo), "type": "Directory"}})
    container = {
        "name": "driftctl",
        "image": image,
        "imagePullPolicy": "Never",
        "args": args,
        "env": [*env, {"name": "HOME", "value": "/tmp"}],
        "securityContext": {
            "readOnlyRootFilesystem": True,
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": mounts,
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "serviceAccountName": "driftctl",
            "hostNetwork": True,
            "restartPolicy": "Never",
            # As the CronJob's Pod (cronjob/cronjob.yaml): containerd takes only the user,
            # not the group, from an image's USER.
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": USER_ID,
                "runAsGroup": USER_ID,
            },
            "containers": [container],
            "volumes": volumes,
        },
    }


def install_rbac(cluster: NodeCluster) -> None:
    """The ServiceAccount and RBAC of cronjob/, as the node's overlay has them (its namespace
    allows hostNetwork Pods)."""
    cluster.apply(*account(cluster.plane.bin_dir / "kubectl", NODE_OVERLAY))


def finished(cluster: NodeCluster, name: str) -> dict[str, Any]:
    """The terminated state of the Pod's container, once it has one."""
    pod = cluster.get("pod", name, "-n", NAMESPACE)
    statuses = pod["status"].get("containerStatuses") or [{}]
    terminated: dict[str, Any] = statuses[0].get("state", {}).get("terminated", {})
    return terminated


def test_driftctl_version_runs_to_completion_in_a_pod(
    cluster: NodeCluster, driftctl_image_name: str
) -> None:
    install_rbac(cluster)
    cluster.apply(driftctl_pod(cluster, "version", driftctl_image_name, ["--version"]))

    terminated = wait_for("driftctl --version to end", lambda: finished(cluster, "version"))

    assert terminated["exitCode"] == 0
    assert cluster.run("logs", "version", "-n", NAMESPACE) == f"driftctl, version {version()}\n"


def test_driftctl_plan_in_a_pod_reads_the_cluster_with_its_service_account(
    cluster: NodeCluster, driftctl_image_name: str, tmp_path: Path
) -> None:
    install_rbac(cluster)
    repo = Repo(tmp_path / "repo")
    repo.write({"apps/shop.yaml": webapp("shop", image="localhost/hello:1", replicas=1)})
    repo.commit()
    subprocess.run(["chown", "-R", f"{USER_ID}:{USER_ID}", str(repo.path)], check=True)
    args = ["plan", "--repo", "/repo", "--path", "apps", "--namespace", "default"]
    cluster.apply(driftctl_pod(cluster, "plan", driftctl_image_name, args, repo.path))

    terminated = wait_for("driftctl plan to end", lambda: finished(cluster, "plan"))
    printed = cluster.run("logs", "plan", "-n", NAMESPACE)

    assert terminated["exitCode"] == 1, printed  # 1: the plan has changes
    assert "WebApp/default/shop: create" in printed
    assert "Deployment/default/shop: create" in printed


def test_the_driftctl_image_runs_driftctl_as_65532_and_holds_no_compiler_or_pip() -> None:
    require_root()
    config, files = read_image(driftctl_image().tarball)

    runs = config["config"]
    assert isinstance(runs, dict)
    assert runs["User"] == f"{USER_ID}:{USER_ID}"
    assert runs["Entrypoint"] == ["/opt/driftctl/bin/driftctl"]
    assert {"opt/driftctl/bin/driftctl", "usr/bin/git", "usr/bin/ssh", "usr/bin/python3"} <= files
    compilers = {"usr/bin/gcc", "usr/bin/cc", "usr/bin/c++", "usr/bin/x86_64-linux-gnu-gcc"}
    assert not files & compilers
    assert not {name for name in files if name.startswith("opt/driftctl/bin/pip")}
