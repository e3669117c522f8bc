"""`driftctl watch` keeps a WebApp's status current as its rollout moves, on the real API
server, with operator/'s RBAC; the rollout is written as its controllers would
(tests/support/rollouts.py: no node runs here).

The Deployment's status moving reconciles the WebApp (Reconciling, with the figures). A
new Pod that cannot pull its image changes nothing the watch sees, yet the WebApp turns
Stalled, naming it: a rollout in progress is looked at again a few seconds later. When
the image can be pulled after all and the rollout completes, the WebApp turns Ready.
`/metrics` counts the rollouts seen to end.
"""

from __future__ import annotations

from pathlib import Path

from kubernetes import client

from tests.support.harness import Harness, eventually
from tests.support.rollouts import (
    new_replicaset,
    pod_became,
    pod_of,
    pull_failing_status,
    ready_status,
    rolled_out,
)
from tests.support.watching import Watching, start

WATCH_ACCOUNT = "driftctl-watch-rollouts"
DIGEST = "sha256:" + "7" * 64


def ready_reason(harness: Harness) -> str:
    """The reason of WebApp shop's Ready condition ("" before it has one)."""
    status = (harness.get("webapp", "shop") or {}).get("status") or {}
    ready = [c for c in status.get("conditions") or [] if c["type"] == "Ready"]
    return str(ready[0]["reason"]) if ready else ""


def test_the_status_follows_the_rollout_to_a_stuck_pod_and_to_ready(
    harness: Harness,
    kube_client: client.ApiClient,
    watch_kubeconfig: Path,
    watching: list[Watching],
) -> None:
    harness.declare({"shop": ("nginx:1.27", 2)})
    process = start(harness, watch_kubeconfig, watching)
    assert eventually(process.ready, 60), process.log()
    assert eventually(lambda: ready_reason(harness) == "DeploymentNotObserved", 30)

    deployment = rolled_out(kube_client, harness.namespace, "shop", updated=1)
    assert eventually(lambda: ready_reason(harness) == "RolloutInProgress", 30), process.log()
    replicaset = new_replicaset(kube_client, deployment)
    pod_of(kube_client, replicaset, "w1", pull_failing_status("nginx:1.27"))
    assert eventually(lambda: ready_reason(harness) == "ImagePullBackOff", 30), process.log()
    stalled = process.metric("driftctl_watch_rollouts_total")
    pod_became(kube_client, replicaset, "w1", ready_status(DIGEST))
    pod_of(kube_client, replicaset, "w2", ready_status(DIGEST))
    rolled_out(kube_client, harness.namespace, "shop")

    assert eventually(lambda: ready_reason(harness) == "Available", 30), process.log()
    status = (harness.get("webapp", "shop") or {})["status"]
    assert status["ready"] is True
    assert status["servingRevision"] == status["lastAppliedRevision"]
    assert status["images"] == [{"image": "nginx:1.27", "digests": [DIGEST]}]
    assert stalled == 1  # the stall; then the completion
    assert eventually(lambda: process.metric("driftctl_watch_rollouts_total") == 2, 10)
