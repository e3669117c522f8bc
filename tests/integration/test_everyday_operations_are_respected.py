"""What people do to Deployments every day, and what driftctl makes of it (docs/concepts/drift.md,
"What counts as drift"), with the real kubectl on the real API server.

- `kubectl rollout restart` is not drift: `plan` shows nothing, `apply` writes nothing to
  the Deployment, and the restart annotation stays (removing it would start a second
  rollout, back to the template before the restart).
- `kubectl rollout pause` is drift: a paused Deployment never rolls out what Git declares;
  apply resumes it. `kubectl rollout resume` leaves nothing behind to revert.
- An annotation a person puts on the Pod template (any but the restart's) is drift.
- A Deployment whose ownerReference `kubectl patch` stripped still carries every mark driftctl
  leaves (its instance label, the managed-by label, driftctl's Apply entry): the plan
  updates it, apply restores the reference, and the next plan is empty. A Deployment of the
  same name made by a person (the same labels, no Apply entry of driftctl's) stays a conflict.

No node runs here, so no ReplicaSet is made: "no second rollout" is the Deployment's
template and generation left as the restart made them (the node tests compare Pods).
"""

from __future__ import annotations

import json

from driftctl import conventions as c
from driftctl.core.planning.outside_git import RESTARTED_AT
from tests.support.harness import Harness, Obj


def converged(harness: Harness) -> Obj:
    """WebApp shop (2 replicas) applied; its Deployment as stored."""
    harness.declare({"shop": ("nginx:1.27", 2)})
    applied = harness.driftctl("apply")
    assert applied.code == 0, applied.err
    deployment = harness.get("deployment", "shop")
    assert deployment is not None
    return deployment


def test_a_rollout_restart_is_kept_and_applies_nothing(harness: Harness) -> None:
    converged(harness)
    harness.kubectl("rollout", "restart", "deployment/shop", "-n", harness.namespace)
    restarted = harness.raw("deployment", "shop")
    assert restarted is not None

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 0, planned.out + planned.err
    assert planned.out.strip() == "Plan: 0 to create, 0 to update, 0 to prune, 2 unchanged"
    assert applied.code == 0, applied.err
    assert f"Deployment/{harness.namespace}/shop" not in applied.out
    after = harness.raw("deployment", "shop")
    assert after is not None
    assert after["metadata"]["resourceVersion"] == restarted["metadata"]["resourceVersion"]
    annotations = after["spec"]["template"]["metadata"]["annotations"]
    assert (
        annotations[RESTARTED_AT]
        == (restarted["spec"]["template"]["metadata"]["annotations"][RESTARTED_AT])
    )
    assert ("kubectl-rollout", "Update", "") in harness.managers("deployment", "shop")


def test_a_change_from_git_after_a_restart_keeps_the_restart(harness: Harness) -> None:
    converged(harness)
    harness.kubectl("rollout", "restart", "deployment/shop", "-n", harness.namespace)
    harness.declare({"shop": ("nginx:1.28", 2)})

    applied = harness.driftctl("apply")

    assert applied.code == 0, applied.err
    template = (harness.get("deployment", "shop") or {})["spec"]["template"]
    assert template["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert RESTARTED_AT in template["metadata"]["annotations"]


def test_a_pause_is_drift_and_a_resume_leaves_nothing_to_revert(harness: Harness) -> None:
    converged(harness)
    harness.kubectl("rollout", "pause", "deployment/shop", "-n", harness.namespace)

    paused = harness.driftctl("plan")
    harness.kubectl("rollout", "resume", "deployment/shop", "-n", harness.namespace)
    resumed = harness.driftctl("plan")
    harness.kubectl("rollout", "pause", "deployment/shop", "-n", harness.namespace)
    applied = harness.driftctl("apply")

    assert paused.code == 1
    assert "    spec.paused: true -> (none) (added by kubectl-rollout, not in Git)" in (
        paused.out.splitlines()
    )
    assert resumed.code == 0, resumed.out
    assert applied.code == 0, applied.err
    assert "paused" not in (harness.get("deployment", "shop") or {})["spec"]
    assert harness.driftctl("plan").code == 0


def test_another_annotation_on_the_pod_template_is_drift(harness: Harness) -> None:
    converged(harness)
    patch = {"spec": {"template": {"metadata": {"annotations": {"team": "payments"}}}}}
    harness.kubectl("patch", "deployment/shop", "-n", harness.namespace, "-p", json.dumps(patch))

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert (
        '    spec.template.metadata.annotations.team: "payments" -> (none) '
        "(added by kubectl-patch, not in Git)"
    ) in planned.out.splitlines()
    assert applied.code == 0, applied.err
    template = (harness.get("deployment", "shop") or {})["spec"]["template"]["metadata"]
    assert "team" not in (template.get("annotations") or {})


def test_a_stripped_owner_reference_is_planned_as_an_update_and_restored(
    harness: Harness,
) -> None:
    converged(harness)
    webapp = harness.get("webapp", "shop")
    assert webapp is not None
    harness.kubectl(
        "patch", "deployment/shop", "-n", harness.namespace, "--type=json",
        "-p", '[{"op": "remove", "path": "/metadata/ownerReferences"}]',
    )  # fmt: skip
    stripped = harness.get("deployment", "shop") or {}
    assert "ownerReferences" not in stripped["metadata"]

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1, planned.out + planned.err
    assert f"~ Deployment/{harness.namespace}/shop: update" in planned.out
    assert "conflict" not in planned.out
    assert "    metadata.ownerReferences: (none) -> [{" in planned.out
    assert applied.code == 0, applied.err
    assert f"configured Deployment/{harness.namespace}/shop" in applied.out.splitlines()
    [owner] = (harness.get("deployment", "shop") or {})["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["uid"], owner["controller"]) == (
        c.KIND,
        webapp["metadata"]["uid"],
        True,
    )
    again = harness.driftctl("plan")
    assert again.code == 0, again.out
    assert again.out.strip() == "Plan: 0 to create, 0 to update, 0 to prune, 2 unchanged"


def test_a_deployment_a_person_made_with_the_same_labels_is_still_a_conflict(
    harness: Harness,
) -> None:
    labels = {
        c.INSTANCE_LABEL: harness.instance,
        c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE,
        c.NAME_LABEL: "shop",
        c.SELECTOR_INSTANCE_LABEL: "shop",
    }
    selector = {c.NAME_LABEL: "shop", c.SELECTOR_INSTANCE_LABEL: "shop"}
    by_hand = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "shop", "namespace": harness.namespace, "labels": labels},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": selector},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
            },
        },
    }
    harness.kubectl("create", "-f", "-", stdin=json.dumps(by_hand))
    harness.declare({"shop": ("nginx:1.27", 2)})

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 5  # apply fails the conflict: plan exits as apply would
    assert (
        f"x Deployment/{harness.namespace}/shop: conflict (is not controlled by "
        f"WebApp/{harness.namespace}/shop (no controller: made by hand or by another tool); "
        "never updated, replaced or deleted)"
    ) in planned.out.splitlines()
    assert applied.code == 5
    assert "ownerReferences" not in (harness.get("deployment", "shop") or {})["metadata"]
