"""The control plane does for real what driftctl relies on.

Server-side apply and managedFields, owner references and garbage collection by the real
kube-controller-manager, finalizers holding a deleted object, and the status subresource.
If one of these fails, the rest of the integration suite would test a fiction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, cast

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from driftctl import conventions as c

pytestmark = pytest.mark.usefixtures("crd_installed")

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
Obj = dict[str, Any]


def webapp(name: str, namespace: str, **spec: Any) -> Obj:
    return {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"image": "nginx:1.27", "replicas": 2, **spec},
    }


def apply_webapp(api: client.ApiClient, body: Obj, manager: str = c.FIELD_MANAGER) -> Obj:
    """SSA a WebApp; read the raw answer, since the client returns None for a 201."""
    answer = client.CustomObjectsApi(api).patch_namespaced_custom_object(
        c.GROUP,
        c.VERSION,
        body["metadata"]["namespace"],
        c.PLURAL,
        body["metadata"]["name"],
        body,
        field_manager=manager,
        force=True,
        _content_type=APPLY,
        _preload_content=False,
    )
    return raw(answer)


def raw(answer: object) -> Obj:
    """The JSON body of an answer read with _preload_content=False."""
    result: Obj = json.loads(cast(Any, answer).data)
    return result


def get_webapp(api: client.ApiClient, namespace: str, name: str) -> Obj:
    got = client.CustomObjectsApi(api).get_namespaced_custom_object(
        c.GROUP, c.VERSION, namespace, c.PLURAL, name
    )
    return cast(Obj, got)


def deployment_for(owner: Obj) -> Obj:
    meta = owner["metadata"]
    labels = {c.NAME_LABEL: meta["name"]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": meta["name"],
            "namespace": meta["namespace"],
            "ownerReferences": [
                {
                    "apiVersion": c.API_VERSION,
                    "kind": c.KIND,
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
            },
        },
    }


def apply_deployment(api: client.ApiClient, body: Obj) -> Obj:
    answer = client.AppsV1Api(api).patch_namespaced_deployment(
        body["metadata"]["name"],
        body["metadata"]["namespace"],
        body,
        field_manager=c.FIELD_MANAGER,
        force=True,
        _content_type=APPLY,
        _preload_content=False,
    )
    return raw(answer)


def eventually(check: Callable[[], bool], timeout: float = 90.0) -> bool:
    """Poll until `check` holds; the controllers act asynchronously."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return False


def managers(obj: Obj) -> dict[str, str]:
    return {entry["manager"]: entry["operation"] for entry in obj["metadata"]["managedFields"]}


def test_server_side_apply_records_driftctl_as_field_manager(
    kube_client: client.ApiClient, namespace: str
) -> None:
    applied = apply_webapp(kube_client, webapp("shop", namespace))

    assert managers(applied) == {"driftctl": "Apply"}
    owned = applied["metadata"]["managedFields"][0]["fieldsV1"]
    assert set(owned["f:spec"]) == {"f:image", "f:replicas"}


def test_a_second_identical_apply_changes_nothing(
    kube_client: client.ApiClient, namespace: str
) -> None:
    first = apply_webapp(kube_client, webapp("shop", namespace))
    second = apply_webapp(kube_client, webapp("shop", namespace))

    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_schema_rejects_negative_replicas(kube_client: client.ApiClient, namespace: str) -> None:
    with pytest.raises(ApiException) as refused:
        apply_webapp(kube_client, webapp("shop", namespace, replicas=-1))

    assert refused.value.status == 422


def test_deployment_applied_with_controller_owner_reference(
    kube_client: client.ApiClient, namespace: str
) -> None:
    owner = apply_webapp(kube_client, webapp("shop", namespace))

    deployment = apply_deployment(kube_client, deployment_for(owner))

    [reference] = deployment["metadata"]["ownerReferences"]
    assert reference["uid"] == owner["metadata"]["uid"]
    assert reference["controller"] is True
    assert managers(deployment) == {"driftctl": "Apply"}


def test_finalizer_keeps_deleted_webapp_terminating_until_removed(
    kube_client: client.ApiClient, namespace: str
) -> None:
    body = webapp("shop", namespace)
    body["metadata"]["finalizers"] = [c.FINALIZER]
    apply_webapp(kube_client, body)
    objects = client.CustomObjectsApi(kube_client)

    objects.delete_namespaced_custom_object(c.GROUP, c.VERSION, namespace, c.PLURAL, "shop")
    terminating = get_webapp(kube_client, namespace, "shop")
    assert terminating["metadata"]["deletionTimestamp"]
    assert terminating["metadata"]["finalizers"] == [c.FINALIZER]

    objects.patch_namespaced_custom_object(
        c.GROUP,
        c.VERSION,
        namespace,
        c.PLURAL,
        "shop",
        [
            {"op": "test", "path": "/metadata/finalizers/0", "value": c.FINALIZER},
            {"op": "remove", "path": "/metadata/finalizers/0"},
        ],
        _content_type="application/json-patch+json",
    )
    with pytest.raises(ApiException) as gone:
        get_webapp(kube_client, namespace, "shop")
    assert gone.value.status == 404


def test_deleting_the_owner_garbage_collects_its_deployment(
    kube_client: client.ApiClient, namespace: str
) -> None:
    owner = apply_webapp(kube_client, webapp("shop", namespace))
    apply_deployment(kube_client, deployment_for(owner))
    apps = client.AppsV1Api(kube_client)

    client.CustomObjectsApi(kube_client).delete_namespaced_custom_object(
        c.GROUP, c.VERSION, namespace, c.PLURAL, "shop"
    )

    def none_left() -> bool:
        return not apps.list_namespaced_deployment(namespace).items

    assert eventually(none_left)


def test_status_subresource_is_written_apart_from_spec(
    kube_client: client.ApiClient, namespace: str
) -> None:
    created = apply_webapp(kube_client, webapp("shop", namespace))
    objects = client.CustomObjectsApi(kube_client)

    objects.patch_namespaced_custom_object_status(
        c.GROUP,
        c.VERSION,
        namespace,
        c.PLURAL,
        "shop",
        {"status": {"available_replicas": 2, "ready": True}, "spec": {"replicas": 9}},
        _content_type=MERGE,
    )
    objects.patch_namespaced_custom_object(
        c.GROUP,
        c.VERSION,
        namespace,
        c.PLURAL,
        "shop",
        {"status": {"ready": False}},
        _content_type=MERGE,
    )

    after = get_webapp(kube_client, namespace, "shop")
    assert after["status"] == {"available_replicas": 2, "ready": True}
    assert after["spec"]["replicas"] == 2
    assert after["metadata"]["generation"] == created["metadata"]["generation"]
