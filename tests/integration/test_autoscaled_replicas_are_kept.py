"""A HorizontalPodAutoscaler's replicas are not drift: the plan says they are kept and by
whom, the WebApp status reports it, a Git change of replicas is still applied, and it costs
one more paged LIST, only while the replicas differ from Git."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.controlplane import launcher
from tests.support import drift_cases as cases
from tests.support.control_plane import STREAMED_LIST, delta, quiet, request_counts
from tests.support.harness import Harness, eventually


def test_replicas_kept_for_an_autoscaler_are_planned_reported_and_cost_one_list(
    harness: Harness, tmp_path: Path, control_plane: launcher.ControlPlane
) -> None:
    cases.replicas_of_an_autoscaler(harness, tmp_path)
    quiet(harness)  # the namespace controller's LISTs of earlier tests' objects would count
    before = request_counts(control_plane)

    planned = harness.driftctl("plan")

    after = request_counts(control_plane)
    applied = harness.driftctl("apply")
    hpa = f"HorizontalPodAutoscaler/{harness.namespace}/shop"
    assert planned.code == 0, planned.out
    assert planned.out.splitlines()[:2] == [
        f"= Deployment/{harness.namespace}/shop: unchanged",
        f"    spec.replicas kept: scaled by {hpa} (3 here, 2 in Git)",
    ]
    kinds = ("webapps", "deployments", "horizontalpodautoscalers")
    lists: Counter[tuple[str, str]] = Counter()
    for (resource, _, verb, scope, _, _), count in delta(before, after, kinds).items():
        if verb in ("LIST", STREAMED_LIST) and scope == "cluster":
            lists[(resource, verb)] += count
    assert lists == {
        ("webapps", STREAMED_LIST): 1,
        ("deployments", STREAMED_LIST): 1,
        ("horizontalpodautoscalers", "LIST"): 1,
    }
    # driftctl sent five requests, its read of the CRD, those lists and its Lease: no
    # dry-run, no write.
    assert after.service_accounts - before.service_accounts == 5
    assert applied.code == 0, applied.err
    webapp = harness.get("webapp", "shop") or {}
    assert webapp["status"]["ignoredFields"] == [
        {"kind": "Deployment", "field": "spec.replicas", "reason": f"scaled by {hpa}"}
    ]
    assert (harness.get("deployment", "shop") or {})["spec"]["replicas"] == 3


def test_a_git_change_of_replicas_is_applied_over_the_autoscaler(
    harness: Harness, tmp_path: Path
) -> None:
    cases.replicas_of_an_autoscaler(harness, tmp_path)
    harness.declare({"shop": ("nginx:1.27", 4)})

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    hpa = f"HorizontalPodAutoscaler/{harness.namespace}/shop"
    assert planned.code == 1
    assert (
        f"    spec.replicas: 3 -> 4 (scaled by {hpa}; applied because Git changed it)"
    ) in planned.out.splitlines()
    assert applied.code == 0, applied.err

    def four() -> bool:
        return bool((harness.get("deployment", "shop") or {})["spec"]["replicas"] == 4)

    assert eventually(four, 10)
    assert harness.driftctl("plan").code == 0
