"""driftctl SIGKILLed at each step of a prune and of a create: the next run finishes the work.

The kill is deterministic: tests/support/faultproxy.py holds the chosen request, the test kills
driftctl while it waits for the answer, then lets the request reach the API server (the
write happened, the answer was never read) or drops it (the write never happened). The
next run, after `driftctl unlock` (the dead run's Lease would make it wait for expiry,
which test_run_lock_is_taken_over_from_a_killed_holder covers), plans the rest and
carries it out: nothing stays Terminating, nothing is made twice, and a run after it has
nothing to do.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from driftctl import conventions as c
from tests.support.faultproxy import Fault, FaultProxy, Hold
from tests.support.harness import Harness, eventually

Kill = tuple[tuple[str, Any], bool, str]  # (method, path or path maker), forward?, plan line

APPS = {"shop": ("nginx:1.27", 1), "blog": ("nginx:1.27", 1)}


def webapps(namespace: str, rest: str = "") -> str:
    return f"/apis/{c.GROUP}/{c.VERSION}/namespaces/{namespace}/{c.PLURAL}/{rest}"


def deployments(namespace: str, rest: str = "") -> str:
    return f"/apis/apps/v1/namespaces/{namespace}/deployments/{rest}"


def killed_at(
    harness: Harness,
    proxy: FaultProxy,
    proxied: Path,
    fault: tuple[str, str],
    forward: bool,
) -> None:
    """Run apply through the proxy, SIGKILL it while `fault` (method, path) is held, then
    forward or drop that request."""
    method, path = fault
    hold = Hold()
    proxy.inject(Fault(hold, method=method, path=path, dry_run=False))
    running = dataclasses.replace(harness, kubeconfig=proxied).start("apply", "--concurrency", "1")
    try:
        assert hold.held.wait(60), f"apply never sent {method} {path}"
        running.kill()
        running.wait(timeout=30)
    finally:
        running.kill()
    seen = len([e for e in proxy.exchanges if (e.method, e.path) == (method, path)])
    hold.release(forward=forward)
    assert eventually(
        lambda: len([e for e in proxy.exchanges if (e.method, e.path) == (method, path)]) > seen,
        30,
    )


def nothing_terminating(harness: Harness) -> bool:
    listed = json.loads(
        harness.kubectl("get", "webapps,deployments", "-n", harness.namespace, "-o", "json")
    )
    return all("deletionTimestamp" not in item["metadata"] for item in listed["items"])


def finished_by_the_next_run(harness: Harness, planned_line: str) -> None:
    assert harness.driftctl("unlock").code == 0
    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")
    again = harness.driftctl("apply")

    assert planned_line in planned.out, planned.out
    assert applied.code == 0, applied.out + applied.err
    assert again.out.splitlines()[-1].startswith("Apply: 0 created, 0 configured, 0 deleted, ")
    assert again.out.splitlines()[-1].endswith(" 0 failed")
    assert nothing_terminating(harness)


PRUNE_STEPS = [
    pytest.param((("DELETE", "webapp"), False, "prune"), id="before-the-webapp-delete"),
    pytest.param((("DELETE", "webapp"), True, "cleanup"), id="after-the-webapp-delete"),
    pytest.param((("DELETE", "deployment"), False, "cleanup"), id="before-the-deployment-delete"),
    pytest.param((("DELETE", "deployment"), True, "cleanup"), id="after-the-deployment-delete"),
    pytest.param((("GET", "deployment"), True, "cleanup"), id="waiting-for-the-deployment"),
    pytest.param((("PATCH", "webapp"), False, "cleanup"), id="before-the-finalizer-removal"),
]


@pytest.mark.parametrize("kill", PRUNE_STEPS)
def test_a_prune_killed_at_each_step_is_finished_by_the_next_run(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path, kill: Kill
) -> None:
    step, forward, then = kill
    harness.declare(APPS)
    assert harness.driftctl("apply").code == 0
    shop = harness.get("webapp", "shop")
    harness.declare({"shop": APPS["shop"]}, "drop blog")
    method, kind = step
    path = (webapps if kind == "webapp" else deployments)(harness.namespace, "blog")

    killed_at(harness, fault_proxy, proxied_kubeconfig, (method, path), forward)

    finished_by_the_next_run(harness, f"- WebApp/{harness.namespace}/blog: {then}")
    assert harness.names("webapps") == ["shop"]
    assert harness.names("deployments") == ["shop"]
    assert shop is not None
    assert harness.get("webapp", "shop")["metadata"]["uid"] == shop["metadata"]["uid"]  # type: ignore[index]


CREATE_STEPS = [
    pytest.param(
        (("PATCH", webapps), False, "WebApp/{}/blog: create"), id="before-the-webapp-create"
    ),
    pytest.param(
        (("PATCH", webapps), True, "Deployment/{}/blog: create"), id="after-the-webapp-create"
    ),
    pytest.param(
        (("PATCH", deployments), False, "Deployment/{}/blog: create"),
        id="before-the-deployment-create",
    ),
    pytest.param(
        (("PATCH", deployments), True, "Plan: 2 to create, 0 to update, 0 to prune, 2 unchanged"),
        id="after-the-deployment-create",
    ),
]


@pytest.mark.parametrize("kill", CREATE_STEPS)
def test_a_create_killed_at_each_step_is_finished_by_the_next_run(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path, kill: Kill
) -> None:
    step, forward, then = kill
    harness.declare(APPS)
    method, where = step
    path = where(harness.namespace, "blog")

    killed_at(harness, fault_proxy, proxied_kubeconfig, (method, path), forward)

    finished_by_the_next_run(harness, then.format(harness.namespace))
    assert harness.names("webapps") == ["blog", "shop"]
    assert harness.names("deployments") == ["blog", "shop"]
    blog, deployment = harness.get("webapp", "blog"), harness.get("deployment", "blog")
    assert blog is not None
    assert deployment is not None
    [owner] = deployment["metadata"]["ownerReferences"]
    assert owner["uid"] == blog["metadata"]["uid"]
    assert blog["status"]["observedGeneration"] == blog["metadata"]["generation"]
