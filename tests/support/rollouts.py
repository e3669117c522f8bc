"""What the Deployment controller and a kubelet write during a rollout, for a control plane
that has neither (the integration tests' one creates no ReplicaSet and runs no Pod).

Written through the API as those controllers write it: the revision annotation as
`kube-controller-manager` (a controller's field, never drift), the Deployment's status
through its subresource, a ReplicaSet controlled by the Deployment, and Pods controlled by
the ReplicaSet whose status says what a kubelet would say. The node tests see the real ones.
"""

from __future__ import annotations

from typing import Any, cast

from kubernetes import client

from driftctl.core.planning.rollout import DEPLOYMENT_REVISION, TEMPLATE_HASH_LABEL

Obj = dict[str, Any]
CONTROLLER = "kube-controller-manager"
HASH = "5d8f7c9b4"


def rolled_out(
    api: client.ApiClient,
    namespace: str,
    name: str,
    *,
    revision: int = 1,
    updated: int | None = None,
) -> Obj:
    """The Deployment at `revision`, observed, `updated` of its replicas (default: all) up
    and available, the others still old ones (serving); returns it."""
    apps = client.AppsV1Api(api)
    annotate = {"metadata": {"annotations": {DEPLOYMENT_REVISION: str(revision)}}}
    patched = _plain(
        api, apps.patch_namespaced_deployment(name, namespace, annotate, field_manager=CONTROLLER)
    )
    replicas = int(patched["spec"]["replicas"])
    new = replicas if updated is None else updated
    status = {
        "observedGeneration": patched["metadata"]["generation"],
        "replicas": replicas + new if new < replicas else replicas,  # the old ones serve
        "updatedReplicas": new,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
    }
    apps.patch_namespaced_deployment_status(
        name, namespace, {"status": status}, field_manager=CONTROLLER
    )
    return _plain(api, apps.read_namespaced_deployment(name, namespace))


def served(api: client.ApiClient, namespace: str, name: str) -> Obj:
    """The Deployment rolled out (`rolled_out`), with its new ReplicaSet and as many of its
    Pods as it wants, ready for long: a completion one look confirms. Returns the
    ReplicaSet."""
    deployment = rolled_out(api, namespace, name)
    replicaset = new_replicaset(api, deployment)
    for n in range(int(deployment["spec"]["replicas"])):
        pod_of(api, replicaset, f"s{n}", ready_status(f"docker.io/library/nginx@{DIGEST}"))
    return replicaset


DIGEST = "sha256:" + "7" * 64  # the image a served Deployment's Pods run


def new_replicaset(api: client.ApiClient, deployment: Obj) -> Obj:
    """The ReplicaSet of the Deployment's current revision, controlled by it (no Pods of its
    own: nothing here runs the ReplicaSet controller)."""
    meta, spec = deployment["metadata"], deployment["spec"]
    revision = meta["annotations"][DEPLOYMENT_REVISION]
    labels = {**spec["selector"]["matchLabels"], TEMPLATE_HASH_LABEL: f"{HASH}{revision}"}
    body: Any = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": f"{meta['name']}-{HASH}{revision}",
            "namespace": meta["namespace"],
            "labels": labels,
            "annotations": {DEPLOYMENT_REVISION: revision},
            "ownerReferences": [_controller("apps/v1", "Deployment", meta)],
        },
        "spec": {
            "replicas": spec["replicas"],
            "selector": {"matchLabels": labels},
            "template": {**spec["template"], "metadata": {"labels": labels}},
        },
    }
    created = client.AppsV1Api(api).create_namespaced_replica_set(meta["namespace"], body)
    return _plain(api, created)


def pod_of(
    api: client.ApiClient, replicaset: Obj, suffix: str, status: Obj, image: str = "nginx:1.27"
) -> None:
    """A Pod of `replicaset`, with the status a kubelet would write (`status`)."""
    meta = replicaset["metadata"]
    core = client.CoreV1Api(api)
    name = f"{meta['name']}-{suffix}"
    body: Any = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": meta["namespace"],
            "labels": replicaset["spec"]["selector"]["matchLabels"],
            "ownerReferences": [_controller("apps/v1", "ReplicaSet", meta)],
        },
        "spec": {"containers": [{"name": "app", "image": image}]},
    }
    core.create_namespaced_pod(meta["namespace"], body)
    core.patch_namespaced_pod_status(name, meta["namespace"], {"status": status})


def pod_became(api: client.ApiClient, replicaset: Obj, suffix: str, status: Obj) -> None:
    """The kubelet writes a new status for a Pod of `replicaset` (pod_of's `suffix`)."""
    meta = replicaset["metadata"]
    name = f"{meta['name']}-{suffix}"
    client.CoreV1Api(api).patch_namespaced_pod_status(name, meta["namespace"], {"status": status})


READY_SINCE = "2026-01-01T00:00:00Z"  # long before any test runs: ready without a break


def ready_status(image_id: str, since: str = READY_SINCE) -> Obj:
    """A kubelet's status of a running, ready Pod whose container runs `image_id`, ready
    since `since` (the Ready condition's lastTransitionTime, as a kubelet writes it)."""
    return {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": since}],
        "containerStatuses": [
            {
                "name": "app",
                "image": "nginx:1.27",
                "imageID": image_id,
                "ready": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": "2026-12-02T09:00:00Z"}},
            }
        ],
    }


def pull_failing_status(image: str) -> Obj:
    """A kubelet's status of a Pod whose image cannot be pulled."""
    return {
        "phase": "Pending",
        "containerStatuses": [
            {
                "name": "app",
                "image": image,
                "imageID": "",
                "ready": False,
                "restartCount": 0,
                "state": {
                    "waiting": {
                        "reason": "ImagePullBackOff",
                        "message": f'Back-off pulling image "{image}"',
                    }
                },
            }
        ],
    }


def _plain(api: client.ApiClient, model: object) -> Obj:
    """A typed model of the client as the API's plain JSON."""
    return cast(Obj, api.sanitize_for_serialization(model))  # type: ignore[no-untyped-call]


def _controller(api_version: str, kind: str, meta: Obj) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
