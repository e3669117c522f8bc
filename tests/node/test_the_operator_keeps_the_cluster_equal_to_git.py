"""The operator on the node: operator/namespaced/ installed as shipped, changed only by the
node's overlay (tests/node/operator-overlay), runs `driftctl watch` as a Pod.

The Deployment's Pod runs the driftctl image as the ServiceAccount driftctl, with the
projected token and no kubeconfig, with only the namespaced RBAC (a Role in the managed
namespace, `watch` included), reading a Git repository over HTTP from a server on
loopback that wants the token mounted from the Secret driftctl-git. It becomes Ready once
its first full pass is done (/readyz, the readiness probe): the WebApps and Deployments
exist, and their Pods (localhost/hello:1) really start. Then, as long as it runs:

- the Deployment controller's status updates (real Pods becoming available) reach the
  WebApps' status, each ready;
- a hand `kubectl scale` is put back;
- a commit to Git is applied (the ref is polled every 2 s here);
- the Pod deleted (a rollout, a drained node), a new Pod takes the Lease the old one
  released, and puts the next hand scale back.
Waits are polls on conditions, bounded; nothing here asserts a time.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import webapp
from tests.support.gitrepos import Repo, http_git_server
from tests.support.kustomize import NAMESPACE, Obj, named, render, settings_patch, write_overlay
from tests.support.node import NodeCluster, wait_for
from tests.support.paths import ROOT

OPERATOR_OVERLAY = ROOT / "tests" / "node" / "operator-overlay"
TOKEN = "tok-operator-7d1e0c4a9b"
USERNAME = "x-access-token"
APPS_NAMESPACE = "webapps"  # the namespace operator/namespaced/ grants
APPS = {"shop": 2, "blog": 1}
SETTLE_SECONDS = 180.0


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    served = Repo(tmp_path / "served" / "webapps.git")
    declare(served, APPS)
    return served


@pytest.fixture
def git_url(repo: Repo) -> Iterator[str]:
    """The repository served on loopback, for the token only."""
    with http_git_server(repo.path.parent, USERNAME, TOKEN) as (base, _seen):
        yield f"{base}/webapps.git"


def declare(repo: Repo, apps: dict[str, int]) -> None:
    repo.write(
        {
            f"apps/{name}.yaml": webapp(name, "localhost/hello:1", count, namespace=APPS_NAMESPACE)
            for name, count in apps.items()
        }
    )
    repo.commit("webapps")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def machine_overlay(folder: Path, cluster: NodeCluster, repo_url: str) -> Path:
    """The node's overlay, plus what only this run knows: the API server's port, a free
    port for the metrics and probes (the Pod is on the host's network), the Git URL."""
    port = free_port()
    environment = [
        {"name": name, "value": value}
        for name, value in cluster.node.host_network_environment().items()
    ]
    environment.append({"name": "DRIFTCTL_METRICS_ADDR", "value": f":{port}"})
    deployment_patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "driftctl", "namespace": NAMESPACE},
        "spec": {"template": {"spec": {"containers": [{"name": "driftctl", "env": environment}]}}},
    }
    # The file the Pods read, pointed at this test's repository, polled every 2 s.
    settings = settings_patch(ROOT / "operator" / "namespaced", repo=repo_url, git_poll="2s")
    patches: list[dict[str, Any]] = [
        {"patch": json.dumps(patch)} for patch in (deployment_patch, settings)
    ]
    port_path = "/spec/template/spec/containers/0/ports/0/containerPort"  # the probes' too
    patches.append(
        {
            "target": {"kind": "Deployment", "name": "driftctl"},
            "patch": json.dumps([{"op": "replace", "path": port_path, "value": port}]),
        }
    )
    return write_overlay(folder, [OPERATOR_OVERLAY], patches=patches)


def install(cluster: NodeCluster, documents: list[Obj], token_file: Path) -> None:
    """Everything but the Deployment, then the Git Secret, then the Deployment."""
    cluster.apply(*[d for d in documents if d["kind"] != "Deployment"])
    cluster.run(
        "create", "secret", "generic", "driftctl-git", "-n", NAMESPACE,
        f"--from-file=token={token_file}",
    )  # fmt: skip
    cluster.apply(named(documents, "Deployment", "driftctl"))


