"""A changed immutable field (the Deployment selector) needs a replacement.

plan and apply skip it with the reason unless --recreate is given; then both replace it: the
Deployment is deleted and created again with the selector driftctl builds.
"""

from __future__ import annotations

from driftctl import conventions as c
from tests.support.builders import other_selector_deployment
from tests.support.harness import Harness


def test_changed_selector_is_planned_as_replace_and_only_recreated_when_asked(
    harness: Harness,
) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    assert harness.driftctl("apply").code == 0
    owner = harness.get("webapp", "shop")
    assert owner is not None
    harness.kubectl("delete", "deployment/shop", "-n", harness.namespace)
    harness.apply_as_admin(other_selector_deployment(harness, owner["metadata"]["uid"]))
    old = harness.get("deployment", "shop")
    assert old is not None

    planned = harness.driftctl("plan")
    planned_recreate = harness.driftctl("plan", "--recreate")
    skipped = harness.driftctl("apply")
    recreated = harness.driftctl("apply", "--recreate")

    # Without --recreate, plan says what apply then does: skip, and why; the drift stays
    # visible (exit 1). With it, both replace.
    assert planned.code == 1
    assert f"! Deployment/{harness.namespace}/shop: skip (spec.selector is immutable" in planned.out
    assert "(run with --recreate to do it)" in planned.out
    assert planned_recreate.code == 1
    assert (
        f"-/+ Deployment/{harness.namespace}/shop: replace (spec.selector is immutable"
        in planned_recreate.out
    )
    assert skipped.code == 0, skipped.err
    assert "skipped Deployment" in skipped.out
    assert "(run with --recreate to do it)" in skipped.out
    assert recreated.code == 0, recreated.err
    assert f"configured Deployment/{harness.namespace}/shop" in recreated.out
    new = harness.get("deployment", "shop")
    assert new is not None
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
    assert new["spec"]["selector"]["matchLabels"] == {
        c.NAME_LABEL: "shop",
        c.SELECTOR_INSTANCE_LABEL: "shop",
    }
    assert harness.driftctl("plan").code == 0
