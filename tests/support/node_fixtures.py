"""Fixtures of node tests: real Pods on a real kubelet, on a control plane and node of their own.

A pytest plugin of the root conftest, for tests/node and the tooling tests of the node.
Each test module gets a fresh control plane with a node (tests/controlplane, node=True),
apart from the integration tests' session control plane, whose Deployments never get
Pods. The node runs only images the tests import themselves (`localhost/hello:1`,
`localhost/hello:2`, the driftctl image): every registry resolves to a dead loopback port.

A node needs root. Under CI (CI=true) a node test runs or fails, never skips; elsewhere
it is skipped when not root.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from image.build import driftctl_image
from tests.controlplane import launcher, testimages
from tests.support.control_plane import grant
from tests.support.gitrepos import Repo
from tests.support.harness import Harness
from tests.support.kustomize import account
from tests.support.node import NodeCluster
from tests.support.paths import CRD_FILE


def require_root() -> None:
    if os.geteuid() == 0:
        return
    reason = "a node needs root (containerd, runc, network namespaces)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; under CI node tests never skip")
    pytest.skip(reason)


def short_folder() -> Path:
    """A new folder near the root: a node's unix sockets allow ~104 bytes of path, and
    pytest's own temporary folders grow deeper with every run on a machine."""
    return Path(tempfile.mkdtemp(prefix="node-", dir="/tmp"))


@pytest.fixture
def node_folder() -> Iterator[Path]:
    """A short folder for one test's own node, removed afterwards."""
    folder = short_folder()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def node_plane() -> Iterator[launcher.ControlPlane]:
    """A control plane with a Ready node, and the hello images imported into it."""
    require_root()
    folder = short_folder()
    plane = launcher.start(folder, [CRD_FILE], node=True)
    try:
        for version in (1, 2):
            launcher.import_image(plane, testimages.hello_image(version))
        yield plane
    finally:
        launcher.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster(node_plane: launcher.ControlPlane) -> NodeCluster:
    """kubectl as admin on the node's control plane."""
    return NodeCluster(node_plane)


@pytest.fixture(scope="module")
def driftctl_image_name(node_plane: launcher.ControlPlane) -> str:
    """The driftctl image (image/build.py: built when its inputs changed), imported."""
    built = driftctl_image()
    launcher.import_image(node_plane, built.tarball)
    return built.name


@pytest.fixture(scope="module")
def node_account(
    node_plane: launcher.ControlPlane, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A kubeconfig of the CronJob's ServiceAccount, with cronjob/'s RBAC, on the node's
    plane: driftctl run on the host as the CronJob runs in a Pod."""
    kubectl = [str(node_plane.bin_dir / "kubectl"), f"--kubeconfig={node_plane.kubeconfig}"]
    documents = account(node_plane.bin_dir / "kubectl")
    return grant(node_plane, kubectl, documents, "driftctl", tmp_path_factory.mktemp("account"))


@pytest.fixture
def node_harness(
    cluster: NodeCluster, node_account: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Harness]:
    """A namespace and a repository of one test on the node's plane, driftctl as the
    ServiceAccount (its instance named as its namespace)."""
    namespace = request.node.name.replace("_", "-")[5:40].strip("-")
    cluster.run("create", "namespace", namespace)
    yield Harness(Repo(tmp_path / "repo"), namespace, namespace, node_account, cluster.kubectl)
    cluster.run("delete", "namespace", namespace, "--wait=false")
