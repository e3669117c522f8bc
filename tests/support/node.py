"""kubectl against a node's control plane, and the waits the node tests share.

Everything goes through the real kubectl built with the control plane. Reaching a Pod is
guarded: its address must route through the node's own bridge, never off the machine.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Callable
from typing import Any

from tests.controlplane import launcher, leftovers

WAIT_SECONDS = 90.0


class NodeCluster:
    """One control plane with a node, driven with kubectl as admin."""

    def __init__(self, plane: launcher.ControlPlane) -> None:
        assert plane.node is not None, "the control plane has no node"
        self.plane = plane
        self.node = plane.node
        self.kubectl = [str(plane.bin_dir / "kubectl"), f"--kubeconfig={plane.kubeconfig}"]

    def run(self, *args: str, stdin: str | None = None) -> str:
        done = subprocess.run(
            [*self.kubectl, *args], input=stdin, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout

    def apply(self, *documents: dict[str, Any]) -> None:
        manifest = {"apiVersion": "v1", "kind": "List", "items": list(documents)}
        self.run("apply", "--server-side", "-f", "-", stdin=json.dumps(manifest))

    def get(self, *args: str) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.run("get", "-o", "json", *args))
        return loaded


def wait_for(what: str, found: Callable[[], Any], seconds: float = WAIT_SECONDS) -> Any:
    """Poll `found` until it returns something truthy, and return that."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what}: not within {seconds:.0f}s")


def routes_through_bridge(address: str) -> bool:
    """Whether the kernel sends packets for `address` through the node's bridge."""
    done = subprocess.run(
        ["ip", "-j", "route", "get", address], capture_output=True, text=True, check=True
    )
    routes: list[dict[str, Any]] = json.loads(done.stdout)
    return bool(routes) and routes[0].get("dev") == leftovers.BRIDGE


def fetch_from_pod(address: str, port: int) -> str:
    """GET / from a Pod on the bridge network (refused unless it routes through the bridge)."""
    assert routes_through_bridge(address), f"{address} does not route through the bridge"
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with direct.open(f"http://{address}:{port}/", timeout=10) as answer:
        body: bytes = answer.read()
        return body.decode()
