"""The run lock when its holder dies or two runs start at once; deletes the server refuses.

Faults are real bytes through tests/support/faultproxy.py: a request held until the test lets it
go, or answered by the proxy as the API server would. The lock's holder is killed with
SIGKILL, so it never releases its Lease.
"""

from __future__ import annotations

import dataclasses
import json
import re
import socket
from pathlib import Path

from driftctl import conventions as c
from tests.support.builders import webapp
from tests.support.faultproxy import Fault, FaultProxy, Hold, status_answer
from tests.support.harness import LOCK_NAMESPACE, Harness, eventually

APPS = {"shop": ("nginx:1.27", 1), "blog": ("nginx:1.27", 1), "api": ("nginx:1.27", 1)}


def webapp_path(harness: Harness, name: str) -> str:
    return f"/apis/{c.GROUP}/{c.VERSION}/namespaces/{harness.namespace}/{c.PLURAL}/{name}"


def lease(harness: Harness) -> dict[str, object]:
    found = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE)
    assert found is not None
    spec: dict[str, object] = found["spec"]
    return spec


def test_a_killed_lock_holder_is_waited_for_until_its_lease_expires_then_taken_over(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    harness.declare(APPS)
    hold = Hold()
    fault_proxy.inject(Fault(hold, method="PATCH", path=webapp_path(harness, "blog")))
    killed = dataclasses.replace(harness, kubeconfig=proxied_kubeconfig).start("apply")
    try:
        assert hold.held.wait(60), "the apply never reached blog"
        killed.kill()
        killed.wait(timeout=30)
    finally:
        killed.kill()
    hold.release(forward=False)
    assert lease(harness)["holderIdentity"] == f"{socket.gethostname()}/{killed.pid}"

    at_once = harness.driftctl("apply")  # the CronJob's default: no waiting for a lock
    waited = harness.driftctl("apply", "--lock-timeout", "60")

    assert at_once.code == 6, at_once.out + at_once.err
    assert f"/{killed.pid}" in at_once.err
    assert waited.code == 0, waited.err
    # The killed run got as far as its other chains went before the kill landed (nothing,
    # when the kill beat every answer, as on a loaded machine; at most all but blog's); the
    # next one does exactly the rest.
    summary = re.fullmatch(
        r"Apply: (\d+) created, 0 configured, 0 deleted, (\d+) unchanged, 0 skipped, 0 failed",
        waited.out.splitlines()[-1],
    )
    assert summary is not None, waited.out
    created, unchanged = int(summary[1]), int(summary[2])
    assert created + unchanged == 6, waited.out
    assert created >= 2, waited.out  # blog's WebApp and Deployment, at least
    assert harness.names("deployments") == ["api", "blog", "shop"]
    assert "holderIdentity" not in lease(harness)
    assert lease(harness)["leaseTransitions"] == 1


def test_of_two_runs_started_at_the_same_instant_exactly_one_applies(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    harness.declare(APPS)
    path = f"/apis/coordination.k8s.io/v1/namespaces/{LOCK_NAMESPACE}/leases/"
    holds = [Hold(), Hold()]
    fault_proxy.inject(*(Fault(h, method="GET", path=path) for h in holds))
    proxied = dataclasses.replace(harness, kubeconfig=proxied_kubeconfig)
    runs = [proxied.start("apply"), proxied.start("apply")]
    try:
        assert all(h.held.wait(60) for h in holds), "both runs read the free Lease"
        for h in holds:  # both saw no Lease: both try to create it
            h.release(forward=True)
        ended = [run.communicate(timeout=120) for run in runs]
    finally:
        for run in runs:
            run.kill()

    creates = [
        e for e in fault_proxy.exchanges if e.method == "POST" and e.path == path.rstrip("/")
    ]
    assert sorted(e.status for e in creates) == [201, 409]  # one won the Lease
    # The other gives up (exit 6), or, when the winner was done within its one re-read a
    # second later, takes the free Lease and finds nothing to do: never both writing.
    last = sorted(
        (run.returncode, out.splitlines()[-1] if out else err)
        for run, (out, err) in zip(runs, ended, strict=True)
    )
    assert last[0] == (
        0,
        "Apply: 6 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed",
    ) or last[0][1].startswith("Apply: 0 created"), last
    assert last[1][0] == 6 or last == [
        (0, "Apply: 0 created, 0 configured, 0 deleted, 6 unchanged, 0 skipped, 0 failed"),
        (0, "Apply: 6 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"),
    ], last
    writes = [e for e in fault_proxy.exchanges if e.method == "PATCH" and not e.dry_run]
    assert len([e for e in writes if e.path.endswith(("/api", "/blog", "/shop"))]) == 6
    assert harness.names("webapps") == ["api", "blog", "shop"]


def converged_then_dropped(harness: Harness) -> dict[str, str]:
    harness.declare(APPS)
    assert harness.driftctl("apply").code == 0
    harness.declare({"shop": APPS["shop"]}, "drop blog and api")
    listed = json.loads(harness.kubectl("get", "webapps", "-n", harness.namespace, "-o", "json"))
    return {i["metadata"]["name"]: i["metadata"]["uid"] for i in listed["items"]}


def test_a_delete_refused_by_rbac_keeps_that_object_deletes_nothing_else_and_is_retried(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    uids = converged_then_dropped(harness)
    forbidden = status_answer(403, 'webapps.example.com "blog" is forbidden: cannot delete')
    fault_proxy.inject(Fault(forbidden, method="DELETE", path=webapp_path(harness, "blog")))

    refused = harness.driftctl("apply", "--max-prune", "2", kubeconfig=proxied_kubeconfig)

    assert refused.code == 5, refused.out + refused.err
    assert f"failed WebApp/{harness.namespace}/blog: 403 Forbidden" in refused.out
    assert f"deleted WebApp/{harness.namespace}/api" in refused.out
    blog = harness.get("webapp", "blog")
    assert blog is not None
    assert "deletionTimestamp" not in blog["metadata"]
    assert harness.names("webapps") == ["blog", "shop"]
    assert harness.names("deployments") == ["blog", "shop"]
    assert harness.get("webapp", "shop")["metadata"]["uid"] == uids["shop"]  # type: ignore[index]

    retried = harness.driftctl("apply", "--max-prune", "2")

    assert retried.code == 0, retried.err
    assert f"deleted WebApp/{harness.namespace}/blog" in retried.out
    assert harness.names("webapps") == ["shop"]
    assert harness.names("deployments") == ["shop"]


def test_a_delete_refused_because_a_person_recreated_the_object_keeps_theirs(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    uids = converged_then_dropped(harness)
    hold = Hold()
    fault_proxy.inject(Fault(hold, method="DELETE", path=webapp_path(harness, "blog")))
    running = dataclasses.replace(harness, kubeconfig=proxied_kubeconfig).start(
        "apply", "--concurrency", "1", "--max-prune", "2"
    )
    try:
        assert hold.held.wait(60), "the apply never deleted blog"
        # A racing writer: the planned blog goes away and a person makes another one.
        harness.kubectl(
            "patch", "webapp/blog", "-n", harness.namespace, "--type=merge",
            "-p", '{"metadata":{"finalizers":null}}',
        )  # fmt: skip
        harness.kubectl("delete", "webapp/blog", "-n", harness.namespace)
        harness.kubectl("apply", "-n", harness.namespace, "-f", "-", stdin=webapp("blog"))
        hold.release(forward=True)  # the uid precondition now fails: 409
        out, err = running.communicate(timeout=120)
    finally:
        running.kill()

    assert running.returncode == 5, out + err
    assert f"failed WebApp/{harness.namespace}/blog: 409 Conflict" in out
    assert f"deleted WebApp/{harness.namespace}/api" in out
    theirs = harness.get("webapp", "blog")
    assert theirs is not None
    assert theirs["metadata"]["uid"] != uids["blog"]
    assert "deletionTimestamp" not in theirs["metadata"]

    again = harness.driftctl("apply")

    assert again.code == 0, again.err
    assert harness.names("webapps") == ["blog", "shop"]  # theirs: not this instance's to prune
    assert eventually(lambda: harness.names("deployments") == ["shop"], 30)
