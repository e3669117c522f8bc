"""`driftctl watch` on the real control plane, as a real process with operator/'s RBAC.

- a Deployment scaled by hand is put back, with no other action, and no write of its own
  stays remembered once its event came back; the reconcile records itself in the history;
- a quiet period with nothing drifted writes nothing and lists nothing: the API server
  counts only the watch's own requests (its WATCHes and Lease writes, as it reports them);
- a WebApp deleted by hand is cleaned up and created again; a Git commit is applied, and a
  WebApp removed from Git is pruned, within a few polls; then a batch `plan` finds the
  cluster equal to Git (the watch did what apply would);
- SIGTERM releases the Lease and a standby takes over.
Waits are short polls on conditions, bounded; nothing here asserts a time.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.controlplane import launcher
from tests.support.control_plane import (
    Requests,
    delta,
    quiet,
    request_counts,
)
from tests.support.harness import LOCK_NAMESPACE, Harness, eventually
from tests.support.watching import Watching, replicas, settled, start

WATCH_ACCOUNT = "driftctl-watch"
WRITES = frozenset({"APPLY", "PATCH", "POST", "PUT", "CREATE", "UPDATE", "DELETE"})


def watches_started(process: Watching) -> float:
    """The WATCH requests the process started: of WebApps, Deployments and autoscalers."""
    kinds = ("webapps", "deployments", "horizontalpodautoscalers")
    return sum(process.metric(f"driftctl_watch_watches_{kind}") for kind in kinds)


def own_requests(process: Watching) -> float:
    """The requests the process says it sent that a quiet period may have: its Lease
    writes and the WATCHes it started."""
    return process.metric("driftctl_watch_lease_writes_total") + watches_started(process)


def counted_alike(
    control_plane: launcher.ControlPlane, process: Watching
) -> tuple[Requests, float]:
    """The API server's request counts and the process's own count, read where neither
    moved for half a second: the server counts a request as it ends, which can be after
    its client had the answer and counted it."""
    for _ in range(40):  # a quiet watch writes its Lease every few seconds
        own, counts = own_requests(process), request_counts(control_plane)
        time.sleep(0.5)
        again = request_counts(control_plane)
        if own_requests(process) == own and again.service_accounts == counts.service_accounts:
            return counts, own
    raise AssertionError(f"the requests never stood still for half a second:\n{process.log()}")


def test_a_scaled_deployment_is_put_back_and_a_quiet_period_writes_nothing(
    harness: Harness,
    control_plane: launcher.ControlPlane,
    watch_kubeconfig: Path,
    watching: list[Watching],
) -> None:
    harness.declare({"shop": ("nginx:1.27", 2), "blog": ("nginx:1.27", 1)})
    process = start(harness, watch_kubeconfig, watching)
    assert eventually(process.ready, 60), process.log()
    assert replicas(harness, "shop") == 2
    quiet(harness)
    settled(process)

    before, own_before = counted_alike(control_plane, process)
    polls = process.metric("driftctl_watch_git_polls_total")
    assert eventually(lambda: process.metric("driftctl_watch_git_polls_total") >= polls + 6, 30)
    after, own_after = counted_alike(control_plane, process)

    touched = delta(before, after, ("webapps", "deployments", "events"))
    assert {series: n for series, n in touched.items() if series[2] in WRITES} == {}
    assert {series: n for series, n in touched.items() if series[2] in ("LIST", "GET")} == {}
    assert after.service_accounts - before.service_accounts == own_after - own_before

    harness.kubectl("scale", "deployment", "shop", "-n", harness.namespace, "--replicas", "5")
    assert eventually(lambda: replicas(harness, "shop") == 2, 30), process.log()
    assert eventually(
        lambda: process.metric("driftctl_watch_drift_correction_seconds_count") >= 1, 10
    )
    assert eventually(lambda: process.said("configured Deployment/"), 10), process.log()
    assert eventually(lambda: process.metric("driftctl_watch_own_writes_pending") == 0, 10), (
        "every write of its own came back as an event and was forgotten"
    )

    planned = harness.driftctl("plan")
    assert planned.code == 0, planned.out + planned.err
    assert process.stop() == 0, process.log()
    # The reconcile that put it back recorded itself in the instance's history.
    history = json.loads(harness.driftctl("history", "shop", "-o", "json").out)["entries"]
    assert [(e["outcome"], e["cause"]) for e in history][:2] == [
        ("configured", "drift"),
        ("created", "git"),
    ]


def test_deleted_webapps_commits_and_removals_from_git_are_reconciled(
    harness: Harness, watch_kubeconfig: Path, watching: list[Watching]
) -> None:
    harness.declare({"shop": ("nginx:1.27", 1), "blog": ("nginx:1.27", 1)})
    process = start(harness, watch_kubeconfig, watching)
    assert eventually(process.ready, 60), process.log()
    first = (harness.get("webapp", "shop") or {})["metadata"]["uid"]

    harness.kubectl("delete", "webapp", "shop", "-n", harness.namespace, "--wait=false")

    def created_again() -> bool:
        webapp, deployment = harness.get("webapp", "shop"), harness.get("deployment", "shop")
        if webapp is None or deployment is None or webapp["metadata"]["uid"] == first:
            return False
        owners = deployment["metadata"].get("ownerReferences") or []
        return [owner["uid"] for owner in owners] == [webapp["metadata"]["uid"]]

    assert eventually(created_again, 60), process.log()

    commit = harness.declare({"shop": ("nginx:1.27", 1), "blog": ("nginx:1.28", 1)})

    def image_applied() -> bool:
        deployment = harness.get("deployment", "blog") or {"spec": {"template": {"spec": {}}}}
        containers = deployment["spec"]["template"]["spec"].get("containers") or [{}]
        return bool(containers[0].get("image") == "nginx:1.28")

    def stamped() -> bool:  # the changed WebApp (an unchanged one keeps its revision, as in apply)
        annotations = (harness.get("webapp", "blog") or {})["metadata"]["annotations"]
        return commit in annotations.values()

    assert eventually(image_applied, 30), process.log()
    assert eventually(stamped, 30), process.log()

    harness.declare({"shop": ("nginx:1.27", 1)})
    assert eventually(lambda: harness.names("webapps") == ["shop"], 60), process.log()
    assert eventually(lambda: harness.names("deployments") == ["shop"], 60), process.log()

    planned = harness.driftctl("plan")
    assert planned.code == 0, planned.out + planned.err
    assert process.stop() == 0, process.log()


def lease_holder(harness: Harness) -> str:
    lease = json.loads(
        harness.kubectl(
            "get", "lease", f"driftctl-{harness.instance}", "-n", LOCK_NAMESPACE, "-o", "json"
        )
    )
    return str(lease["spec"].get("holderIdentity") or "")


def test_sigterm_releases_the_lease_and_a_standby_takes_over(
    harness: Harness, watch_kubeconfig: Path, watching: list[Watching]
) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    leader = start(harness, watch_kubeconfig, watching)
    assert eventually(leader.ready, 60), leader.log()
    standby = start(harness, watch_kubeconfig, watching)
    assert eventually(lambda: standby.said("standby:"), 30), standby.log()
    assert standby.metric("driftctl_watch_leader") == 0
    assert lease_holder(harness).endswith(f"/{leader.process.pid}")

    assert leader.stop() == 0, leader.log()
    assert leader.said("released Lease")

    assert eventually(lambda: standby.metric("driftctl_watch_leader") == 1, 30), standby.log()
    assert lease_holder(harness).endswith(f"/{standby.process.pid}")
    assert eventually(standby.ready, 30)
    harness.kubectl("scale", "deployment", "shop", "-n", harness.namespace, "--replicas", "3")
    assert eventually(lambda: replicas(harness, "shop") == 1, 30), standby.log()

    assert standby.stop() == 0, standby.log()
    assert lease_holder(harness) == ""
