"""Drift made in the cluster is planned exactly (naming who made it) and restored by apply."""

from __future__ import annotations

import json

from tests.support.harness import Harness

APPS = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.27", 1)}


def converged(harness: Harness) -> Harness:
    harness.declare(APPS)
    first = harness.driftctl("apply")
    assert first.code == 0, first.err
    return harness


def deployment_spec(harness: Harness, name: str) -> dict[str, object]:
    deployment = harness.get("deployment", name)
    assert deployment is not None
    spec: dict[str, object] = deployment["spec"]
    return spec


def test_kubectl_scale_is_planned_naming_the_manager_and_restored(harness: Harness) -> None:
    converged(harness).kubectl("scale", "deployment/shop", "--replicas=5", "-n", harness.namespace)

    planned = harness.driftctl("plan")
    as_json = json.loads(harness.driftctl("plan", "-o", "json").out)
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert "~ Deployment/" in planned.out
    assert "spec.replicas: 5 -> 2 (changed by kubectl)" in planned.out
    [entry] = [o for o in as_json["objects"] if o["action"] == "update"]
    assert (entry["kind"], entry["name"], entry["managers"]) == ("Deployment", "shop", ["kubectl"])
    assert entry["patch"] == [{"op": "replace", "path": "/spec/replicas", "value": 2}]
    assert applied.code == 0, applied.err
    assert f"configured Deployment/{harness.namespace}/shop" in applied.out
    assert deployment_spec(harness, "shop")["replicas"] == 2
    assert harness.driftctl("plan").code == 0


def test_an_image_edited_by_another_manager_is_restored(harness: Harness) -> None:
    converged(harness).kubectl(
        "set", "image", "deployment/blog", "app=nginx:1.99", "-n", harness.namespace
    )

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert '"nginx:1.99" -> "nginx:1.27" (changed by kubectl-set)' in planned.out
    assert applied.code == 0, applied.err
    template = deployment_spec(harness, "blog")["template"]
    assert isinstance(template, dict)
    assert template["spec"]["containers"][0]["image"] == "nginx:1.27"


def test_a_deleted_deployment_is_created_again(harness: Harness) -> None:
    converged(harness).kubectl("delete", "deployment/shop", "-n", harness.namespace)

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert f"+ Deployment/{harness.namespace}/shop: create" in planned.out
    assert applied.code == 0, applied.err
    assert harness.names("deployments") == ["blog", "shop"]


def test_a_webapp_edited_in_the_cluster_is_restored_from_git(harness: Harness) -> None:
    converged(harness).kubectl(
        "patch",
        "webapp/shop",
        "-n",
        harness.namespace,
        "--type=merge",
        "-p",
        '{"spec": {"replicas": 7}}',
    )

    applied = harness.driftctl("apply")

    assert applied.code == 0, applied.err
    webapp = harness.get("webapp", "shop")
    assert webapp is not None
    assert webapp["spec"]["replicas"] == 2
    assert webapp["status"]["observedGeneration"] == webapp["metadata"]["generation"]


def test_a_field_a_controller_sets_is_left_to_its_manager(harness: Harness) -> None:
    converged(harness).kubectl(
        "annotate",
        "deployment/shop",
        "team=payments",
        "-n",
        harness.namespace,
        "--field-manager=ops-controller",
    )

    planned = harness.driftctl("plan")
    harness.driftctl("apply")

    assert planned.code == 0, planned.out
    deployment = harness.get("deployment", "shop")
    assert deployment is not None
    assert deployment["metadata"]["annotations"]["team"] == "payments"
