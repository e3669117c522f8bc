"""The request-count smoke test (N = 50): each kind of run sends what it must and no more.

- a no-drift plan is one read of the installed CRD, one streamed list of WebApps and one of
  Deployments, and one read of the instance's Lease (a suspension of the instance is set
  there), nothing else;
- a no-drift apply writes only its Lease (and records no history);
- so are a plan and an apply of WebApps whose rollouts are complete: the first apply after
  a rollout completed looks once for each new ReplicaSet (one LIST in its namespace) and
  writes the status it found, Ready; with no Pods to read (this control plane makes no
  ReplicaSet), the completion is confirmed by a second look at least 10 s later, the next
  run's, which reads the same again and writes what serves (core.planning.status.confirmed);
  nothing more is read or written after that;
- a 1% drift apply writes only the drifted object (its apply, its dry-run, its WebApp's
  status, one Event) and its record in the instance's history (the head read, then
  written); its replicas moved, so it reads the autoscalers once (one LIST);
- a cold apply sends at most 3 writes per WebApp (WebApp, Deployment, status: no dry-run,
  the create answers for it) plus Events within --max-events and one summary Event, and
  its record in the history; Git
  adds names to one namespace, so it lists that namespace once for objects of other owners
  (one LIST of WebApps, one of Deployments) before it creates anything.

Counted by the API server itself (/metrics), not by driftctl: API Priority and Fairness
counts what driftctl's ServiceAccount sent (nothing else in the suite runs as one), and
apiserver_request_total says what those requests were. A run's Lease costs 3 requests
(read, take, release), and one renewal more for every 10 s it runs: only the cold apply can
take that long on a loaded machine, and its count allows for it.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

from kubernetes import client

from driftctl.core.planning.status import CONFIRM_SECONDS
from tests.controlplane import launcher
from tests.support.control_plane import STREAMED_LIST, Requests, delta, quiet, request_counts
from tests.support.harness import LOCK_NAMESPACE, Harness
from tests.support.rollouts import rolled_out

N = 50
MAX_EVENTS = 10
OBJECTS = ("webapps", "deployments", "events")
WRITES = frozenset({"APPLY", "PATCH", "POST", "PUT", "CREATE", "UPDATE"})


def declare(harness: Harness) -> None:
    harness.declare({f"app-{i:03d}": ("nginx:1.27", i % 4) for i in range(N)})


def converged(harness: Harness) -> Harness:
    declare(harness)
    first = harness.driftctl("apply", timeout=300)
    assert first.code == 0, first.err
    quiet(harness)
    return harness


def cluster_lists(before: Requests, after: Requests) -> Counter[str]:
    """driftctl's lists, by resource (streamed: `webapps streamed`): the only cluster-scoped
    lists of these resources."""
    lists: Counter[str] = Counter()
    for (resource, _, verb, scope, _, _), count in delta(before, after, OBJECTS).items():
        if verb in ("LIST", STREAMED_LIST) and scope == "cluster":
            lists[resource + (" streamed" if verb == STREAMED_LIST else "")] += count
    return lists


STREAMED = {"webapps streamed": 1, "deployments streamed": 1}  # one request of each kind


def object_writes(before: Requests, after: Requests) -> Counter[str]:
    """Writes (dry-runs included) to WebApps, Deployments and Events, by any client."""
    writes: Counter[str] = Counter()
    for (resource, subresource, verb, _, dry_run, _), count in delta(
        before, after, OBJECTS
    ).items():
        if verb in WRITES:
            name = f"{resource}/{subresource}" if subresource else resource
            writes[f"{name} {verb}{' dry-run' if dry_run else ''}"] += count
    return writes


LEASE = 3  # read, take, release
LEASE_READ = 1  # plan takes no lock; it reads the Lease: the instance may be suspended
CRD = 1  # every run reads the installed WebApp CRD once (what its status may hold)
AUTOSCALERS = 1  # one LIST of the HorizontalPodAutoscalers, when replicas moved
OTHER_OWNERS = 2  # one LIST of WebApps and one of Deployments not the instance's, in a namespace
RENEW_EVERY = 10.0  # seconds: a third of the Lease's 30 s
HISTORY = 2  # a run that wrote something records it: its history's head read, then written


def crd_reads(before: Requests, after: Requests) -> int:
    """GETs of CustomResourceDefinitions (driftctl's read of the WebApp CRD)."""
    return sum(
        count
        for (_, _, verb, _, _, _), count in delta(
            before, after, ("customresourcedefinitions",)
        ).items()
        if verb == "GET"
    )


def sent(before: Requests, after: Requests) -> int:
    """What driftctl's ServiceAccount sent (nothing else in the suite runs as one)."""
    return after.service_accounts - before.service_accounts


def test_a_no_drift_plan_sends_only_the_crd_read_two_lists_and_its_lease(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    converged(harness)
    before = request_counts(control_plane)

    planned = harness.driftctl("plan")

    after = request_counts(control_plane)
    assert planned.code == 0, planned.out + planned.err
    assert planned.out.strip() == f"Plan: 0 to create, 0 to update, 0 to prune, {2 * N} unchanged"
    assert after.service_accounts - before.service_accounts == CRD + 2 + LEASE_READ
    assert cluster_lists(before, after) == STREAMED
    assert crd_reads(before, after) == 1
    assert object_writes(before, after) == {}


def test_a_no_drift_apply_writes_only_its_lease(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    converged(harness)
    before = request_counts(control_plane)

    applied = harness.driftctl("apply")

    after = request_counts(control_plane)
    assert applied.code == 0, applied.err
    assert sent(before, after) == CRD + 2 + LEASE  # the CRD, the two lists, the Lease
    assert cluster_lists(before, after) == STREAMED
    assert object_writes(before, after) == {}


def test_runs_over_complete_rollouts_send_only_list_pages_once_their_status_is_written(
    harness: Harness, control_plane: launcher.ControlPlane, kube_client: client.ApiClient
) -> None:
    converged(harness)
    for i in range(N):
        rolled_out(kube_client, harness.namespace, f"app-{i:03d}")
    quiet(harness)
    start = request_counts(control_plane)

    recorded = harness.driftctl("apply")
    seen = request_counts(control_plane)
    time.sleep(CONFIRM_SECONDS)  # the next run, its second look
    confirmed = harness.driftctl("apply")
    before = request_counts(control_plane)
    planned = harness.driftctl("plan")
    middle = request_counts(control_plane)
    applied = harness.driftctl("apply")
    after = request_counts(control_plane)

    assert (recorded.code, confirmed.code) == (0, 0), recorded.err + confirmed.err
    assert recorded.out.count(": ready (") == N
    looks = {("replicasets", "", "LIST", "namespace", "", "200"): N}
    assert delta(start, seen, ("replicasets", "pods")) == looks
    assert object_writes(start, seen) == {"webapps/status APPLY": N}  # Ready
    assert delta(seen, before, ("replicasets", "pods")) == looks  # the read it gains
    assert object_writes(seen, before) == {"webapps/status APPLY": N}  # what serves
    assert planned.code == 0, planned.out + planned.err
    assert sent(before, middle) == CRD + 2 + LEASE_READ
    assert cluster_lists(before, middle) == STREAMED
    assert applied.code == 0, applied.err
    assert sent(middle, after) == CRD + 2 + LEASE
    assert delta(before, after, ("replicasets", "pods")) == {}
    assert object_writes(before, after) == {}


def test_a_one_percent_drift_apply_writes_only_the_drifted_object(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    converged(harness)
    harness.kubectl("scale", "deployment/app-007", "--replicas=9", "-n", harness.namespace)
    quiet(harness)
    planned = harness.driftctl("plan")
    before = request_counts(control_plane)

    applied = harness.driftctl("apply")

    after = request_counts(control_plane)
    assert applied.code == 0, applied.err
    drifted = f"Deployment/{harness.namespace}/app-007"
    assert f"~ {drifted}: update" in planned.out
    assert f"configured {drifted}" in applied.out.splitlines()
    assert object_writes(before, after) == {
        "deployments APPLY dry-run": 1,
        "deployments APPLY": 1,
        "webapps/status APPLY": 1,  # the Deployment's new generation is not observed yet
        "events POST": 1,
    }
    assert sent(before, after) == CRD + 2 + AUTOSCALERS + 4 + LEASE + HISTORY


def test_a_cold_apply_sends_three_writes_per_webapp_and_events_within_the_cap(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    declare(harness)
    planned = harness.driftctl("plan", "-o", "json")
    quiet(harness)  # other tests' namespaces, deleted, would count
    before = request_counts(control_plane)
    started = time.monotonic()

    applied = harness.driftctl("apply", "-o", "json", "--max-events", str(MAX_EVENTS))

    renewals = int((time.monotonic() - started) // RENEW_EVERY)  # a bound, not a timing
    after = request_counts(control_plane)
    assert applied.code == 0, applied.err
    assert object_writes(before, after) == {
        "webapps APPLY": N,
        "deployments APPLY": N,
        "webapps/status APPLY": N,
        "events POST": MAX_EVENTS + 1,  # the summary Event counts the other 40
    }
    lease = sent(before, after) - (CRD + 2 + OTHER_OWNERS + 3 * N + MAX_EVENTS + 1 + HISTORY)
    assert LEASE <= lease <= LEASE + renewals
    # What plan printed (after its dry-runs) is what apply did (without them).
    actions = {_key(o): o["action"] for o in json.loads(planned.out)["objects"]}
    outcomes = {_key(o): o["outcome"] for o in json.loads(applied.out)["objects"]}
    assert len(actions) == 2 * N
    assert set(actions.values()) == {"create"}
    assert outcomes == dict.fromkeys(actions, "created")
    assert len(harness.events()) == MAX_EVENTS  # one per WebApp, up to the cap
    [summary] = _run_events(harness)
    assert summary["reason"] == "EventsLimited"
    assert f"{N - MAX_EVENTS} more WebApp Events of this run" in summary["message"]


def _key(item: dict[str, str]) -> tuple[str, str, str]:
    return item["kind"], item["namespace"], item["name"]


def _run_events(harness: Harness) -> list[dict[str, Any]]:
    """Events about the run's Lease (in the lock namespace)."""
    lease = f"driftctl-{harness.instance}"
    listed = harness.kubectl(
        "get", "events", "-n", LOCK_NAMESPACE, "-o", "json",
        "--field-selector", f"involvedObject.name={lease}",
    )  # fmt: skip
    items: list[dict[str, Any]] = json.loads(listed)["items"]
    return items
