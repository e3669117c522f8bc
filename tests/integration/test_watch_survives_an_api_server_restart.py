"""`driftctl watch` while its API server goes away and comes back, on a control plane of
its own (tests/controlplane/launcher.py: kube-apiserver stopped and started again on the
same port and the same etcd; etcd compacted through its loopback client URL).

- restarted (killed, as a crash): the same process reconnects (new WATCHes), writes
  nothing because of it (every resourceVersion unchanged), and still puts back a later
  `kubectl scale`. (The restarted server's watch cache starts at etcd's current revision,
  past the watch's resourceVersion, so in practice this reconnect also lists again after
  410 Gone; a WATCH the server merely ended is resumed from its resourceVersion, a path
  this module does not reach: the server ends a WATCH only after 300 s.);
- restarted over a compacted etcd: the watch's resourceVersion is gone, the server
  answers 410 Gone, the informers list again, nothing is written, and a later scale is
  still put back;
- down for longer than the renew deadline: the leader stops (exit 6) on its own, before
  its Lease could expire for a standby.
The Lease is long (--lease-duration 600) where the leader must outlive the restart, so a
slow start of the API server on a loaded machine is not a lost Lease. Waits are short
polls on conditions; nothing here asserts a time.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controlplane import launcher
from tests.controlplane.processes import alive, command_line
from tests.support.control_plane import account_kubeconfig, for_account, own_control_plane
from tests.support.gitrepos import Repo
from tests.support.harness import Harness, eventually
from tests.support.kustomize import account
from tests.support.paths import ROOT
from tests.support.watching import Watching, replicas, settled, start

ACCOUNT = "driftctl-watch"
APISERVER = "kube-apiserver"
LONG_LEASE = ("--lease-duration", "600")


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[launcher.ControlPlane]:
    with own_control_plane(tmp_path_factory.mktemp("restarted-plane")) as plane:
        yield plane


@pytest.fixture(scope="module")
def admin(plane: launcher.ControlPlane) -> list[str]:
    return [str(plane.bin_dir / "kubectl"), f"--kubeconfig={plane.kubeconfig}"]


@pytest.fixture(scope="module")
def watch_kubeconfig(
    plane: launcher.ControlPlane, admin: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A ServiceAccount with operator/'s RBAC, on this module's control plane."""
    documents = [
        d if d["kind"] == "Namespace" else for_account(d, ACCOUNT)
        for d in account(plane.bin_dir / "kubectl", ROOT / "operator")
    ]
    return account_kubeconfig(plane, admin, documents, ACCOUNT, tmp_path_factory)


@pytest.fixture
def harness(
    request: pytest.FixtureRequest, admin: list[str], watch_kubeconfig: Path, tmp_path: Path
) -> Harness:
    short = request.node.name.removeprefix("test_")[:30].replace("_", "-").rstrip("-")
    namespace = f"restart-{short}"
    subprocess.run([*admin, "create", "namespace", namespace], check=True, capture_output=True)
    return Harness(Repo(tmp_path / "repo"), namespace, namespace, watch_kubeconfig, admin)


@pytest.fixture(scope="module")
def apiserver_argv(plane: launcher.ControlPlane) -> list[str]:
    """How the API server was started, to start it again if a test left it down."""
    return command_line(plane.pids[APISERVER])


@pytest.fixture
def restart(
    plane: launcher.ControlPlane, apiserver_argv: list[str]
) -> Iterator[launcher.ControlPlane]:
    """The plane, its API server started again after the test if the test left it down."""
    yield plane
    current = launcher.read_state(plane.folder) or plane
    if not alive(current.pids[APISERVER]):
        launcher.start_component(plane.folder, APISERVER, apiserver_argv)


def watches(process: Watching) -> float:
    return process.metric("driftctl_watch_watches_webapps") + process.metric(
        "driftctl_watch_watches_deployments"
    )


def lists(process: Watching) -> float:
    return process.metric("driftctl_watch_lists_webapps") + process.metric(
        "driftctl_watch_lists_deployments"
    )


def down_and_up(process: Watching, plane: launcher.ControlPlane, *, compact: bool) -> None:
    """Kill the API server, wait until the watch noticed, (compact etcd,) start it again."""
    argv = launcher.stop_component(plane.folder, APISERVER, crash=True)
    assert eventually(lambda: process.said("unreachable"), 60), process.log()
    if compact:
        launcher.compact_etcd(plane.folder)
    launcher.start_component(plane.folder, APISERVER, argv)


def scale_is_put_back(harness: Harness, process: Watching) -> None:
    harness.kubectl("scale", "deployment", "shop", "-n", harness.namespace, "--replicas", "5")
    assert eventually(lambda: replicas(harness, "shop") == 2, 60), process.log()


def test_a_restarted_api_server_is_watched_again_without_a_write(
    harness: Harness, restart: launcher.ControlPlane, watching: list[Watching]
) -> None:
    harness.declare({"shop": ("nginx:1.27", 2), "blog": ("nginx:1.27", 1)})
    process = start(harness, harness.kubeconfig, watching, *LONG_LEASE)
    assert eventually(process.ready, 60), process.log()
    settled(process)
    versions, watched = harness.versions(), watches(process)

    down_and_up(process, restart, compact=False)

    assert eventually(lambda: watches(process) >= watched + 4, 60), process.log()
    settled(process)
    assert process.process.poll() is None, "the same process recovered"
    assert harness.versions() == versions, "reconnecting wrote nothing"
    scale_is_put_back(harness, process)
    assert process.stop() == 0, process.log()


def test_a_compacted_history_is_listed_again_on_410_gone(
    harness: Harness, restart: launcher.ControlPlane, watching: list[Watching]
) -> None:
    harness.declare({"shop": ("nginx:1.27", 2)})
    process = start(harness, harness.kubeconfig, watching, *LONG_LEASE)
    assert eventually(process.ready, 60), process.log()
    settled(process)
    versions, listed = harness.versions(), lists(process)

    down_and_up(process, restart, compact=True)

    assert eventually(lambda: lists(process) >= listed + 2, 60), process.log()
    assert process.said("410 Gone, listing again")
    settled(process)
    assert process.process.poll() is None
    assert harness.versions() == versions, "listing again wrote nothing"
    scale_is_put_back(harness, process)
    assert process.stop() == 0, process.log()


def test_a_leader_cut_off_past_its_renew_deadline_stops_with_exit_6(
    harness: Harness, restart: launcher.ControlPlane, watching: list[Watching]
) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    process = start(harness, harness.kubeconfig, watching, "--lease-duration", "6")
    assert eventually(process.ready, 60), process.log()

    argv = launcher.stop_component(restart.folder, APISERVER, crash=True)

    assert process.process.wait(60) == 6, process.log()
    assert process.said("could not renew the Lease within its renew deadline (4s"), process.log()
    launcher.start_component(restart.folder, APISERVER, argv)
