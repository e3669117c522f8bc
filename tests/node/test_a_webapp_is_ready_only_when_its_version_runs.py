"""Rollout truth with real Pods: a WebApp is Ready only when its declared version runs.

One node, the project's own images (tests/controlplane/testimages.py): a WebApp of two
replicas rolls out `localhost/hello:1`, then Git changes its image to one whose Pods can
never run, while the old commit stays the serving one:
- an image that cannot be pulled (every registry here is a dead loopback port),
- an image whose command exits 1 (a crash loop),
- any image while the node is cordoned (the new Pod is unschedulable).
Each gives `ready: false`, Ready=False and Stalled naming the Pod and its reason, long
before the Deployment's progress deadline (600 s); `kubectl wait --for=condition=Ready`
does not pass; a Warning Event says it; `apply --wait` exits 7. A fixing commit then rolls
out and gives Ready, exit 0, with the serving revision and the digest its Pods run.
`kubectl rollout undo` (which needs real ReplicaSets) is drift: Git's version rolls out again.

driftctl runs on the host as the CronJob's ServiceAccount (cronjob/'s RBAC, so listing the
ReplicaSets and Pods is proved allowed), against the node's control plane.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.controlplane import launcher, testimages
from tests.support.harness import Harness, Obj
from tests.support.node import NodeCluster

PROGRESS_DEADLINE = 600  # seconds: the Deployment default the Stalled verdict must beat
WAIT = "90"


@pytest.fixture(scope="module", autouse=True)
def crash_image(node_plane: launcher.ControlPlane) -> None:
    """The crash-looping image, imported beside the hello ones."""
    launcher.import_image(node_plane, testimages.crash_image())


@pytest.fixture
def harness(node_harness: Harness) -> Harness:
    """A namespace and a repository of one test, driftctl as the ServiceAccount
    (tests/support/node_fixtures.py)."""
    return node_harness


def status_of(harness: Harness) -> Obj:
    webapp = harness.get("webapp", "web") or {}
    status: Obj = webapp.get("status") or {}
    return status


def conditions(status: Obj) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in status["conditions"]}


def pods(harness: Harness) -> list[Obj]:
    listed: list[Obj] = json.loads(
        harness.kubectl("get", "pods", "-n", harness.namespace, "-o", "json")
    )["items"]
    return listed


def rolled_out_hello(harness: Harness, version: int) -> str:
    """Git declares `localhost/hello:<version>` (2 replicas); `apply --wait` rolls it out."""
    commit = harness.declare({"web": (testimages.hello_image_name(version), 2)}, f"hello {version}")
    ran = harness.driftctl("apply", "--wait", "--wait-timeout", WAIT, timeout=180)
    assert ran.code == 0, ran.out + ran.err
    assert (
        ran.out.splitlines()[-1] == "Rollouts: 1 complete, 0 stalled, 0 timed out (of 1 waited for)"
    )
    return commit


def assert_ready_serving(harness: Harness, commit: str, version: int) -> None:
    status = status_of(harness)
    assert status["ready"] is True, status
    assert conditions(status)["Ready"][:2] == ("True", "Available")
    assert (status["lastAppliedRevision"], status["servingRevision"]) == (commit, commit)
    running = {
        c["imageID"].rpartition("@")[2]
        for p in pods(harness)
        if not p["metadata"].get("deletionTimestamp")
        for c in p["status"].get("containerStatuses", [])
        if c.get("ready")
    }
    [image] = status["images"]
    assert image["image"] == testimages.hello_image_name(version)
    assert len(image["digests"]) == 1
    assert image["digests"][0].startswith("sha256:")
    assert set(image["digests"]) == running
    assert status["mixedDigests"] is False
    harness.kubectl(
        "wait", "webapp/web", "-n", harness.namespace, "--for=condition=Ready", "--timeout=5s"
    )


def assert_stalls_naming_the_pod(
    harness: Harness, image: str, reasons: set[str], served: str, *, old_pods_serve: bool = True
) -> None:
    """Git declares `image`; `apply --wait` exits 7 with the WebApp Stalled for one of
    `reasons`, named with the Pod, well before the progress deadline; the old commit is still
    the serving one, and, when the new Pods never start (`old_pods_serve`), old Pods serve."""
    harness.declare({"web": (image, 2)}, f"try {image}")
    started = time.monotonic()
    ran = harness.driftctl("apply", "--wait", "--wait-timeout", WAIT, timeout=180)
    took = time.monotonic() - started
    print(f"\n{image}: Stalled in {took:.0f} s")  # measured, never asserted

    assert ran.code == 7, ran.out + ran.err
    assert (
        ran.out.splitlines()[-1] == "Rollouts: 0 complete, 1 stalled, 0 timed out (of 1 waited for)"
    )
    status = status_of(harness)
    assert status["ready"] is False
    state = conditions(status)
    ready, stalled = state["Ready"], state["Stalled"]
    assert ready[0] == "False"
    assert stalled[0] == "True"
    assert stalled[1] in reasons, stalled
    new = [
        p["metadata"]["name"] for p in pods(harness) if p["spec"]["containers"][0]["image"] == image
    ]
    assert any(stalled[2].startswith(f"Pod {name}: {stalled[1]}") for name in new), stalled
    available = status["available_replicas"]
    assert f"stalled ({available} available): Pod " in ran.out
    if old_pods_serve:
        # New Pods that never start take no old Pod's place: available, yet not Ready.
        assert available >= 1
    assert status["servingRevision"] == served
    waited = harness.kubectl(
        "wait",
        "webapp/web",
        "-n",
        harness.namespace,
        "--for=condition=Ready",
        "--timeout=3s",
        check=False,
    )
    assert "condition met" not in waited
    warnings = [e for e in harness.events() if e["reason"] == "RolloutStalled"]
    assert warnings
    assert warnings[-1]["type"] == "Warning"
    assert stalled[1] in warnings[-1]["message"]


def test_an_unpullable_image_stalls_and_a_fixing_commit_rolls_out(harness: Harness) -> None:
    first = rolled_out_hello(harness, 1)
    assert_ready_serving(harness, first, 1)

    assert_stalls_naming_the_pod(
        harness, "localhost/missing:1", {"ErrImagePull", "ImagePullBackOff"}, first
    )

    fixed = rolled_out_hello(harness, 2)
    assert_ready_serving(harness, fixed, 2)


def test_a_crash_looping_image_stalls(harness: Harness) -> None:
    first = rolled_out_hello(harness, 1)

    # Each crash-looping Pod is up, ready and counted available for an instant (no probes),
    # and each such instant lets the Deployment controller take an old Pod away: both may be
    # gone by the verdict (seen on this node: 0 available). Not Ready either way.
    assert_stalls_naming_the_pod(
        harness, testimages.CRASH_IMAGE, {"CrashLoopBackOff"}, first, old_pods_serve=False
    )


def test_a_new_pod_no_node_accepts_stalls(harness: Harness, cluster: NodeCluster) -> None:
    first = rolled_out_hello(harness, 1)
    cluster.run("cordon", cluster.node.name)
    try:
        assert_stalls_naming_the_pod(
            harness, testimages.hello_image_name(2), {"Unschedulable"}, first
        )
    finally:
        cluster.run("uncordon", cluster.node.name)


def test_a_rollout_undo_is_drift_and_gits_version_rolls_out_again(harness: Harness) -> None:
    """`kubectl rollout undo` puts back an earlier ReplicaSet's template (as manager `kubectl`):
    drift, planned as such; apply rolls Git's version out again, and the next plan is empty."""
    rolled_out_hello(harness, 1)
    second = rolled_out_hello(harness, 2)
    harness.kubectl("rollout", "undo", "deployment/web", "-n", harness.namespace)

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply", "--wait", "--wait-timeout", WAIT, timeout=180)

    assert planned.code == 1, planned.out + planned.err
    assert planned.out.splitlines()[:2] == [
        f"~ Deployment/{harness.namespace}/web: update "
        "(differs from Git; changed in the cluster by kubectl)",
        '    spec.template.spec.containers[name=app].image: "localhost/hello:1" -> '
        '"localhost/hello:2" (changed by kubectl)',
    ]
    assert applied.code == 0, applied.out + applied.err
    assert_ready_serving(harness, second, 2)
    assert harness.driftctl("plan").code == 0
