"""The control plane for integration tests: one per test session, one namespace per test.

The session starts etcd, kube-apiserver and kube-controller-manager (tests/controlplane)
and stops them at the end. Set DRIFTCTL_TEST_CONTROLPLANE to the folder of a control
plane started by hand (`python -m tests.controlplane start --dir DIR`) to reuse it across
runs while developing.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from kubernetes import client, config

from tests.controlplane import launcher
from tests.controlplane.pki import issue_serving
from tests.support.control_plane import (
    account_kubeconfig,
    for_account,
    operator_kubeconfig,
    own_control_plane,
    release_finalizers,
)
from tests.support.faultproxy import FaultProxy, kubeconfig_for
from tests.support.gitrepos import Repo
from tests.support.harness import Harness
from tests.support.kustomize import account
from tests.support.paths import CRD_FILE, ROOT
from tests.support.pushgateway import Pushgateway, running
from tests.support.watching import Watching


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[launcher.ControlPlane]:
    reused = os.environ.get("DRIFTCTL_TEST_CONTROLPLANE")
    if reused:
        plane = launcher.read_state(Path(reused))
        assert plane is not None, f"no control plane recorded in {reused}"
        yield plane
        return
    with own_control_plane(tmp_path_factory.mktemp("controlplane")) as plane:
        yield plane


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[launcher.ControlPlane]:
    """A control plane of the test's own, with no CRD: a fresh cluster, for tests that
    install and uninstall (they make and delete what the session's plane needs)."""
    started = launcher.start(tmp_path / "plane")
    try:
        yield started
    finally:
        launcher.stop(tmp_path / "plane")


@pytest.fixture(scope="session")
def kubeconfig(control_plane: launcher.ControlPlane) -> Path:
    """An admin kubeconfig (system:masters) for the session's control plane."""
    return control_plane.kubeconfig


@pytest.fixture(scope="session")
def kube_client(kubeconfig: Path) -> Iterator[client.ApiClient]:
    """A Kubernetes API client acting as admin."""
    api = config.new_client_from_config(config_file=str(kubeconfig))  # type: ignore[no-untyped-call]
    yield api
    api.close()


@pytest.fixture(scope="session")
def kubectl(control_plane: launcher.ControlPlane, kubeconfig: Path) -> list[str]:
    """The argv prefix of the kubectl built with the control plane, as admin."""
    return [str(control_plane.bin_dir / "kubectl"), f"--kubeconfig={kubeconfig}"]


@pytest.fixture(scope="session")
def crd_installed(control_plane: launcher.ControlPlane, kubectl: list[str]) -> None:
    """The WebApp CRD from specs/, applied (again: it may have changed) and Established."""
    subprocess.run(
        [*kubectl, "apply", "--server-side", "--force-conflicts", "-f", str(CRD_FILE)],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            *kubectl,
            "wait",
            "--for=condition=Established",
            "--timeout=30s",
            "crd/webapps.example.com",
        ],
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def service_account_kubeconfig(
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    crd_installed: None,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """A kubeconfig acting as the CronJob's ServiceAccount, with the RBAC of cronjob/ (the
    default, cluster-wide variant)."""
    documents = account(control_plane.bin_dir / "kubectl")
    return account_kubeconfig(control_plane, kubectl, documents, "driftctl", tmp_path_factory)


def _cronjob_account_without(
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    name: str,
    verb: str,
    resources: Sequence[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """A kubeconfig of the ServiceAccount `name` with cronjob/'s RBAC less `verb` on each of
    `resources` (every resource: empty)."""
    documents = account(control_plane.bin_dir / "kubectl")
    renamed = [for_account(d, name) for d in documents if d["kind"] != "Namespace"]
    for document in renamed:
        for rule in document.get("rules", []):
            if verb in rule["verbs"] and (not resources or rule["resources"][0] in resources):
                rule["verbs"].remove(verb)
    return account_kubeconfig(control_plane, kubectl, renamed, name, tmp_path_factory)


@pytest.fixture(scope="session")
def no_delete_kubeconfig(
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    service_account_kubeconfig: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """The CronJob's RBAC less one verb: Deployments cannot be deleted (cleanup fails)."""
    return _cronjob_account_without(
        control_plane, kubectl, "driftctl-nodelete", "delete", ["deployments"], tmp_path_factory
    )


@pytest.fixture(scope="session")
def no_watch_kubeconfig(
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    service_account_kubeconfig: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """The CronJob's RBAC without `watch`, as installed before runs read streamed lists."""
    return _cronjob_account_without(
        control_plane, kubectl, "driftctl-nowatch", "watch", [], tmp_path_factory
    )


@pytest.fixture
def scoped_kubeconfig(
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    crd_installed: None,
    namespace: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """A ServiceAccount with cronjob/namespaced/'s RBAC, granted in this test's namespace
    only: a Role there and the run lock's Role; cluster-wide only the read of the WebApp
    CRD (cronjob/base/crd-rbac.yaml)."""
    account_name = f"driftctl-scoped-{namespace}"[:63]
    documents = account(control_plane.bin_dir / "kubectl", ROOT / "cronjob" / "namespaced")
    renamed = [for_account(d, account_name) for d in documents if d["kind"] != "Namespace"]
    for document in renamed:
        if document["metadata"].get("namespace") == "webapps":
            document["metadata"]["namespace"] = namespace
    cluster_wide = [d for d in renamed if d["kind"].startswith("Cluster")]
    assert [rule for d in cluster_wide for rule in d.get("rules", [])] == [
        {
            "apiGroups": ["apiextensions.k8s.io"],
            "resources": ["customresourcedefinitions"],
            "resourceNames": ["webapps.example.com"],
            "verbs": ["get"],
        }
    ]
    return account_kubeconfig(control_plane, kubectl, renamed, account_name, tmp_path_factory)


@pytest.fixture
def namespace(request: pytest.FixtureRequest, kube_client: client.ApiClient) -> Iterator[str]:
    """A fresh namespace for one test, deleted (without waiting) afterwards.

    WebApps still carrying driftctl's finalizer would keep the namespace Terminating for
    ever (no driftctl runs after the test), so teardown releases them first, as the
    manual recovery of docs/how-to/stuck-finalizer.md does.
    """
    stem = re.sub(r"[^a-z0-9-]+", "-", request.node.name.lower()).strip("-")[:40].strip("-")
    # A test module may ask for a namespace with a property its data needs (the shard tests:
    # one where every shard holds some of its WebApps, since the hash takes the namespace in).
    accepted = getattr(request.module, "namespace_accepted", lambda name: True)
    name = f"{stem}-{secrets.token_hex(3)}"
    while not accepted(name):
        name = f"{stem}-{secrets.token_hex(3)}"
    core = client.CoreV1Api(kube_client)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    yield name
    release_finalizers(kube_client, name)
    core.delete_namespace(name)


@pytest.fixture
def harness(
    namespace: str, service_account_kubeconfig: Path, kubectl: list[str], tmp_path: Path
) -> Harness:
    """A Git repository, and driftctl as the CronJob's ServiceAccount, for one test.

    The instance is named after the namespace, so each test only ever sees its own objects.
    """
    return Harness(
        Repo(tmp_path / "repo"), namespace, namespace, service_account_kubeconfig, kubectl
    )


@pytest.fixture
def fault_proxy(control_plane: launcher.ControlPlane, tmp_path: Path) -> Iterator[FaultProxy]:
    """A loopback proxy in front of the API server that injects scripted faults (one test)."""
    pki = control_plane.folder / "pki"
    serving = issue_serving(pki, tmp_path / "fault-proxy", "fault-proxy")
    with FaultProxy(control_plane.server, pki / "ca.crt", serving) as proxy:
        yield proxy


@pytest.fixture
def proxied_kubeconfig(
    fault_proxy: FaultProxy, service_account_kubeconfig: Path, tmp_path: Path
) -> Path:
    """The CronJob's ServiceAccount reaching the API server through the fault proxy.

    A bearer token survives the proxy's TLS termination; the admin's client certificate
    would not.
    """
    return kubeconfig_for(service_account_kubeconfig, fault_proxy.url, tmp_path / "proxied")


@pytest.fixture
def pushgateway(tmp_path: Path) -> Iterator[Pushgateway]:
    """A real Prometheus Pushgateway on a free loopback port, for one test."""
    with running(tmp_path / "pushgateway") as gateway:
        yield gateway


@pytest.fixture(scope="module")
def watch_kubeconfig(
    request: pytest.FixtureRequest,
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    crd_installed: None,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """A ServiceAccount with operator/'s RBAC: the CronJob's, plus watch; one per test
    module, named by its WATCH_ACCOUNT."""
    name = getattr(request.module, "WATCH_ACCOUNT", "driftctl-watch")
    return operator_kubeconfig(control_plane, kubectl, name, tmp_path_factory)


@pytest.fixture
def watching(harness: Harness, watch_kubeconfig: Path) -> Iterator[list[Watching]]:
    """Watch processes started by a test, killed at its end if still running."""
    started: list[Watching] = []
    yield started
    for each in started:
        each.kill()
