"""WebApps removed from Git, or deleted by a person, are cleaned up through the finalizer."""

from __future__ import annotations

import json
from pathlib import Path

from driftctl import conventions as c
from tests.support.harness import Harness

APPS = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.27", 1), "api": ("nginx:1.27", 1)}


def converged(harness: Harness) -> Harness:
    harness.declare(APPS)
    first = harness.driftctl("apply")
    assert first.code == 0, first.err
    return harness


def test_removal_from_git_deletes_the_webapp_and_its_deployment(harness: Harness) -> None:
    converged(harness).declare({k: v for k, v in APPS.items() if k != "blog"}, "drop blog")

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert f"- WebApp/{harness.namespace}/blog: prune (not declared in Git)" in planned.out
    assert applied.code == 0, applied.err
    assert f"deleted WebApp/{harness.namespace}/blog" in applied.out
    assert harness.names("webapps") == ["api", "shop"]
    assert harness.names("deployments") == ["api", "shop"]
    # One Event for the whole removal: the WebApp pruned, its Deployment deleted.
    about_blog = [e for e in harness.events() if e["involvedObject"]["name"] == "blog"]
    assert sorted(e["reason"] for e in about_blog) == ["Created", "Pruned"]
    [pruned] = [e for e in about_blog if e["reason"] == "Pruned"]
    assert pruned["message"] == (
        f"WebApp/{harness.namespace}/blog pruned by driftctl (not declared in Git), "
        f"Deployment/{harness.namespace}/blog deleted"
    )


def test_a_webapp_deleted_by_a_person_is_cleaned_up_and_created_again(harness: Harness) -> None:
    before = converged(harness).get("webapp", "shop")
    assert before is not None
    harness.kubectl("delete", "webapp/shop", "-n", harness.namespace, "--wait=false")
    terminating = harness.get("webapp", "shop")
    assert terminating is not None
    assert terminating["metadata"]["deletionTimestamp"]

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert f"- WebApp/{harness.namespace}/shop: cleanup" in planned.out
    assert f"+ WebApp/{harness.namespace}/shop: create" in planned.out
    assert applied.code == 0, applied.err
    assert applied.out.splitlines()[-1] == (
        "Apply: 2 created, 0 configured, 1 deleted, 4 unchanged, 0 skipped, 0 failed"
    )
    after = harness.get("webapp", "shop")
    assert after is not None
    assert after["metadata"]["uid"] != before["metadata"]["uid"]
    assert "deletionTimestamp" not in after["metadata"]
    deployment = harness.get("deployment", "shop")
    assert deployment is not None
    assert deployment["metadata"]["ownerReferences"][0]["uid"] == after["metadata"]["uid"]


def test_failed_cleanup_keeps_the_finalizer_and_a_later_run_finishes(
    harness: Harness, no_delete_kubeconfig: Path
) -> None:
    converged(harness).declare({k: v for k, v in APPS.items() if k != "api"}, "drop api")

    denied = harness.driftctl("apply", kubeconfig=no_delete_kubeconfig)

    assert denied.code == 5, denied.out + denied.err
    assert f"failed WebApp/{harness.namespace}/api: cleanup:" in denied.out
    assert "forbidden" in denied.out
    stuck = harness.get("webapp", "api")
    assert stuck is not None
    assert stuck["metadata"]["finalizers"] == [c.FINALIZER]
    assert stuck["metadata"]["deletionTimestamp"]
    warnings = [e for e in harness.events() if e["type"] == "Warning"]
    assert any(e["reason"] == "CleanupFailed" for e in warnings)

    finished = harness.driftctl("plan"), harness.driftctl("apply")

    assert f"- WebApp/{harness.namespace}/api: cleanup" in finished[0].out
    assert finished[1].code == 0, finished[1].err
    assert harness.names("webapps") == ["blog", "shop"]
    assert harness.names("deployments") == ["blog", "shop"]


def test_plan_json_lists_a_prune_with_what_cleanup_deletes(harness: Harness) -> None:
    converged(harness).declare({k: v for k, v in APPS.items() if k != "api"}, "drop api")

    planned = json.loads(harness.driftctl("plan", "-o", "json").out)

    [prune] = [o for o in planned["objects"] if o["action"] == "prune"]
    assert (prune["kind"], prune["name"]) == ("WebApp", "api")
