"""build_deployment gives the Deployment DESIGN.md section 3 describes, and nothing else."""

from __future__ import annotations

from typing import Any

from driftctl.core.planning.manifests import build_deployment
from driftctl.core.source.model import WebApp, WebAppSpec

UID = "0b7e4b1e-1111-4c7a-9f00-5e2a3c4d5e6f"


def deployment(**labels: str) -> dict[str, Any]:
    app = WebApp("web", "shop", WebAppSpec("nginx:1.27", 3), labels=labels)
    return build_deployment(app, "blue", UID)


def test_same_name_and_namespace_as_the_webapp() -> None:
    built = deployment()
    assert built["apiVersion"] == "apps/v1"
    assert built["kind"] == "Deployment"
    assert (built["metadata"]["namespace"], built["metadata"]["name"]) == ("shop", "web")


def test_carries_name_managed_by_and_instance_labels() -> None:
    labels = deployment()["metadata"]["labels"]
    assert labels["app.kubernetes.io/name"] == "web"
    assert labels["app.kubernetes.io/managed-by"] == "driftctl"
    assert labels["driftctl.example.com/instance"] == "blue"


def test_selects_pods_by_name_and_instance_and_labels_its_pods_alike() -> None:
    spec = deployment()["spec"]
    selector = {"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "web"}
    assert spec["selector"] == {"matchLabels": selector}
    assert spec["template"]["metadata"]["labels"] == selector


def test_runs_one_container_named_app_with_the_image_and_replicas() -> None:
    spec = deployment()["spec"]
    assert spec["replicas"] == 3
    assert spec["template"]["spec"]["containers"] == [{"name": "app", "image": "nginx:1.27"}]


def test_is_owned_by_the_webapp_as_its_controller() -> None:
    owners = deployment()["metadata"]["ownerReferences"]
    assert owners == [
        {
            "apiVersion": "example.com/v1",
            "kind": "WebApp",
            "name": "web",
            "uid": UID,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def test_user_labels_are_kept_but_never_override_driftctl_labels() -> None:
    labels = deployment(team="payments", **{"app.kubernetes.io/managed-by": "helm"})["metadata"][
        "labels"
    ]
    assert labels["team"] == "payments"
    assert labels["app.kubernetes.io/managed-by"] == "driftctl"


def test_is_a_pure_function_of_its_inputs() -> None:
    assert deployment() == deployment()
    assert deployment() is not deployment()