def operator_pods(cluster: NodeCluster) -> list[Obj]:
    pods: list[Obj] = cluster.get(
        "pods", "-n", NAMESPACE, "-l", "app.kubernetes.io/component=watch"
    )["items"]
    return [pod for pod in pods if "deletionTimestamp" not in pod["metadata"]]


def ready_pod(cluster: NodeCluster) -> Obj | None:
    """The operator's one Pod, once it is Ready (its first full pass is done)."""
    for pod in operator_pods(cluster):
        conditions = pod.get("status", {}).get("conditions", [])
        if any(c["type"] == "Ready" and c["status"] == "True" for c in conditions):
            return pod
    return None


def replicas(cluster: NodeCluster, name: str) -> int:
    deployment = cluster.get("deployment", name, "-n", APPS_NAMESPACE)
    return int(deployment["spec"]["replicas"])


def statuses(cluster: NodeCluster) -> dict[str, Any]:
    items: list[Obj] = cluster.get("webapps", "-n", APPS_NAMESPACE)["items"]
    return {item["metadata"]["name"]: item.get("status", {}) for item in items}


def log(cluster: NodeCluster, pod: Obj) -> str:
    return cluster.run("logs", pod["metadata"]["name"], "-n", NAMESPACE)


def assert_a_hand_scale_is_put_back(cluster: NodeCluster, pod: Obj) -> None:
    cluster.run("scale", "deployment/shop", "--replicas=5", "-n", APPS_NAMESPACE)
    wait_for("the scale put back", lambda: replicas(cluster, "shop") == APPS["shop"])
    assert f"configured Deployment/{APPS_NAMESPACE}/shop" in log(cluster, pod)


def test_the_operator_runs_on_the_node_and_keeps_the_cluster_equal_to_git(
    cluster: NodeCluster, driftctl_image_name: str, repo: Repo, git_url: str, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    cluster.run("create", "namespace", APPS_NAMESPACE)
    overlay = machine_overlay(tmp_path / "overlay", cluster, git_url)
    documents = render(cluster.plane.bin_dir / "kubectl", overlay)
    install(cluster, documents, token_file)

    pod = wait_for("the operator's Pod to be Ready", lambda: ready_pod(cluster), SETTLE_SECONDS)
    spec = pod["spec"]
    assert spec["serviceAccountName"] == "driftctl"
    assert spec["containers"][0]["image"] == driftctl_image_name
    assert spec["containers"][0]["args"] == ["watch"]
    assert not [e for e in spec["containers"][0]["env"] if e["name"] == "KUBECONFIG"]
    first = log(cluster, pod)
    assert "leading: holds Lease driftctl-system/driftctl-default" in first, first
    for app in APPS:
        cluster.run("rollout", "status", f"deployment/{app}", "-n", APPS_NAMESPACE, "--timeout=90s")

    def all_ready() -> bool:
        return all(status.get("ready") is True for status in statuses(cluster).values())

    wait_for("every WebApp's status ready, from its Pods", all_ready, SETTLE_SECONDS)
    assert {name: s["available_replicas"] for name, s in statuses(cluster).items()} == APPS

    assert_a_hand_scale_is_put_back(cluster, pod)
    declare(repo, {**APPS, "blog": 2})
    wait_for("the commit applied", lambda: replicas(cluster, "blog") == 2, SETTLE_SECONDS)

    old = pod["metadata"]["name"]
    cluster.run("delete", "pod", old, "-n", NAMESPACE, "--wait=false")

    def successor() -> Obj | None:
        ready = ready_pod(cluster)
        return ready if ready is not None and ready["metadata"]["name"] != old else None

    pod = wait_for("a new Pod to lead and be Ready", successor, SETTLE_SECONDS)
    assert "leading: holds Lease driftctl-system/driftctl-default" in log(cluster, pod)
    assert_a_hand_scale_is_put_back(cluster, pod)
