"""Saved plans and the controls on the real control plane: a saved plan records what was
held and why, and `apply --plan` leaves it held; a control that holds something when the
plan is applied (a suspension set since) holds it then, whatever the plan said."""

from __future__ import annotations

import json
from pathlib import Path

from driftctl import conventions as c
from tests.support.drift_cases import SUSPENSION, annotate, converged, scale
from tests.support.harness import Harness

WHY = "suspended until 2099-01-01 00:00:00 UTC by ops: incident 4711"


def replicas(harness: Harness) -> int:
    return int((harness.get("deployment", "shop") or {})["spec"]["replicas"])


def test_a_saved_plan_records_what_was_held_and_why(harness: Harness, tmp_path: Path) -> None:
    converged(harness)
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}={SUSPENSION}")
    scale(harness)
    path = tmp_path / "plan.json"

    planned = harness.driftctl("plan", "--out", str(path))
    applied = harness.driftctl("apply", "--plan", str(path), "-o", "json")

    [held] = [o for o in json.loads(path.read_text())["objects"] if o["action"] == "hold"]
    assert planned.code == 1, planned.err
    assert (held["kind"], held["would"], held["control"]) == ("Deployment", "update", "suspend")
    assert held["reason"] == WHY
    assert applied.code == 0, applied.err
    outcomes = {o["kind"]: (o["outcome"], o["reason"]) for o in json.loads(applied.out)["objects"]}
    assert outcomes["Deployment"] == ("held", WHY)
    assert replicas(harness) == 5


def test_a_suspension_set_after_the_plan_holds_its_writes(harness: Harness, tmp_path: Path) -> None:
    converged(harness)
    scale(harness)
    path = tmp_path / "plan.json"
    planned = harness.driftctl("plan", "--out", str(path))
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}={SUSPENSION}")

    applied = harness.driftctl("apply", "--plan", str(path))

    assert planned.code == 1, planned.err
    assert f"~ Deployment/{harness.namespace}/shop: update" in planned.out
    assert applied.code == 0, applied.err
    assert f"held Deployment/{harness.namespace}/shop: {WHY}" in applied.out.splitlines()
    assert replicas(harness) == 5
