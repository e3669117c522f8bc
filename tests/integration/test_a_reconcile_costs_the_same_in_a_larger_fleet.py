"""`driftctl watch` does work in proportion to the change, not to the fleet, on the real
control plane, as a real process with operator/'s RBAC:

- a hand `kubectl scale` is put back with the same requests, and with the same number of
  live objects handed to each plan (the WebApp's own two), when the instance holds 50
  WebApps and when it holds 500: the prune guards' counts come from the watch's census,
  not from walking the instance; and no dry-run goes before the correcting apply; its
  record in the instance's history is one write (the watch keeps the head it wrote);
- a change of a Deployment's status alone (what the Deployment controller writes) is a
  status refresh: no dry-run and no write when the WebApp's status does not change, one
  status write and nothing else when it does.
Requests are counted by the API server (/metrics) while nothing else runs in this test's
namespace: by resource and verb for every client but the test's own GETs (it polls with
kubectl get), and in all for the watch's ServiceAccount, less its Lease renewals (its own
metric, read on both sides of each count; the Lease is long, so renewals are rare).
Nothing here asserts a time.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from tests.controlplane import launcher
from tests.support.control_plane import (
    Requests,
    delta,
    quiet,
    request_counts,
)
from tests.support.harness import Harness, eventually
from tests.support.watching import Watching, replicas, settled, start

WATCH_ACCOUNT = "driftctl-watch-cost"
OBJECTS = ("webapps", "deployments", "events", "horizontalpodautoscalers")
LONG_LEASE = ("--lease-duration", "600")
SMALL, LARGE = 50, 500


def fleet(count: int) -> dict[str, tuple[str, int]]:
    return {f"app-{n:03d}": ("nginx:1.27", 1) for n in range(count)}


def requests_made(before: Requests, after: Requests) -> Counter[str]:
    """Requests to the objects a reconcile touches, by resource and verb, any client, but
    GETs (the test's polls; the watch's own are in its total)."""
    made: Counter[str] = Counter()
    for (resource, subresource, verb, _, dry_run, _), count in delta(
        before, after, OBJECTS
    ).items():
        if verb == "GET":
            continue
        name = f"{resource}/{subresource}" if subresource else resource
        made[f"{name} {verb}{' dry-run' if dry_run else ''}"] += count
    return made


class Measured:
    """What the API server and the watch counted while one thing happened."""

    def __init__(self, plane: launcher.ControlPlane, process: Watching) -> None:
        self._plane, self._process = plane, process
        self._before, self._lease = self._count()
        self._visited = process.metric("driftctl_watch_objects_visited")
        self._work = process.metric("driftctl_watch_work_total")

    def _count(self) -> tuple[Requests, float]:
        """The API server's counts, and the watch's Lease writes at that moment: read until
        no renewal of the Lease came between."""
        while True:
            lease = self._process.metric("driftctl_watch_lease_writes_total")
            counted = request_counts(self._plane)
            if self._process.metric("driftctl_watch_lease_writes_total") == lease:
                return counted, lease

    def end(self) -> tuple[Counter[str], int, float, float]:
        """Requests by resource and verb, the watch's own requests (its Lease renewals left
        out), the live objects its plans were handed, and the WebApps it took from its
        queue."""
        process = self._process
        after, lease = self._count()
        own = after.service_accounts - self._before.service_accounts - int(lease - self._lease)
        visited = process.metric("driftctl_watch_objects_visited") - self._visited
        work = process.metric("driftctl_watch_work_total") - self._work
        return requests_made(self._before, after), own, visited, work


def idle(process: Watching) -> Callable[[], bool]:
    def check() -> bool:
        return (
            process.metric("driftctl_watch_queue_depth") == 0
            and process.metric("driftctl_watch_own_writes_pending") == 0
        )

    return check


def correction(
    harness: Harness, plane: launcher.ControlPlane, process: Watching, name: str
) -> tuple[Counter[str], int, float, float]:
    """A person scales `name`; what putting it back cost."""
    measured = Measured(plane, process)
    corrected = process.metric("driftctl_watch_drift_correction_seconds_count")
    harness.kubectl("scale", f"deployment/{name}", "--replicas=3", "-n", harness.namespace)
    assert eventually(lambda: replicas(harness, name) == 1, 60), process.log()
    assert eventually(
        lambda: process.metric("driftctl_watch_drift_correction_seconds_count") > corrected, 30
    )
    assert eventually(idle(process), 30), process.log()
    return measured.end()


def test_a_correction_costs_the_same_at_50_and_at_500_webapps(
    harness: Harness,
    control_plane: launcher.ControlPlane,
    watch_kubeconfig: Path,
    watching: list[Watching],
) -> None:
    harness.declare(fleet(SMALL))
    process = start(harness, watch_kubeconfig, watching, *LONG_LEASE)
    assert eventually(process.ready, 120), process.log()
    quiet(harness)
    settled(process)
    small = correction(harness, control_plane, process, "app-000")

    harness.declare(fleet(LARGE), "ten times the WebApps")
    assert eventually(lambda: len(harness.names("deployment")) == LARGE, 300), process.log()
    settled(process)
    large = correction(harness, control_plane, process, "app-001")

    assert small[:2] == large[:2], f"at {SMALL}: {small}; at {LARGE}: {large}"
    requests, own = large[:2]
    assert requests == {
        "deployments/scale PATCH": 1,  # the person's scale
        "deployments APPLY": 1,  # put back, with no dry-run before it
        "webapps/status APPLY": 1,  # its new generation is not observed yet
        "events POST": 1,
    }
    assert own == 4  # those three, and its record in the history (the head, kept, written)
    # The WebApp and its Deployment, whatever the fleet, in each reconcile: the correction,
    # and at most one more when the apply's own event came back before its answer (told
    # apart only afterwards; that reconcile finds nothing to do and sends nothing).
    for _, _, visited, work in (small, large):
        assert work in (1, 2), (small, large)
        assert visited == 2 * work, (small, large)


def test_a_status_change_alone_writes_only_a_status_that_moved(
    harness: Harness,
    control_plane: launcher.ControlPlane,
    watch_kubeconfig: Path,
    watching: list[Watching],
) -> None:
    harness.declare(fleet(3))
    process = start(harness, watch_kubeconfig, watching, *LONG_LEASE)
    assert eventually(process.ready, 120), process.log()
    quiet(harness)
    settled(process)

    def controller_writes(status: dict[str, object]) -> tuple[Counter[str], int, float, float]:
        measured = Measured(control_plane, process)
        refreshed = process.metric("driftctl_watch_work_total", urgency="status")
        harness.kubectl(
            "patch", "deployment", "app-001", "-n", harness.namespace, "--subresource=status",
            "--type=merge", "-p", json.dumps({"status": status}),
        )  # fmt: skip
        assert eventually(
            lambda: process.metric("driftctl_watch_work_total", urgency="status") > refreshed, 30
        ), process.log()
        assert eventually(idle(process), 30), process.log()
        return measured.end()

    unmoved = controller_writes({"replicas": 1, "unavailableReplicas": 1})
    assert unmoved == (Counter({"deployments/status PATCH": 1}), 0, 2, 1)

    generation = (harness.get("deployment", "app-001") or {})["metadata"]["generation"]
    moved = controller_writes(
        {
            "observedGeneration": generation,
            "replicas": 1,
            "updatedReplicas": 1,  # the rollout is complete: Ready (issue 19)
            "readyReplicas": 1,
            "availableReplicas": 1,
        }
    )
    assert moved == (
        Counter({"deployments/status PATCH": 1, "webapps/status APPLY": 1}),
        1,
        2,
        1,
    )
    webapp = harness.get("webapp", "app-001") or {}
    assert webapp["status"]["ready"] is True
