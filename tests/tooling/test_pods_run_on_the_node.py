"""Deployments run on the real node, their Pods serve on the bridge, and nothing is pulled.

The Pods' page is fetched from the host at the Pod's own address, which routes through
the node's bridge (checked before any packet is sent). An image that was never imported
fails at once on the dead loopback mirror: no pull ever leaves the machine.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.controlplane.testimages import HELLO_PORT, hello_image_name, hello_page
from tests.support.node import NodeCluster, fetch_from_pod, wait_for

pytestmark = pytest.mark.node


@pytest.fixture
def namespace(cluster: NodeCluster) -> Iterator[str]:
    name = f"node-{secrets.token_hex(3)}"
    cluster.run("create", "namespace", name)
    yield name
    cluster.run("delete", "namespace", name, "--wait=false")


def hello_deployment(namespace: str, version: int, replicas: int = 2) -> dict[str, Any]:
    labels = {"app": "hello"}
    container = {
        "name": "hello",
        "image": hello_image_name(version),
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"containerPort": HELLO_PORT}],
        "readinessProbe": {"tcpSocket": {"port": HELLO_PORT}, "periodSeconds": 1},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "hello", "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [container],
                    "securityContext": {"runAsNonRoot": True},
                    "terminationGracePeriodSeconds": 1,
                },
            },
        },
    }


def serving_pods(cluster: NodeCluster, namespace: str) -> list[dict[str, Any]]:
    """Running Pods of the Deployment that are not being deleted."""
    pods = cluster.get("pods", "-n", namespace, "-l", "app=hello")["items"]
    return [
        pod
        for pod in pods
        if pod["status"].get("phase") == "Running" and "deletionTimestamp" not in pod["metadata"]
    ]


def pods_of_only(cluster: NodeCluster, namespace: str, version: int) -> list[dict[str, Any]]:
    """The serving Pods, once every one of them runs `hello:<version>` (else [])."""
    pods = serving_pods(cluster, namespace)
    images = {pod["spec"]["containers"][0]["image"] for pod in pods}
    return pods if images == {hello_image_name(version)} else []


def roll_out(cluster: NodeCluster, namespace: str, version: int) -> None:
    cluster.apply(hello_deployment(namespace, version))
    cluster.run("rollout", "status", "-n", namespace, "deployment/hello", "--timeout=90s")


def test_a_deployment_rolls_out_and_its_pods_serve_their_page_on_the_bridge(
    cluster: NodeCluster, namespace: str
) -> None:
    roll_out(cluster, namespace, 1)

    status = cluster.get("deployment/hello", "-n", namespace)["status"]
    pods = serving_pods(cluster, namespace)
    assert status["availableReplicas"] == 2
    assert {pod["spec"]["nodeName"] for pod in pods} == {cluster.node.name}
    assert [fetch_from_pod(pod["status"]["podIP"], HELLO_PORT) for pod in pods] == [
        hello_page(1)
    ] * 2


def test_a_new_image_replaces_every_pod_with_one_serving_the_new_version(
    cluster: NodeCluster, namespace: str
) -> None:
    roll_out(cluster, namespace, 1)
    roll_out(cluster, namespace, 2)

    pods = wait_for("only Pods of hello:2 left", lambda: pods_of_only(cluster, namespace, 2))

    assert len(pods) == 2
    assert {fetch_from_pod(pod["status"]["podIP"], HELLO_PORT) for pod in pods} == {hello_page(2)}


def pull_failure(cluster: NodeCluster, namespace: str, pod: str) -> str:
    events = cluster.get("events", "-n", namespace, f"--field-selector=involvedObject.name={pod}")
    failures = [
        event["message"]
        for event in events["items"]
        if event["reason"] == "Failed" and event["message"].startswith("Failed to pull image")
    ]
    return failures[0] if failures else ""


@pytest.mark.parametrize(
    "image",
    [
        pytest.param("nginx:1.27", id="a-docker-hub-name"),
        pytest.param("registry.example.com/team/app:1", id="any-other-registry"),
        pytest.param("localhost/hello:99", id="a-local-tag-never-imported"),
    ],
)
def test_an_image_that_was_not_imported_fails_at_once_on_the_loopback_mirror(
    cluster: NodeCluster, namespace: str, image: str
) -> None:
    cluster.apply(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "missing", "namespace": namespace},
            "spec": {
                "containers": [{"name": "app", "image": image, "imagePullPolicy": "IfNotPresent"}],
                "terminationGracePeriodSeconds": 1,
            },
        }
    )

    message = wait_for("a pull failure", lambda: pull_failure(cluster, namespace, "missing"))

    assert f"http://{cluster.node.dead_registry}/v2/" in message
    assert f"dial tcp {cluster.node.dead_registry}: connect: connection refused" in message
