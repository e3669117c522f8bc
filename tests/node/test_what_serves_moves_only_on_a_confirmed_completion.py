"""What serves, with real Pods: a completion seen for a moment never records a revision,
and a crash loop that starts after a rollout completed is seen by `watch`.

One node, the project's own images (tests/controlplane/testimages.py):
- `localhost/up-then-crash:6` is ready for 6 s each time it starts, then exits 1: a
  WebApp of one replica of it completes its rollout for moments (the Deployment counts the
  Pod available while it is up, and takes the old Pod away). Runs of `apply` without
  `--wait`, one after the other, and `watch`, see those moments and say Ready, yet the
  commit never becomes `servingRevision`: the new Pod was never ready 10 s without a
  break (core.planning.status.confirmed).
- `localhost/up-then-crash:25` is ready for 25 s, then exits 1: under `watch` its rollout
  completes and is confirmed (it serves), then the Pod crashes. The Deployment's status
  moves (its available replicas drop) and the watch, which watches Deployments, turns the
  WebApp not Ready: how long after the container's exit is measured (printed, never
  asserted).

driftctl runs on the host as the CronJob's ServiceAccount, against the node's control
plane (tests/support/node_fixtures.py).
"""

from __future__ import annotations

import datetime
import json
import time
from pathlib import Path

import pytest

from driftctl.kube_formats import parse_api_time
from tests.controlplane import launcher, testimages
from tests.support.control_plane import operator_kubeconfig
from tests.support.harness import Harness, Obj, eventually
from tests.support.watching import Watching

MOMENTS = 6  # seconds a Pod of the first image is up before it crashes (< 10)
LATE = 25  # seconds a Pod of the second is up
WATCHED = 60.0  # seconds each test looks at the moments


@pytest.fixture(scope="module", autouse=True)
def images(node_plane: launcher.ControlPlane) -> None:
    for seconds in (MOMENTS, LATE):
        launcher.import_image(node_plane, testimages.up_then_crash_image(seconds))


@pytest.fixture
def harness(node_harness: Harness) -> Harness:
    return node_harness


@pytest.fixture(scope="module")
def watch_account(
    node_plane: launcher.ControlPlane, node_account: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A ServiceAccount with operator/'s RBAC (the CronJob's, plus watch) on the node's plane."""
    kubectl = [str(node_plane.bin_dir / "kubectl"), f"--kubeconfig={node_plane.kubeconfig}"]
    return operator_kubeconfig(node_plane, kubectl, "driftctl-watch", tmp_path_factory)


def status_of(harness: Harness) -> Obj:
    status: Obj = (harness.get("webapp", "web") or {}).get("status") or {}
    return status


def served_hello(harness: Harness) -> str:
    """Git declares one replica of `localhost/hello:1`; `apply --wait` rolls it out and
    confirms it: it serves."""
    commit = harness.declare({"web": (testimages.hello_image_name(1), 1)}, "hello")
    ran = harness.driftctl("apply", "--wait", "--wait-timeout", "90", timeout=180)
    assert ran.code == 0, ran.out + ran.err
    assert status_of(harness)["servingRevision"] == commit
    return commit


def moments(harness: Harness, served: str, look: object) -> tuple[int, int]:
    """Look (`look()`) for WATCHED seconds: what serves never moves from `served`. The
    looks, and how many saw the WebApp Ready (the moments a crash-looping Pod is up)."""
    looks = ready = 0
    give_up = time.monotonic() + WATCHED
    while time.monotonic() < give_up:
        look()  # type: ignore[operator]
        status = status_of(harness)
        assert status.get("servingRevision") == served, json.dumps(status, indent=1)
        looks += 1
        ready += bool(status.get("ready"))
    return looks, ready


def test_runs_without_wait_never_record_a_completion_seen_for_a_moment(harness: Harness) -> None:
    served = served_hello(harness)
    harness.declare({"web": (testimages.up_then_crash_image_name(MOMENTS), 1)}, "moments")

    def apply() -> None:
        ran = harness.driftctl("apply")
        assert ran.code == 0, ran.out + ran.err

    looks, ready = moments(harness, served, apply)

    print(f"\n{looks} runs without --wait; Ready after {ready} of them; nothing served")


def test_watch_never_records_a_completion_seen_for_a_moment(
    harness: Harness, watch_account: Path, watching: list[Watching]
) -> None:
    served = served_hello(harness)
    watching.append(Watching(harness, watch_account))
    harness.declare({"web": (testimages.up_then_crash_image_name(MOMENTS), 1)}, "moments")

    looks, ready = moments(harness, served, lambda: time.sleep(0.2))

    deployment = harness.get("deployment", "web") or {}
    image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == testimages.up_then_crash_image_name(MOMENTS), watching[0].log()
    print(f"\nwatch: Ready at {ready} of {looks} looks; nothing served")


def crashed_at(harness: Harness) -> datetime.datetime | None:
    """When the WebApp's Pod's container last exited, as its kubelet says."""
    listed = json.loads(harness.kubectl("get", "pods", "-n", harness.namespace, "-o", "json"))
    for pod in listed["items"]:
        for container in pod["status"].get("containerStatuses") or []:
            for state in (container.get("state") or {}, container.get("lastState") or {}):
                finished = (state.get("terminated") or {}).get("finishedAt")
                if finished:
                    return parse_api_time(finished)
    return None


def test_watch_sees_a_crash_loop_that_starts_after_the_rollout_completed(
    harness: Harness, watch_account: Path, watching: list[Watching]
) -> None:
    late = harness.declare({"web": (testimages.up_then_crash_image_name(LATE), 1)}, "late")
    watching.append(Watching(harness, watch_account))

    def serving() -> bool:
        status = status_of(harness)
        return bool(status.get("ready")) and status.get("servingRevision") == late

    assert eventually(serving, 90), watching[0].log()  # complete, and confirmed
    not_ready: list[Obj] = []

    def turned() -> bool:
        status = status_of(harness)
        if status.get("ready") is False:
            not_ready.append(status)
        return bool(not_ready)

    assert eventually(turned, LATE + 60), watching[0].log()
    crashed = crashed_at(harness)
    [condition] = [c for c in not_ready[0]["conditions"] if c["type"] == "Ready"]
    seen = parse_api_time(condition["lastTransitionTime"])
    assert crashed is not None
    assert seen is not None
    print(f"\nwatch: not Ready {(seen - crashed).total_seconds():.0f} s after the container exited")
    assert condition["reason"] in ("ReplicasUnavailable", "CrashLoopBackOff"), condition
    assert not_ready[0]["servingRevision"] == late  # it served; it fails now
