"""A Deployment whose selector is not the one driftctl builds keeps it: the selector is
immutable, and changing it means deleting the Deployment (every Pod restarts). plan and
apply keep the live selector and its Pod template; with --recreate both replace it: the
Deployment is deleted and created again with the selector driftctl builds.
"""

from __future__ import annotations

from driftctl import conventions as c
from tests.support.builders import other_selector_deployment
from tests.support.harness import Harness


def test_another_selector_is_kept_and_only_replaced_with_recreate(harness: Harness) -> None:
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
    kept = harness.driftctl("apply")
    after_kept = harness.get("deployment", "shop")
    recreated = harness.driftctl("apply", "--recreate")

    # Without --recreate, this instance's Deployment is updated as it is: its selector and
    # Pod template stay (no restart); with it, both plan and apply replace it.
    assert planned.code == 1
    assert f"~ Deployment/{harness.namespace}/shop: update" in planned.out
    assert "spec.selector" not in planned.out
    assert planned_recreate.code == 1
    assert (
        f"-/+ Deployment/{harness.namespace}/shop: replace (spec.selector is immutable"
        in planned_recreate.out
    )
    assert (
        "    spec.selector: app=shop-legacy -> "
        "app.kubernetes.io/instance=shop,app.kubernetes.io/name=shop" in planned_recreate.out
    )
    assert kept.code == 0, kept.err
    assert f"configured Deployment/{harness.namespace}/shop" in kept.out
    assert after_kept is not None
    assert after_kept["metadata"]["uid"] == old["metadata"]["uid"]
    assert after_kept["spec"]["selector"] == old["spec"]["selector"]
    assert after_kept["spec"]["template"] == old["spec"]["template"]
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
