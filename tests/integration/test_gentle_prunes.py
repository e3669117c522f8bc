"""Prune policies on the real control plane (garbage collector included), for a WebApp
removed from Git; its policy is the one Git last declared for it (recorded on the live
WebApp by driftctl's own apply):

- `orphan`: the WebApp goes, its Deployment stays, released (no ownerReference, none of
  this instance's labels): no later run touches it or reports it, conflict included;
- `confirm`: its removal is recorded and it waits; an approval naming another uid or
  another revision is ignored; the right one prunes it. Every apply says it is waiting,
  with the command that approves it, and counts it in its summary (text, JSON, JSON log):
  it printed `configured` and counted nothing (issue 34);
- `quarantine`: scaled to zero, it waits its grace period (on the real clock, a short
  one), then is pruned; an entry put back in Git in time comes back with its replicas;
- `--prune-propagation foreground`: the Deployment goes only after what it owns (a
  dependent kept by a test finalizer holds it in the cluster's foregroundDeletion, and the
  WebApp with it); released, the same run ends the prune.
"""

from __future__ import annotations

import json
import time
from typing import Any

from driftctl import conventions as c
from tests.support.drift_cases import annotate, removed_with_its_policy, shop_and_blog
from tests.support.harness import Harness, eventually

GRACE = 2  # seconds: a quarantine's grace on the real clock, waited out in full
LONG_GRACE = ("--quarantine-grace", "1h")  # a grace no loaded machine runs past
KEEP = "example.com/kept-by-the-test"  # a finalizer only this test removes


def deployment(harness: Harness) -> dict[str, Any]:
    return harness.get("deployment", "shop") or {}


def test_orphan_leaves_a_deployment_no_later_run_touches_or_reports(harness: Harness) -> None:
    removed_with_its_policy(harness, "orphan")

    orphaned = harness.driftctl("apply")
    kept = harness.raw("deployment", "shop") or {}
    later = harness.driftctl("plan")
    harness.declare_text(shop_and_blog("nginx:1.27", {}).replace("shop", "cart"))
    beside = harness.driftctl("apply")

    webapp = f"WebApp/{harness.namespace}/shop"
    assert orphaned.code == 0, orphaned.err
    assert orphaned.out.startswith(f"orphaned {webapp}: not declared in Git; deleted, keeping ")
    assert harness.get("webapp", "shop") is None
    meta = kept["metadata"]
    assert meta.get("ownerReferences", []) == []
    assert c.INSTANCE_LABEL not in meta["labels"]
    assert c.MANAGED_BY_LABEL not in meta["labels"]
    assert kept["spec"]["replicas"] == 2
    assert later.code == 0, later.out
    assert "shop" not in later.out + beside.out
    assert beside.code == 0, beside.err
    assert (harness.raw("deployment", "shop") or {})["metadata"]["resourceVersion"] == meta[
        "resourceVersion"
    ]


def test_confirm_waits_ignores_another_approval_and_prunes_with_the_right_one(
    harness: Harness,
) -> None:
    removal = removed_with_its_policy(harness, "confirm")

    recorded = harness.driftctl("apply")
    live = harness.get("webapp", "shop") or {}
    uid, revision = (
        live["metadata"]["uid"],
        live["metadata"]["annotations"][c.REMOVED_IN_ANNOTATION],
    )
    waiting = harness.driftctl("plan")
    ignored = []
    for other in (f"0000-not-its-uid@{revision}", f"{uid}@{'0' * 40}"):
        annotate(harness, "webapp/shop", f"{c.APPROVE_PRUNE_ANNOTATION}={other}")
        ignored.append(harness.driftctl("apply"))
    still = harness.get("deployment", "shop")
    annotate(harness, "webapp/shop", f"{c.APPROVE_PRUNE_ANNOTATION}={uid}@{revision[:12]}")
    approved = harness.driftctl("apply")

    webapp = f"WebApp/{harness.namespace}/shop"
    command = f"kubectl annotate webapp/shop -n {harness.namespace} "
    command += f"{c.APPROVE_PRUNE_ANNOTATION}={uid}@{revision}"
    assert recorded.code == 0, recorded.err
    assert f"waiting {webapp}: " in recorded.out
    assert revision == removal
    assert command in waiting.out
    for run in ignored:
        assert run.code == 0, run.err
        assert "names another object or another removal: ignored" in run.out
    assert still is not None
    assert approved.code == 0, approved.err
    assert f"deleted {webapp}: approved by {c.APPROVE_PRUNE_ANNOTATION}" in approved.out
    assert harness.get("webapp", "shop") is None
    assert harness.get("deployment", "shop") is None


