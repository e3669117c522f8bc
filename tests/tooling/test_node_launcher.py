"""`python -m tests.controlplane start --node` runs Pods; `stop` leaves nothing behind.

Nothing behind means: no process of the node (its containers included), no mount under
its folder, and outside the folder everything as it was before the start: the places
containerd, the CNI plugins and the kubelet write to, network namespaces, the bridge,
the kubepods cgroups and IPv4 forwarding.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.controlplane import launcher, leftovers, testimages
from tests.controlplane.processes import alive, descendants
from tests.support.node import NodeCluster, wait_for
from tests.support.node_fixtures import require_root
from tests.support.paths import ROOT

pytestmark = pytest.mark.node


def launch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.controlplane", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def outside(folder: Path) -> dict[str, object]:
    """What a node may change outside its folder, and the mounts inside it."""
    places = [*leftovers.PLACES, Path("/run/netns")]  # the latter must stay untouched
    return {
        "files": sorted(str(p) for place in places if place.exists() for p in place.rglob("*")),
        "places": [str(place) for place in places if place.exists()],
        "mounts": sorted(point for point, _ in leftovers.mounts() if str(folder) in point),
        "cgroups": [str(path) for path in leftovers.cgroup_dirs() if path.exists()],
        "bridge": Path(f"/sys/class/net/{leftovers.BRIDGE}").exists(),
        "ip_forward": leftovers.IP_FORWARD.read_text(),
    }


def run_a_pod(plane: launcher.ControlPlane) -> None:
    launcher.import_image(plane, testimages.hello_image(1))
    cluster = NodeCluster(plane)
    cluster.run("run", "hello", f"--image={testimages.hello_image_name(1)}")
    wait_for(
        "the Pod Running",
        lambda: cluster.get("pod", "hello")["status"].get("phase") == "Running",
    )


def test_start_node_runs_pods_and_stop_leaves_no_process_mount_or_file_behind(
    node_folder: Path,
) -> None:
    require_root()
    folder = node_folder / "plane"
    before = outside(folder)

    started = launch("start", "--node", "--dir", str(folder))
    assert started.returncode == 0, started.stderr
    plane = launcher.read_state(folder)
    assert plane is not None
    assert plane.node is not None
    run_a_pod(plane)
    up = launch("status", "--dir", str(folder))
    running = outside(folder)
    shims = leftovers.shims(plane.node.layout.socket)
    containers = descendants(shims)
    # Stop while the kubelet tears the Pod down: a half-removed Pod must not stay behind.
    NodeCluster(plane).run("delete", "pod", "hello", "--wait=false")
    stopped = launch("stop", "--dir", str(folder))

    assert (up.returncode, up.stdout.strip()) == (
        0,
        f"up {plane.server}, node {plane.node.name} Ready",
    )
    assert shims
    assert containers
    assert running["bridge"]
    assert running["mounts"]
    assert stopped.stdout.strip() == (
        "stopped: kubelet, kube-scheduler, containerd, "
        "kube-controller-manager, kube-apiserver, etcd"
    )
    assert [pid for pid in [*plane.pids.values(), *shims, *containers] if alive(pid)] == []
    assert outside(folder) == before
