"""apply makes the cluster equal to Git, and a second apply right after writes nothing."""

from __future__ import annotations

import json

from driftctl import conventions as c
from tests.support.harness import Harness


def test_apply_creates_webapps_with_their_deployments_and_status(harness: Harness) -> None:
    commit = harness.declare({"shop": ("nginx:1.27", 2), "blog": ("nginx:1.28", 1)})

    ran = harness.driftctl("apply")

    assert ran.code == 0, ran.err
    assert (
        ran.out.splitlines()[-1]
        == "Apply: 4 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"
    )
    shop = harness.get("webapp", "shop")
    assert shop is not None
    meta = shop["metadata"]
    assert meta["finalizers"] == [c.FINALIZER]
    assert meta["labels"][c.INSTANCE_LABEL] == harness.instance
    assert meta["labels"][c.MANAGED_BY_LABEL] == c.MANAGED_BY_VALUE
    assert meta["annotations"][c.REVISION_ANNOTATION] == commit
    assert meta["annotations"][c.SOURCE_ANNOTATION] == f"{harness.repo.path}#apps"
    status = shop["status"]
    assert (status["observedGeneration"], status["lastAppliedRevision"]) == (1, commit)
    assert (status["available_replicas"], status["ready"]) == (0, False)
    assert {cond["type"] for cond in status["conditions"]} >= {"Ready"}
    deployment = harness.get("deployment", "shop")
    assert deployment is not None
    [owner] = deployment["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["uid"], owner["controller"]) == ("WebApp", meta["uid"], True)
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"


def test_second_apply_writes_nothing(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 2), "blog": ("nginx:1.28", 1)})
    assert harness.driftctl("apply").code == 0
    versions, events = harness.versions(), len(harness.events())

    again = harness.driftctl("apply")
    planned = harness.driftctl("plan")

    assert again.code == 0, again.err
    assert (
        again.out.strip()
        == "Apply: 0 created, 0 configured, 0 deleted, 4 unchanged, 0 skipped, 0 failed"
    )
    assert harness.versions() == versions
    assert len(harness.events()) == events
    assert (planned.code, planned.out.strip()) == (
        0,
        "Plan: 0 to create, 0 to update, 0 to prune, 4 unchanged",
    )


def test_a_new_commit_that_changes_no_webapp_rewrites_nothing(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 2)})
    assert harness.driftctl("apply").code == 0
    versions = harness.versions()
    harness.repo.write({"README.md": "docs only\n"})
    harness.repo.commit("docs")

    again = harness.driftctl("apply")

    assert again.code == 0, again.err
    assert harness.versions() == versions


def test_the_webapp_status_follows_its_deployment(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 2)})
    assert harness.driftctl("apply").code == 0
    deployment = harness.get("deployment", "shop")
    assert deployment is not None
    # No kubelet runs here: write what the Deployment controller writes once pods are up.
    available = {
        "observedGeneration": deployment["metadata"]["generation"],
        "replicas": 2,
        "updatedReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
    }
    harness.kubectl(
        "patch",
        "deployment/shop",
        "-n",
        harness.namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": available}),
    )

    ran = harness.driftctl("apply")
    waited = harness.kubectl(
        "wait", "webapp/shop", "-n", harness.namespace, "--for=condition=Ready", "--timeout=5s"
    )
    again = harness.driftctl("apply")

    assert ran.code == 0, ran.err
    assert f"status WebApp/{harness.namespace}/shop: ready (2 available)" in ran.out.splitlines()
    shop = harness.get("webapp", "shop")
    assert shop is not None
    assert (shop["status"]["available_replicas"], shop["status"]["ready"]) == (2, True)
    [ready] = [cond for cond in shop["status"]["conditions"] if cond["type"] == "Ready"]
    assert ready["status"] == "True"
    assert "condition met" in waited
    assert again.out.strip() == (
        "Apply: 0 created, 0 configured, 0 deleted, 2 unchanged, 0 skipped, 0 failed"
    )
