"""Transient failures between driftctl and the API server are retried, on real bytes.

driftctl runs as the CronJob's ServiceAccount through tests/support/faultproxy.py, which answers
429/5xx itself or resets the connection for chosen requests and forwards everything else
to the real API server. The proxy's record proves how many times each request was tried.
Retries stop at the run's --timeout with a clear error, and an unreachable server is
named in a one-line error; neither ends in a traceback.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.faultproxy import (
    Action,
    Answer,
    Delay,
    Fault,
    FaultProxy,
    Reset,
    kubeconfig_for,
    status_answer,
)
from tests.support.harness import LOCK_NAMESPACE, Harness

APPS = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.28", 1)}
WEBAPPS = f"/apis/{c.GROUP}/{c.VERSION}/{c.PLURAL}"  # the cluster-wide LIST driftctl pages
GATEWAY_PAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>\n"


def webapp_path(namespace: str, name: str) -> str:
    return f"/apis/{c.GROUP}/{c.VERSION}/namespaces/{namespace}/{c.PLURAL}/{name}"


def on_list(action: Action, times: int | None = 1) -> Fault:
    return Fault(action, method="GET", path=WEBAPPS, times=times)


def on_apply_of(name: str, action: Answer | Reset) -> Fault:
    """The real (not dry-run) server-side apply of one WebApp, first try only."""
    return Fault(action, method="PATCH", path=f"/{c.PLURAL}/{name}", dry_run=False)


def split_notes(stderr: str) -> tuple[list[str], list[str]]:
    """(retry notes, the other lines) of a run's stderr."""
    lines = stderr.splitlines()
    return [n for n in lines if n.startswith("note: ")], [
        n for n in lines if not n.startswith("note: ")
    ]


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        pytest.param(
            on_list(status_answer(503, "the server is currently unable to handle the request")),
            503,
            id="503-service-unavailable",
        ),
        pytest.param(on_list(status_answer(500, "etcdserver: leader changed")), 500, id="500"),
        pytest.param(
            on_list(Answer(502, (("Content-Type", "text/html"),), GATEWAY_PAGE)),
            502,
            id="502-html-from-a-gateway",
        ),
        pytest.param(
            on_list(status_answer(504, "the request timed out")), 504, id="504-gateway-timeout"
        ),
        pytest.param(
            on_list(status_answer(429, "too many requests", retry_after=1)),
            429,
            id="429-retry-after",
        ),
        pytest.param(on_list(Reset()), 0, id="connection-reset"),
    ],
)
def test_a_transient_failure_of_a_list_page_is_retried_and_plan_succeeds(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path, fault: Fault, status: int
) -> None:
    harness.declare(APPS)
    fault_proxy.inject(fault)

    planned = harness.driftctl("plan", kubeconfig=proxied_kubeconfig)

    assert planned.code == 1
    [retry] = planned.err.splitlines()  # the one retry is reported, for people watching a run
    assert retry.startswith("note: retrying in ")
    assert ": list webapps: " in retry
    assert planned.out.splitlines()[-1] == "Plan: 4 to create, 0 to update, 0 to prune, 0 unchanged"
    assert fault_proxy.statuses("GET", WEBAPPS) == [status, 200]


@pytest.mark.parametrize(
    ("action", "status"),
    [
        pytest.param(status_answer(429, "too many requests", retry_after=1), 429, id="429"),
        pytest.param(status_answer(503, "the server is shutting down"), 503, id="503"),
        pytest.param(Reset(), 0, id="connection-reset"),
    ],
)
def test_a_transient_failure_of_an_apply_is_retried_and_the_object_created(
    harness: Harness,
    fault_proxy: FaultProxy,
    proxied_kubeconfig: Path,
    action: Answer | Reset,
    status: int,
) -> None:
    harness.declare(APPS)
    fault_proxy.inject(on_apply_of("shop", action))

    applied = harness.driftctl("apply", kubeconfig=proxied_kubeconfig)

    assert applied.code == 0, applied.err
    assert applied.out.splitlines()[-1] == (
        "Apply: 4 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"
    )
    assert fault_proxy.statuses("PATCH", webapp_path(harness.namespace, "shop")) == [status, 201]
    assert fault_proxy.statuses("PATCH", webapp_path(harness.namespace, "blog")) == [201]
    assert harness.names("webapps") == ["blog", "shop"]
    assert harness.names("deployments") == ["blog", "shop"]


