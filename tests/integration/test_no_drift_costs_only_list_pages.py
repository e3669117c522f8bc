"""When nothing drifted, plan costs the LIST pages and apply only its Lease (N = 200).

Counted by the API server itself (/metrics), not by driftctl: API Priority and Fairness
counts what driftctl's ServiceAccount sent (nothing else in the suite runs as one), and
apiserver_request_total says what those requests were.
"""

from __future__ import annotations

from collections import Counter

from tests.controlplane import launcher
from tests.integration.harness import Harness, Requests, delta, quiet, request_counts

N = 200
OBJECTS = ("webapps", "deployments", "events")
WRITES = frozenset({"APPLY", "PATCH", "POST", "PUT", "CREATE", "UPDATE"})


def declare_and_apply(harness: Harness) -> None:
    harness.declare({f"app-{i:03d}": ("nginx:1.27", i % 4) for i in range(N)})
    first = harness.driftctl("apply", "--concurrency", "8", timeout=300)
    assert first.code == 0, first.err
    quiet(harness)


def cluster_lists(before: Requests, after: Requests) -> Counter[str]:
    """driftctl's LIST pages: the only cluster-scoped LISTs of these resources."""
    lists: Counter[str] = Counter()
    for (resource, _, verb, scope, _, _), count in delta(before, after, OBJECTS).items():
        if verb == "LIST" and scope == "cluster":
            lists[resource] += count
    return lists


def object_writes(before: Requests, after: Requests) -> Counter[tuple[str, str, str]]:
    """Writes (dry-runs included) to WebApps, Deployments and Events, by any client."""
    writes: Counter[tuple[str, str, str]] = Counter()
    for (resource, subresource, verb, _, dry_run, _), count in delta(
        before, after, OBJECTS
    ).items():
        if verb in WRITES:
            writes[(resource, subresource, verb + (" dry-run" if dry_run else ""))] += count
    return writes


def test_no_drift_plan_is_one_list_page_per_kind(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    declare_and_apply(harness)
    before = request_counts(control_plane)

    planned = harness.driftctl("plan")

    after = request_counts(control_plane)
    assert planned.code == 0, planned.out + planned.err
    assert planned.out.strip() == f"Plan: 0 to create, 0 to update, 0 to prune, {2 * N} unchanged"
    assert after.service_accounts - before.service_accounts == 2
    assert cluster_lists(before, after) == {"webapps": 1, "deployments": 1}
    assert object_writes(before, after) == {}


def test_no_drift_apply_writes_only_its_lease(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    declare_and_apply(harness)
    before = request_counts(control_plane)

    applied = harness.driftctl("apply")

    after = request_counts(control_plane)
    assert applied.code == 0, applied.err
    # Two LIST pages, then the Lease: read it, take it, release it. Nothing else.
    assert after.service_accounts - before.service_accounts == 5
    assert cluster_lists(before, after) == {"webapps": 1, "deployments": 1}
    assert object_writes(before, after) == {}
