"""Answers that say something about the request itself are never sent again.

400, 403, 404, 409 and 422 are injected by tests/support/faultproxy.py on one object's request;
the proxy's record proves it was tried exactly once. What the run does next depends on
when the refusal comes (shell/apply.py):

- on the server-side apply of one object, during `apply`: that object fails, the others
  are applied, exit 5 (DESIGN.md section 8, partial failure). A create gets no dry-run in
  `apply`: its refusal reads as plan's refused dry-run would (the WebApp refused, its
  Deployment skipped), and a 403, which is about driftctl, not the object, stops the run
  (exit 4) as plan's dry-run would;
- on the dry-run of one object, during `plan`: 403 means the cluster refuses driftctl
  itself, so the run stops before any write, exit 4; any other refusal skips that object
  with the server's reason, and the plan goes on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftctl import conventions as c
from tests.support.faultproxy import Answer, Fault, FaultProxy, status_answer
from tests.support.harness import Harness

APPS = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.28", 1)}
FORBIDDEN = 403

REFUSALS = [
    pytest.param(status_answer(400, "the body is not valid YAML"), "400 BadRequest", id="400"),
    pytest.param(
        status_answer(403, 'webapps.example.com "shop" is forbidden'), "403 Forbidden", id="403"
    ),
    pytest.param(
        status_answer(404, "the server could not find the requested resource"),
        "404 NotFound",
        id="404",
    ),
    pytest.param(
        status_answer(409, "Operation cannot be fulfilled: the object has been modified"),
        "409 Conflict",
        id="409",
    ),
    pytest.param(
        status_answer(422, 'WebApp.example.com "shop" is invalid: spec.replicas: Invalid value'),
        "422 Invalid",
        id="422",
    ),
]


def webapp_path(namespace: str, name: str) -> str:
    return f"/apis/{c.GROUP}/{c.VERSION}/namespaces/{namespace}/{c.PLURAL}/{name}"


def on_shop(answer: Answer, *, dry_run: bool) -> Fault:
    return Fault(answer, method="PATCH", path=f"/{c.PLURAL}/shop", dry_run=dry_run)


def message_of(answer: Answer) -> str:
    return str(json.loads(answer.body)["message"])


@pytest.mark.parametrize(("answer", "reason"), REFUSALS)
def test_a_refused_apply_fails_that_object_once_and_the_others_are_applied(
    harness: Harness,
    fault_proxy: FaultProxy,
    proxied_kubeconfig: Path,
    answer: Answer,
    reason: str,
) -> None:
    harness.declare(APPS)
    fault_proxy.inject(on_shop(answer, dry_run=False))

    applied = harness.driftctl("apply", kubeconfig=proxied_kubeconfig)

    ns = harness.namespace
    assert fault_proxy.statuses("PATCH", webapp_path(ns, "shop")) == [answer.status]
    if answer.status == FORBIDDEN:
        # About driftctl, not the object: the run stops, as plan's dry-run would have made it.
        assert applied.code == 4, applied.err
        assert applied.err.splitlines()[-1] == (
            f"error: apply WebApp/{ns}/shop: {reason}: {message_of(answer)}"
        )
        assert "shop" not in harness.names("webapps")
        return
    assert applied.code == 5, applied.err
    lines = applied.out.splitlines()
    # The create had no dry-run: its own refusal reads as plan's refused dry-run would.
    refused = f"the API server refused the create: {reason}: {message_of(answer)}"
    assert f"failed WebApp/{ns}/shop: {refused}" in lines
    assert (
        f"skipped Deployment/{ns}/shop: its WebApp cannot be applied (WebApp/{ns}/shop was refused)"
    ) in lines
    assert lines[-1] == (
        "Apply: 2 created, 0 configured, 0 deleted, 0 unchanged, 1 skipped, 1 failed"
    )
    assert harness.names("webapps") == ["blog"]
    assert harness.names("deployments") == ["blog"]


@pytest.mark.parametrize(("answer", "reason"), REFUSALS)
def test_a_refused_dry_run_is_tried_once_and_skips_the_object_or_stops_the_run(
    harness: Harness,
    fault_proxy: FaultProxy,
    proxied_kubeconfig: Path,
    answer: Answer,
    reason: str,
) -> None:
    harness.declare(APPS)
    fault_proxy.inject(on_shop(answer, dry_run=True))

    planned = harness.driftctl("plan", kubeconfig=proxied_kubeconfig)

    ns = harness.namespace
    assert fault_proxy.statuses("PATCH", webapp_path(ns, "shop"), dry_run=True) == [answer.status]
    if answer.status == 403:
        assert (planned.code, planned.out) == (4, "")
        assert planned.err.splitlines() == [
            f"error: dry-run apply WebApp/{ns}/shop: {reason}: {message_of(answer)}"
        ]
    else:
        assert planned.code == 5, planned.err  # what apply gives: it would fail that WebApp
        lines = planned.out.splitlines()
        assert (
            f"! WebApp/{ns}/shop: skip (the API server refused the dry-run: "
            f"{reason}: {message_of(answer)})"
        ) in lines
        assert f"+ WebApp/{ns}/blog: create (declared in Git, absent from the cluster)" in lines
        # The plan stays exact: the Deployment waiting for the refused WebApp is skipped too.
        assert (
            f"! Deployment/{ns}/shop: skip (its WebApp cannot be applied "
            f"(WebApp/{ns}/shop was refused))"
        ) in lines
        assert lines[-1].endswith(", 2 skipped")