def test_retries_stop_at_the_run_timeout_with_a_clear_error(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    harness.declare(APPS)
    fault_proxy.inject(on_list(status_answer(503, "etcd is unavailable"), times=None))

    planned = harness.driftctl("plan", "--timeout", "3", kubeconfig=proxied_kubeconfig, timeout=60)

    tries = fault_proxy.statuses("GET", WEBAPPS)
    assert planned.code == 4
    notes, last = split_notes(planned.err)
    assert last == [
        "error: list webapps: 503 ServiceUnavailable: etcd is unavailable",
        f"hint: tried {len(tries)} times; the run's --timeout (3s) leaves no time for another try",
    ]
    assert len(notes) == len(tries) - 1
    assert len(tries) >= 2
    assert set(tries) == {503}


def test_a_stalled_answer_is_bounded_by_the_run_timeout(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    harness.declare(APPS)
    fault_proxy.inject(on_list(Delay(60)))

    planned = harness.driftctl("plan", "--timeout", "2", kubeconfig=proxied_kubeconfig, timeout=60)

    assert planned.code == 4
    error, hint = planned.err.splitlines()
    assert error.startswith(f"error: list webapps: API server {fault_proxy.url} unreachable: ")
    assert "Read timed out" in error
    assert hint == "hint: tried 1 time; the run's --timeout (2s) leaves no time for another try"


def test_an_unreachable_server_is_named_in_a_one_line_error(
    harness: Harness, tmp_path: Path
) -> None:
    harness.declare(APPS)
    server = f"https://127.0.0.1:{launcher.free_port()}"  # nobody listens: a stopped plane
    closed = kubeconfig_for(harness.kubeconfig, server, tmp_path / "closed")

    planned = harness.driftctl("plan", "--timeout", "2", kubeconfig=closed, timeout=60)

    assert planned.code == 4
    _, (error, hint) = split_notes(planned.err)
    lease = f"Lease/{LOCK_NAMESPACE}/driftctl-{harness.instance}"
    assert error == (  # plan's first request: its read of the Lease (a suspension is there)
        f"error: get {lease}: API server {server} unreachable: "
        "Failed to establish a new connection: [Errno 111] Connection refused"
    )
    # Never answered: not retried (issue 23, bug 7), as kubectl fails at once.
    assert hint == (
        "hint: the cluster never answered: is it running, and are the kubeconfig and its "
        "context the ones you mean? (A cluster that never answered is not retried.)"
    )


def test_an_api_server_that_comes_back_within_the_timeout_is_retried(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    harness.declare(APPS)
    fault_proxy.inject(Fault(Reset(), times=None))  # every connection dropped: the server is down
    running = dataclasses.replace(harness, kubeconfig=proxied_kubeconfig).start(
        "apply", "--timeout", "60"
    )
    try:
        while len(fault_proxy.exchanges) < 3 and running.poll() is None:
            time.sleep(0.05)
        fault_proxy.heal()
        out, err = running.communicate(timeout=60)
    finally:
        running.kill()

    assert running.returncode == 0, err
    assert [seen.status for seen in fault_proxy.exchanges[:3]] == [0, 0, 0]
    assert out.splitlines()[-1] == (
        "Apply: 4 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"
    )


@pytest.mark.parametrize("header", ["Retry-After", "retry-after"])
def test_a_retry_after_beyond_the_run_timeout_ends_the_run_without_waiting(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path, header: str
) -> None:
    """Header names are case-insensitive: proxies in front of API servers may lowercase them."""
    harness.declare(APPS)
    busy = status_answer(429, "too many requests", retry_after=30)
    fault_proxy.inject(on_list(Answer(429, ((header, "30"), busy.headers[0]), busy.body)))

    planned = harness.driftctl("plan", "--timeout", "5", kubeconfig=proxied_kubeconfig, timeout=60)

    assert planned.code == 4, planned.out
    assert fault_proxy.statuses("GET", WEBAPPS) == [429]
    assert planned.err.splitlines() == [
        "error: list webapps: 429 TooManyRequests: too many requests",
        "hint: tried 1 time; the run's --timeout (5s) leaves no time for another try",
    ]


def test_a_429_storm_on_every_write_slows_the_run_down_and_it_still_succeeds(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    """API Priority and Fairness pushing back on all writes at once: each is tried again
    after the Retry-After, once; none fails."""
    harness.declare(APPS)
    busy = status_answer(429, "too many requests, please try again later", retry_after=1)
    fault_proxy.inject(Fault(busy, method="PATCH", dry_run=False, times=6))

    applied = harness.driftctl("apply", "--concurrency", "4", kubeconfig=proxied_kubeconfig)

    assert applied.code == 0, applied.err
    assert applied.out.splitlines()[-1] == (
        "Apply: 4 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"
    )
    notes, others = split_notes(applied.err)
    assert others == []
    assert len(notes) == 6
    assert all(note.startswith("note: retrying in 1.0s: ") for note in notes)
    writes = [e for e in fault_proxy.exchanges if e.method == "PATCH" and not e.dry_run]
    assert sorted(e.status for e in writes).count(429) == 6
    assert len(writes) == 6 + 6  # 2 WebApps, 2 Deployments, 2 statuses: each tried twice
