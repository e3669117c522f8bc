"""A saved plan removes the fields set outside Git it planned to, keeps what its ignore
rules kept, and takes no drift flag of its own: the plan decides those."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import drift_cases as cases
from tests.support.harness import Harness


def test_a_saved_plan_removes_fields_set_outside_git_and_keeps_ignored_ones(
    harness: Harness, tmp_path: Path
) -> None:
    cases.env_added_by_kubectl_patch(harness, tmp_path)
    harness.kubectl("scale", "deployment/shop", "--replicas=5", "-n", harness.namespace)
    path = tmp_path / "plan.json"
    planned = harness.driftctl("plan", "--out", str(path), *cases.IGNORE_REPLICAS)
    document = json.loads(path.read_text())

    applied = harness.driftctl("apply", "--plan", str(path))
    refused = harness.driftctl("apply", "--plan", str(path), "--ignore-manager", "x")

    assert planned.code == 1, planned.err
    assert document["drift"]["ignore"] == ["Deployment:/spec/replicas"]
    assert applied.code == 0, applied.out + applied.err
    deployment = harness.get("deployment", "shop") or {}
    assert "env" not in deployment["spec"]["template"]["spec"]["containers"][0]
    assert deployment["spec"]["replicas"] == 5
    assert refused.code == 2
    assert "drop --ignore-manager" in refused.err
