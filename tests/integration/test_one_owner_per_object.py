"""One owner per object: another instance's WebApp and a Deployment not controlled by its
WebApp are conflicts, left byte for byte untouched, also with --recreate; a WebApp made by
hand without an instance label is adopted."""

from __future__ import annotations

from pathlib import Path

from driftctl import conventions as c
from tests.support import drift_cases as cases
from tests.support.harness import Harness


def test_a_webapp_of_another_instance_is_a_conflict_and_never_taken_over(
    harness: Harness, tmp_path: Path
) -> None:
    flags = cases.webapp_of_another_instance(harness, tmp_path)
    other = f"{harness.instance}-b"
    before = {kind: harness.raw(kind, "shop") for kind in ("webapp", "deployment")}

    planned = harness.driftctl("plan", *flags)
    applied = harness.driftctl("apply", *flags)

    ref = f"WebApp/{harness.namespace}/shop"
    assert planned.code == 5  # as apply: a conflict fails
    assert (
        f"x {ref}: conflict (belongs to instance {other} ({c.INSTANCE_LABEL}={other}); "
        "never taken over)"
    ) in planned.out.splitlines()
    assert planned.out.splitlines()[-1].endswith("1 skipped, 1 conflict")
    assert applied.code == 5
    assert f"failed {ref}: belongs to instance {other}" in applied.out
    assert {kind: harness.raw(kind, "shop") for kind in before} == before


def test_a_deployment_made_by_hand_under_a_webapps_name_is_a_conflict(
    harness: Harness, tmp_path: Path
) -> None:
    flags = cases.deployment_made_by_hand(harness, tmp_path)
    before = harness.raw("deployment", "shop")

    planned = harness.driftctl("plan", *flags)
    applied = harness.driftctl("apply", *flags)
    again = harness.driftctl("apply", *flags)

    ref = f"Deployment/{harness.namespace}/shop"
    reason = (
        f"is not controlled by WebApp/{harness.namespace}/shop (no controller: made by hand "
        "or by another tool); never updated, replaced or deleted"
    )
    assert planned.code == 5  # as apply: a conflict fails
    assert f"+ WebApp/{harness.namespace}/shop: create" in planned.out
    assert f"x {ref}: conflict ({reason})" in planned.out.splitlines()
    assert (applied.code, again.code) == (5, 5)
    assert f"failed {ref}: {reason}" in applied.out.splitlines()
    assert f"failed {ref}: {reason}" in again.out.splitlines()
    assert harness.raw("deployment", "shop") == before
    webapp = harness.get("webapp", "shop") or {}
    [ready] = [cond for cond in webapp["status"]["conditions"] if cond["type"] == "Ready"]
    assert (ready["status"], ready["reason"]) == ("False", "DeploymentConflict")


def test_a_webapp_made_by_hand_without_an_instance_label_is_adopted(
    harness: Harness, tmp_path: Path
) -> None:
    cases.webapp_made_by_hand(harness, tmp_path)

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert (
        f"~ WebApp/{harness.namespace}/shop: adopt (made without an instance label, "
        "declared in Git; taken over from "
    ) in planned.out
    assert applied.code == 0, applied.err
    webapp = harness.get("webapp", "shop") or {}
    assert webapp["metadata"]["labels"][c.INSTANCE_LABEL] == harness.instance
    assert webapp["spec"] == {"image": "nginx:1.27", "replicas": 2}
    assert harness.driftctl("plan").code == 0
