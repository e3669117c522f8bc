"""From the seed operator to driftctl and back, on a real node: not one Pod restarts.

The real seed operator (tests/seedoperator/build.sh builds it from its sources outside the
repository) runs on a control plane of this module's own, with its own CRD, and makes
three WebApps' Deployments, whose Pods start on the node. The operator is stopped;
driftctl, given a repository declaring the same WebApps, adopts them all: the same Pods
(uids), the same ReplicaSets, exit 0, one line about the CRD's missing status fields, and
a second run writes nothing. Then the operator is started again (the way back): it
reconciles every WebApp, and still the same Pods run.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.controlplane import launcher, testimages
from tests.support.builders import webapp
from tests.support.gitrepos import Repo
from tests.support.harness import Harness
from tests.support.node import NodeCluster, wait_for
from tests.support.node_fixtures import require_root, short_folder
from tests.support.seed_operator import SEED_CRD_FILE, require_binary, running

NAMESPACE = "shop"
APPS = {"shop": 2, "blog": 1, "cart": 1}
IMAGE = testimages.hello_image_name(1)
STILL_SECONDS = 5.0  # how long the Pods are watched after each run, for a late restart


@pytest.fixture(scope="module")
def seed_node_plane() -> Iterator[launcher.ControlPlane]:
    """A control plane with a Ready node, the seed operator's CRD and the hello image."""
    require_root()
    require_binary()
    folder = short_folder()
    plane = launcher.start(folder, [SEED_CRD_FILE], node=True)
    try:
        launcher.import_image(plane, testimages.hello_image(1))
        yield plane
    finally:
        launcher.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_committed_crd_is_the_seed_operator_s() -> None:
    """tests/seedoperator/crd.yaml, which the integration tests install, is what the
    operator prints."""
    binary = require_binary()

    printed = subprocess.run([str(binary), "crd"], capture_output=True, text=True, check=True)

    assert yaml.safe_load(SEED_CRD_FILE.read_text()) == yaml.safe_load(printed.stdout)


def pods(cluster: NodeCluster) -> dict[str, str]:
    """Each running Pod of the WebApps: name -> uid."""
    items = cluster.get("pods", "-n", NAMESPACE)["items"]
    return {
        pod["metadata"]["name"]: pod["metadata"]["uid"]
        for pod in items
        if pod["status"].get("phase") == "Running"
    }


def replica_sets(cluster: NodeCluster) -> dict[str, str]:
    items = cluster.get("replicasets", "-n", NAMESPACE)["items"]
    return {rs["metadata"]["name"]: rs["metadata"]["uid"] for rs in items}


def statuses(cluster: NodeCluster) -> dict[str, Any]:
    items = cluster.get("webapps", "-n", NAMESPACE)["items"]
    return {item["metadata"]["name"]: item.get("status") for item in items}


def all_running(cluster: NodeCluster) -> bool:
    """Every WebApp's Pods run, and the operator reported them all ready."""
    expected = sum(APPS.values())
    ready = statuses(cluster)
    return len(pods(cluster)) == expected and all(
        (ready.get(name) or {}).get("ready") is True for name in APPS
    )


def unchanged_for(cluster: NodeCluster, seconds: float, before: dict[str, str]) -> dict[str, str]:
    """The Pods, watched for `seconds`: a restart, late or not, shows as another uid."""
    deadline = time.monotonic() + seconds
    now = pods(cluster)
    while time.monotonic() < deadline and now == before:
        time.sleep(0.5)
        now = pods(cluster)
    return now


def test_driftctl_takes_over_from_the_seed_operator_and_back_with_the_same_pods(
    seed_node_plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    cluster = NodeCluster(seed_node_plane)
    cluster.run("create", "namespace", NAMESPACE)
    cluster.run("create", "namespace", "driftctl-system")
    manifests = {
        name: webapp(name, IMAGE, count, namespace=NAMESPACE) for name, count in APPS.items()
    }
    cluster.run("apply", "-f", "-", stdin="---\n".join(manifests.values()))  # as its users did
    with running(seed_node_plane.kubeconfig, tmp_path / "operator.log"):
        wait_for("the operator's WebApps running and ready", lambda: all_running(cluster))
    before = pods(cluster)
    sets = replica_sets(cluster)
    harness = Harness(
        Repo(tmp_path / "repo"), NAMESPACE, "default", seed_node_plane.kubeconfig, cluster.kubectl
    )
    harness.repo.write({f"apps/{name}.yaml": text for name, text in manifests.items()})
    harness.repo.commit("the operator's WebApps")

    applied = harness.driftctl("apply")
    after_apply = unchanged_for(cluster, STILL_SECONDS, before)
    again = harness.driftctl("apply")

    assert applied.code == 0, applied.out + applied.err
    assert [line for line in applied.err.splitlines() if "installed CRD" in line] == [
        "warning: the installed CRD webapps.example.com lacks status.observedGeneration, "
        "status.conditions, status.lastAppliedRevision, status.ignoredFields, "
        "status.lastVerifiedRevision, status.lastVerifiedKey, status.corrections, "
        "status.servingRevision, status.images, status.mixedDigests, status.imagesGeneration: "
        "status is written without them; `driftctl crd --diff` shows what an upgrade changes, "
        "`driftctl crd | kubectl apply --server-side -f -` makes it"
    ]
    assert applied.out.splitlines()[-1] == (
        "Apply: 0 created, 6 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"
    )
    assert after_apply == before
    assert replica_sets(cluster) == sets
    assert again.code == 0, again.err
    assert again.out.splitlines()[-1] == (
        "Apply: 0 created, 0 configured, 0 deleted, 6 unchanged, 0 skipped, 0 failed"
    )
    assert statuses(cluster) == {
        name: {"available_replicas": count, "ready": True} for name, count in APPS.items()
    }

    # The way back: the operator started again reconciles every WebApp; nothing restarts.
    with running(seed_node_plane.kubeconfig, tmp_path / "operator-again.log") as operator:
        log = tmp_path / "operator-again.log"
        wait_for(
            "the operator reconciling every WebApp again",
            lambda: all(f'reconciled "{name}"' in log.read_text() for name in APPS),
        )
        after_rollback = unchanged_for(cluster, STILL_SECONDS, before)
        assert operator.poll() is None, log.read_text()
    assert after_rollback == before
    assert replica_sets(cluster) == sets
