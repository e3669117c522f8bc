"""The seed operator, the kube-rs WebApp operator driftctl was designed from, as tests meet it.

Its CRD (committed as tests/seedoperator/crd.yaml: `seed-webapp-operator crd`), the objects
it leaves in a cluster, and the operator itself: built by tests/seedoperator/build.sh from
its sources outside this repository (`../shared/peers/seed-operator`, or
DRIFTCTL_SEED_OPERATOR) into the cache beside the control plane's binaries.

What the operator writes, as a real one was seen writing it on the test control plane:
- the WebApp, as its user made it (`kubectl apply`), plus the finalizer
  `webapp.example.com/cleanup`, added by a JSON Patch that names no field manager (the API
  server records it as `unknown`);
- its Deployment by server-side apply with field manager `webapp-operator` and force:
  labels, selector and Pod template labels `app=<name>`, one container `app`, the replicas,
  and a controller ownerReference to the WebApp (no blockOwnerDeletion);
- the WebApp's status by server-side apply through the status subresource, same manager:
  `available_replicas` (the Deployment's availableReplicas, 0 when absent) and `ready`
  (available >= spec.replicas).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from driftctl import conventions as c
from tests.support.harness import Harness
from tests.support.paths import ROOT

SEED_CRD_FILE = ROOT / "tests" / "seedoperator" / "crd.yaml"
MANAGER = "webapp-operator"
FINALIZER_MANAGER = "unknown"  # the API server's name for a request naming no manager
_CACHE = Path(
    os.environ.get("DRIFTCTL_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "driftctl"
)
BINARY = _CACHE / "seed-operator" / "release" / "seed-webapp-operator"
Obj = dict[str, Any]


def operator_deployment(namespace: str, name: str, image: str, replicas: int, uid: str) -> Obj:
    """The Deployment the seed operator applies for WebApp `namespace/name` of `uid`."""
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": dict(labels),
            "ownerReferences": [
                {
                    "apiVersion": c.API_VERSION,
                    "kind": c.KIND,
                    "name": name,
                    "uid": uid,
                    "controller": True,
                }
            ],
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "app", "image": image}]},
            },
        },
    }


def operator_status(available: int, replicas: int) -> Obj:
    """The status the seed operator writes: its two fields."""
    return {"available_replicas": available, "ready": available >= replicas}


@dataclass(frozen=True)
class Made:
    """One WebApp the seed operator ran: its spec, the Pods available now, and how many it
    last reported (its status, written when it last reconciled)."""

    image: str
    replicas: int
    available: int
    reported: int


def as_the_operator_left_them(harness: Harness, apps: Mapping[str, Made]) -> None:
    """The seed operator's state in the test's namespace, as it leaves it once stopped:
    each WebApp as its user applied it, with the operator's finalizer; its Deployment as
    the operator applies it (server-side, `webapp-operator`), `available` Pods available
    (written as the Deployment controller would: no node runs them here); the WebApp's
    status as the operator last wrote it."""
    namespace = harness.namespace
    for name, made in apps.items():
        webapp = {
            "apiVersion": c.API_VERSION,
            "kind": c.KIND,
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"image": made.image, "replicas": made.replicas},
        }
        harness.kubectl("apply", "-f", "-", stdin=json.dumps(webapp))
        add_finalizer = [
            {"op": "test", "path": "/metadata/finalizers", "value": None},
            {"op": "add", "path": "/metadata/finalizers", "value": [c.FINALIZER]},
        ]
        harness.kubectl(
            "patch", "webapp", name, "-n", namespace, "--type=json",
            f"--field-manager={FINALIZER_MANAGER}", "-p", json.dumps(add_finalizer),
        )  # fmt: skip
        uid = (harness.get("webapp", name) or {})["metadata"]["uid"]
        deployment = operator_deployment(namespace, name, made.image, made.replicas, uid)
        _apply_as_operator(harness, deployment)
        generation = (harness.get("deployment", name) or {})["metadata"]["generation"]
        running = {
            "observedGeneration": generation,
            "replicas": made.replicas,
            "updatedReplicas": made.replicas,
            "readyReplicas": made.available,
            "availableReplicas": made.available,
        }
        harness.kubectl(
            "patch", "deployment", name, "-n", namespace, "--subresource=status",
            "--type=merge", "-p", json.dumps({"status": running}),
        )  # fmt: skip
        status = {
            "apiVersion": c.API_VERSION,
            "kind": c.KIND,
            "metadata": {"name": name, "namespace": namespace},
            "status": operator_status(made.reported, made.replicas),
        }
        _apply_as_operator(harness, status, "--subresource=status")


def _apply_as_operator(harness: Harness, manifest: Obj, *more: str) -> None:
    harness.kubectl(
        "apply", "--server-side", "--force-conflicts", f"--field-manager={MANAGER}", *more,
        "-f", "-", stdin=json.dumps(manifest),
    )  # fmt: skip


def require_binary() -> Path:
    """The built operator; under CI a test that needs it fails without it, elsewhere skips."""
    if BINARY.is_file():
        return BINARY
    reason = f"the seed operator is not built ({BINARY}); run `make seed-operator`"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; under CI this test never skips")
    pytest.skip(reason)


@contextmanager
def running(kubeconfig: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The seed operator reconciling every WebApp of the cluster `kubeconfig` reaches, until
    the block ends (then stopped, by its own process id)."""
    binary = require_binary()
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "KUBECONFIG": str(kubeconfig),
        "RUST_LOG": "info",
        "NO_PROXY": "*",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(binary)], stdout=out, stderr=subprocess.STDOUT, env=environment
        )
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
