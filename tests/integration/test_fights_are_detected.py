"""A field corrected in earlier runs and changed again by the same manager is a fight: the
plan marks it with the count, apply records a Warning Event, and the WebApp status keeps a
bounded record of recent corrections (field, manager, count, last time)."""

from __future__ import annotations

from tests.support.drift_cases import converged
from tests.support.harness import Harness

IMAGE = "spec.template.spec.containers[name=app].image"


def set_image(harness: Harness, image: str) -> None:
    harness.kubectl("set", "image", "deployment/shop", f"app={image}", "-n", harness.namespace)


def test_a_fight_across_three_runs_shows_in_plan_events_and_status(harness: Harness) -> None:
    converged(harness)
    plans = []
    for run in range(3):
        set_image(harness, f"nginx:1.9{run}")
        plans.append(harness.driftctl("plan"))
        assert harness.driftctl("apply").code == 0

    first, second, third = (planned.out.splitlines() for planned in plans)
    assert f'    {IMAGE}: "nginx:1.90" -> "nginx:1.27" (changed by kubectl-set)' in first
    assert (
        f'    {IMAGE}: "nginx:1.91" -> "nginx:1.27" (corrected 1 run in a row; changed again '
        "by kubectl-set)"
    ) in second
    assert (
        f'    {IMAGE}: "nginx:1.92" -> "nginx:1.27" (corrected 2 runs in a row; changed again '
        "by kubectl-set)"
    ) in third
    fight = "update (differs from Git again; a fight with kubectl-set)"
    assert f"~ Deployment/{harness.namespace}/shop: {fight}" in third
    fights = [event for event in harness.events() if event["reason"] == "Fight"]
    assert [event["type"] for event in fights] == ["Warning", "Warning"]
    assert sorted(event["message"] for event in fights) == [
        f"Deployment/{harness.namespace}/shop: {IMAGE} corrected {count} {runs} in a row; "
        "changed again by kubectl-set"
        for count, runs in ((1, "run"), (2, "runs"))
    ]
    [record] = (harness.get("webapp", "shop") or {})["status"]["corrections"]
    assert {key: record[key] for key in ("kind", "field", "manager", "count")} == {
        "kind": "Deployment",
        "field": IMAGE,
        "manager": "kubectl-set",
        "count": 3,
    }
    assert record["lastCorrected"].endswith("Z")


def test_a_correction_of_another_managers_change_starts_the_count_again(
    harness: Harness,
) -> None:
    converged(harness)
    set_image(harness, "nginx:1.90")
    assert harness.driftctl("apply").code == 0
    harness.kubectl(
        "patch",
        "deployment/shop",
        "-n",
        harness.namespace,
        "--type=json",
        "-p",
        '[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "x:1"}]',
    )

    planned = harness.driftctl("plan")
    assert harness.driftctl("apply").code == 0

    assert f'    {IMAGE}: "x:1" -> "nginx:1.27" (changed by kubectl-patch)' in planned.out
    [record] = (harness.get("webapp", "shop") or {})["status"]["corrections"]
    assert (record["manager"], record["count"]) == ("kubectl-patch", 1)