def test_apply_says_each_removal_waiting_for_approval_with_its_command_and_counts_them(
    harness: Harness,
) -> None:
    removed_with_its_policy(harness, "confirm")

    recorded = harness.driftctl("apply")
    live = harness.get("webapp", "shop") or {}
    waiting = harness.driftctl("apply")
    as_json = harness.driftctl("apply", "-o", "json", "--log-format", "json")

    webapp = f"WebApp/{harness.namespace}/shop"
    uid, revision = (
        live["metadata"]["uid"],
        live["metadata"]["annotations"][c.REMOVED_IN_ANNOTATION],
    )
    command = (
        f"kubectl annotate webapp/shop -n {harness.namespace} "
        f"{c.APPROVE_PRUNE_ANNOTATION}={uid}@{revision}"
    )
    summary = "Apply: 0 created, 0 configured, 0 deleted, 2 unchanged, 0 skipped, 0 failed"
    for run in (recorded, waiting):
        assert run.code == 0, run.err
        [line] = [each for each in run.out.splitlines() if webapp in each]
        assert line.startswith(f"waiting {webapp}: not declared in Git since {revision[:12]}; ")
        assert f"waits for an approval: {command}" in line
        assert run.out.splitlines()[-1] == f"{summary}, 1 waiting for approval"
    document = json.loads(as_json.out)
    assert document["summary"]["waiting"] == 1
    [shop] = [each for each in document["objects"] if each["name"] == "shop"]
    assert shop["outcome"] == "waiting"
    assert command in shop["reason"]
    lines = [json.loads(line) for line in as_json.err.splitlines()]
    [logged] = [each for each in lines if each.get("name") == "shop"]
    assert (logged["level"], logged["outcome"]) == ("warning", "waiting")
    assert command in logged["message"]
    assert lines[-1]["outcomes"]["waiting"] == 1
    assert lines[-1]["message"] == f"{summary}, 1 waiting for approval"


def test_quarantine_scales_to_zero_waits_its_grace_then_prunes(harness: Harness) -> None:
    """The grace is each run's own flag, and the quarantine's start is stamped on the
    WebApp: a run with a grace long past any load holds it, one whose grace surely passed
    since (a lower bound only) prunes it, however slowly the runs start."""
    removed_with_its_policy(harness, "quarantine", *LONG_GRACE)

    quarantined = harness.driftctl("apply", *LONG_GRACE)
    scaled = deployment(harness)["spec"]
    waiting = harness.driftctl("apply", *LONG_GRACE)
    time.sleep(GRACE + 1)
    pruned = harness.driftctl("apply", "--quarantine-grace", f"{GRACE}s")

    webapp = f"WebApp/{harness.namespace}/shop"
    assert quarantined.code == 0, quarantined.err
    assert scaled["replicas"] == 0
    assert f"held {webapp}: quarantined since " in waiting.out
    assert pruned.code == 0, pruned.err
    assert f"deleted {webapp}: quarantined since" in pruned.out
    assert harness.get("webapp", "shop") is None


def test_a_quarantined_entry_back_in_git_comes_back_with_its_replicas(harness: Harness) -> None:
    removed_with_its_policy(harness, "quarantine")
    assert harness.driftctl("apply").code == 0
    harness.declare_text(shop_and_blog("nginx:1.27", {c.PRUNE_POLICY_ANNOTATION: "quarantine"}))

    back = harness.driftctl("apply")
    again = harness.driftctl("plan")

    assert back.code == 0, back.err
    assert deployment(harness)["spec"]["replicas"] == 2
    annotations = (harness.get("webapp", "shop") or {})["metadata"]["annotations"]
    assert c.REMOVED_AT_ANNOTATION not in annotations
    assert c.REMOVED_IN_ANNOTATION not in annotations
    assert again.code == 0, again.out


def test_foreground_propagation_deletes_the_owner_last(harness: Harness) -> None:
    removed_with_its_policy(harness, "delete")
    dependent = kept_dependent_of(harness, deployment(harness))

    pruning = harness.start("apply", "--prune-propagation", "foreground")
    held = eventually(lambda: "foregroundDeletion" in finalizers(harness, "deployment"))
    webapp_meanwhile = harness.get("webapp", "shop")
    harness.kubectl(
        "patch", dependent, "-n", harness.namespace, "--type=merge",
        "-p", '{"metadata":{"finalizers":null}}',
    )  # fmt: skip
    out, err = pruning.communicate(timeout=120)

    assert held
    assert webapp_meanwhile is not None
    assert pruning.returncode == 0, out + err
    assert f"deleted WebApp/{harness.namespace}/shop: not declared in Git" in out
    assert harness.get("webapp", "shop") is None
    assert harness.get("deployment", "shop") is None


def finalizers(harness: Harness, kind: str) -> list[str]:
    live = harness.get(kind, "shop") or {}
    return list(live.get("metadata", {}).get("finalizers", []))


def kept_dependent_of(harness: Harness, owner: dict[str, Any]) -> str:
    """A ConfigMap `owner` owns (blocking its deletion in the foreground), kept by KEEP:
    what a ReplicaSet is to a Deployment, where no deployment controller runs."""
    harness.kubectl("create", "-f", "-", stdin=json.dumps({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "shop-dependent",
            "namespace": harness.namespace,
            "finalizers": [KEEP],
            "ownerReferences": [{
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "name": "shop",
                "uid": owner["metadata"]["uid"],
                "blockOwnerDeletion": True,
            }],
        },
    }))  # fmt: skip
    return "configmap/shop-dependent"
