"""The plan is what apply does, exit code included.

`plan` exits 5 where `apply` with the same flags would fail an object or have a prune
refused by a guard (exit 5); 1 where the cluster differs from Git, whether apply changes it
or leaves it so (`--no-prune`); 0 only where the two are equal.
"""

from __future__ import annotations

from tests.support.builders import webapp
from tests.support.harness import Harness

TWO = {"a": ("nginx:1.27", 1), "b": ("nginx:1.27", 1)}


def test_plan_exits_5_for_a_webapp_in_a_namespace_that_does_not_exist(harness: Harness) -> None:
    harness.declare_text(webapp("shop", namespace=f"{harness.namespace}-missing"))

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert applied.code == 5, applied.out + applied.err
    assert planned.code == 5, planned.out + planned.err
    assert "2 skipped" in planned.out


def test_plan_exits_5_when_a_prune_guard_refuses(harness: Harness) -> None:
    harness.declare(TWO)
    assert harness.driftctl("apply").code == 0
    harness.declare({}, "an empty folder")

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert applied.code == 5, applied.out + applied.err
    assert planned.code == 5, planned.out + planned.err
    assert "refused: refusing to prune 2 objects: the desired set is empty" in planned.out


def test_plan_exits_1_while_no_prune_leaves_an_undeclared_webapp(harness: Harness) -> None:
    harness.declare(TWO)
    assert harness.driftctl("apply").code == 0
    harness.declare({"a": ("nginx:1.27", 1)}, "drop b")

    planned = harness.driftctl("plan", "--no-prune")
    applied = harness.driftctl("apply", "--no-prune")
    again = harness.driftctl("plan", "--no-prune")

    assert applied.code == 0, applied.err
    assert harness.names("webapps") == ["a", "b"]
    assert planned.code == again.code == 1, planned.out + again.out
    assert "pruning is off (--no-prune)" in again.out
