"""`apply --wait` on the real API server, the rollout written as its controllers would.

No node runs here (tests/node has the real Pods): the test writes what the Deployment
controller and a kubelet would, while driftctl waits (tests/support/rollouts.py).
- a rollout that completes while driftctl waits: exit 0, the status Ready with the serving
  revision and the digest its ready Pod runs, `kubectl wait --for=condition=Ready` passes;
- a new Pod whose image cannot be pulled: Stalled at once, named in the status, the
  run's output, its JSON log and a Warning Event; exit 7; `kubectl wait` does not pass;
- a Deployment the controller never gets to: --wait-timeout ends the wait, exit 7.
"""

from __future__ import annotations

import json
import subprocess

from kubernetes import client

from tests.support.harness import Harness, eventually
from tests.support.rollouts import (
    new_replicaset,
    pod_of,
    pull_failing_status,
    ready_status,
    rolled_out,
    served,
)

DIGEST = "sha256:" + "9" * 64


def applied(harness: Harness, image: str) -> None:
    """Wait until driftctl applied Deployment shop with `image` (its generation says
    nothing: the controller's revision annotation moves it too)."""

    def found() -> bool:
        deployment = harness.get("deployment", "shop") or {"spec": {}}
        containers = deployment["spec"].get("template", {}).get("spec", {}).get("containers")
        return bool(containers) and containers[0]["image"] == image

    assert eventually(found, 60), f"Deployment shop never ran {image}"


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def test_a_rollout_that_completes_while_waiting_exits_0_ready_with_what_runs(
    harness: Harness, kube_client: client.ApiClient
) -> None:
    commit = harness.declare({"shop": ("nginx:1.27", 1)})
    waiting = harness.start("apply", "--wait", "--wait-timeout", "60")
    applied(harness, "nginx:1.27")
    deployment = rolled_out(kube_client, harness.namespace, "shop")
    pod_of(
        kube_client,
        new_replicaset(kube_client, deployment),
        "a1",
        ready_status(f"docker.io/library/nginx@{DIGEST}"),
    )

    code, out, err = finish(waiting)

    assert code == 0, out + err
    lines = out.splitlines()
    assert f"status WebApp/{harness.namespace}/shop: ready (1 available)" in lines
    assert lines[-1] == "Rollouts: 1 complete, 0 stalled, 0 timed out (of 1 waited for)"
    status = (harness.get("webapp", "shop") or {})["status"]
    assert (status["ready"], status["servingRevision"]) == (True, commit)
    assert status["images"] == [{"image": "nginx:1.27", "digests": [DIGEST]}]
    assert status["mixedDigests"] is False
    harness.kubectl(
        "wait", "webapp/shop", "-n", harness.namespace, "--for=condition=Ready", "--timeout=5s"
    )


def test_a_new_pod_that_cannot_pull_its_image_stalls_the_wait_with_exit_7(
    harness: Harness, kube_client: client.ApiClient
) -> None:
    first = harness.declare({"shop": ("nginx:1.27", 2)})
    assert harness.driftctl("apply").code == 0
    served(kube_client, harness.namespace, "shop")
    assert harness.driftctl("apply").code == 0  # Ready, serving the first commit
    harness.declare({"shop": ("localhost/missing:1", 2)})
    waiting = harness.start("apply", "--wait", "--wait-timeout", "60", "--log-format", "json")
    applied(harness, "localhost/missing:1")
    deployment = rolled_out(kube_client, harness.namespace, "shop", revision=2, updated=1)
    replicaset = new_replicaset(kube_client, deployment)
    pod_of(kube_client, replicaset, "b1", pull_failing_status("localhost/missing:1"))

    code, _, err = finish(waiting)

    assert code == 7, err
    logged = [json.loads(line) for line in err.splitlines()]
    pod = f"{replicaset['metadata']['name']}-b1"
    why = f'Pod {pod}: ImagePullBackOff: Back-off pulling image "localhost/missing:1"'
    [stalled] = [line for line in logged if line["event"] == "status" and not line["ready"]][-1:]
    assert (stalled["level"], stalled["rollout"], stalled["ready_reason"]) == (
        "warning",
        "stalled",
        "ImagePullBackOff",
    )
    assert stalled["ready_message"] == (
        f"{why} (rollout: 1/2 updated, 2 available, 2 old replicas left)"
    )
    assert stalled["message"].startswith(f"status WebApp/{harness.namespace}/shop: stalled (2 ")
    summary = logged[-1]
    assert (summary["event"], summary["exit_code"]) == ("summary", 7)
    assert summary["rollouts"]["stalled"] == 1
    status = (harness.get("webapp", "shop") or {})["status"]
    assert status["ready"] is False
    assert status["available_replicas"] == 2  # the old Pods still serve: not a reason to be Ready
    assert status["servingRevision"] == first
    assert [(c["type"], c["reason"]) for c in status["conditions"]] == [
        ("Ready", "ImagePullBackOff"),
        ("Stalled", "ImagePullBackOff"),
    ]
    [event] = [e for e in harness.events() if e["reason"] == "RolloutStalled"]
    assert event["type"] == "Warning"
    assert why in event["message"]
    waited = harness.kubectl(
        "wait", "webapp/shop", "-n", harness.namespace, "--for=condition=Ready",
        "--timeout=2s", check=False,
    )  # fmt: skip
    assert "condition met" not in waited


def test_a_rollout_that_never_starts_times_out_with_exit_7(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})

    ran = harness.driftctl("apply", "--wait", "--wait-timeout", "3")

    assert ran.code == 7, ran.out + ran.err
    lines = ran.out.splitlines()
    assert lines[-1] == "Rollouts: 0 complete, 0 stalled, 1 timed out (of 1 waited for)"
    status = (harness.get("webapp", "shop") or {})["status"]
    assert [(c["type"], c["reason"]) for c in status["conditions"]] == [
        ("Ready", "DeploymentNotObserved"),
        ("Reconciling", "DeploymentNotObserved"),
    ]
