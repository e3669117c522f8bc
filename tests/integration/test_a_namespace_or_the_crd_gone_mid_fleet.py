"""A namespace, or the WebApp CRD itself, deleted while an apply is in the middle of a fleet.

The fault proxy holds one chosen write while the test deletes the namespace (or the CRD)
as admin, then lets the write go: the deletion lands after some writes and before the
others, every time. A missing namespace fails its own objects only, the rest are applied,
and once the namespace is back the next run converges. The CRD gone is one error for the
whole run (exit 4), on a control plane of this module's own (the session's CRD stays);
once it is installed again the next run converges.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from kubernetes import client

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.controlplane.pki import issue_serving
from tests.support.builders import webapp
from tests.support.control_plane import grant, own_control_plane, release_finalizers
from tests.support.faultproxy import Fault, FaultProxy, Hold, kubeconfig_for
from tests.support.gitrepos import Repo
from tests.support.harness import Harness, eventually
from tests.support.kustomize import account
from tests.support.paths import CRD_FILE

CRD = f"{c.PLURAL}.{c.GROUP}"


def in_namespace(name: str, namespace: str) -> str:
    """A WebApp document that names its namespace."""
    return webapp(name, replicas=1).replace(
        f"name: {name}\n", f"name: {name}\n  namespace: {namespace}\n"
    )


def real_apply_of(namespace: str, name: str, hold: Hold) -> Fault:
    path = f"/apis/{c.GROUP}/{c.VERSION}/namespaces/{namespace}/{c.PLURAL}/{name}"
    return Fault(hold, method="PATCH", path=path, dry_run=False)


def gone(harness: Harness, *what: str) -> bool:
    return not harness.kubectl("get", *what, "--ignore-not-found", "-o", "name").strip()


def terminating(harness: Harness) -> bool:
    crd = json.loads(harness.kubectl("get", "crd", CRD, "-o", "json"))
    return "deletionTimestamp" in crd["metadata"]


@pytest.fixture
def second_namespace(harness: Harness, kube_client: client.ApiClient) -> Iterator[str]:
    """Another namespace of the test's fleet, sorted after the test's own."""
    name = f"{harness.namespace}-b"
    harness.kubectl("create", "namespace", name)
    yield name
    if not gone(harness, "namespace", name):
        release_finalizers(kube_client, name)
        harness.kubectl("delete", "namespace", name, "--wait=false")


def test_a_namespace_deleted_mid_fleet_fails_its_objects_only_and_the_next_run_converges(
    harness: Harness, second_namespace: str, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    first, other = harness.namespace, second_namespace
    fleet = [in_namespace(n, first) for n in ("shop", "blog")]
    fleet += [in_namespace(n, other) for n in ("docs", "wiki")]
    harness.declare_text("---\n".join(fleet))
    hold = Hold()
    fault_proxy.inject(real_apply_of(first, "shop", hold))
    proxied = replace(harness, kubeconfig=proxied_kubeconfig)
    running = proxied.start("apply", "--concurrency", "1")
    try:
        assert hold.held.wait(60), "the apply never reached shop"
        harness.kubectl("delete", "namespace", other, "--wait=false")
        assert eventually(lambda: gone(harness, "namespace", other), 60)
        hold.release(forward=True)
        out, err = running.communicate(timeout=120)
    finally:
        running.kill()

    assert running.returncode == 5, out + err
    lines = out.splitlines()
    for name in ("docs", "wiki"):
        [failed] = [line for line in lines if line.startswith(f"failed WebApp/{other}/{name}: ")]
        assert f'namespaces "{other}" not found' in failed, failed
    for name in ("shop", "blog"):
        assert f"created WebApp/{first}/{name}" in lines
        assert f"created Deployment/{first}/{name}" in lines
    assert (
        lines[-1] == "Apply: 4 created, 0 configured, 0 deleted, 0 unchanged, 2 skipped, 2 failed"
    )
    assert harness.names("webapps") == ["blog", "shop"]
    assert harness.names("deployments") == ["blog", "shop"]

    still_missing = harness.driftctl("apply")
    harness.kubectl("create", "namespace", other)
    converged = harness.driftctl("apply")
    again = harness.driftctl("apply")

    assert still_missing.code == 5, still_missing.out + still_missing.err
    assert f'namespaces "{other}" not found' in still_missing.out
    assert still_missing.out.splitlines()[-1].endswith(
        "0 created, 0 configured, 0 deleted, 4 unchanged, 2 skipped, 2 failed"
    ), still_missing.out
    assert converged.code == 0, converged.out + converged.err
    assert converged.out.splitlines()[-1] == (
        "Apply: 4 created, 0 configured, 0 deleted, 4 unchanged, 0 skipped, 0 failed"
    )
    assert again.out.splitlines()[-1] == (
        "Apply: 0 created, 0 configured, 0 deleted, 8 unchanged, 0 skipped, 0 failed"
    )


@pytest.fixture(scope="module")
def own_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[launcher.ControlPlane]:
    with own_control_plane(tmp_path_factory.mktemp("own-plane")) as plane:
        yield plane


@pytest.fixture
def own(own_plane: launcher.ControlPlane, tmp_path: Path) -> Harness:
    """A namespace, repository and ServiceAccount on the module's own control plane."""
    kubectl = [str(own_plane.bin_dir / "kubectl"), f"--kubeconfig={own_plane.kubeconfig}"]
    documents = account(own_plane.bin_dir / "kubectl")
    kubeconfig = grant(own_plane, kubectl, documents, "driftctl", tmp_path)
    subprocess.run([*kubectl, "create", "namespace", "fleet"], check=True, capture_output=True)
    return Harness(Repo(tmp_path / "repo"), "fleet", "fleet", kubeconfig, kubectl)


@pytest.fixture
def own_proxy(own_plane: launcher.ControlPlane, tmp_path: Path) -> Iterator[FaultProxy]:
    pki = own_plane.folder / "pki"
    serving = issue_serving(pki, tmp_path / "fault-proxy", "fault-proxy")
    with FaultProxy(own_plane.server, pki / "ca.crt", serving) as running:
        yield running


def test_the_crd_deleted_mid_fleet_is_one_error_and_the_next_run_converges(
    own: Harness, own_proxy: FaultProxy, tmp_path: Path
) -> None:
    apps = {f"app-{i}": ("nginx:1.27", 1) for i in range(4)}
    own.declare(apps)
    hold = Hold()
    own_proxy.inject(real_apply_of(own.namespace, "app-2", hold))
    proxied = replace(own, kubeconfig=kubeconfig_for(own.kubeconfig, own_proxy.url, tmp_path / "p"))
    running = proxied.start("apply", "--concurrency", "1")
    try:
        assert hold.held.wait(60), "the apply never reached app-2"
        own.kubectl("delete", "crd", CRD, "--wait=false")
        assert eventually(lambda: terminating(own), 30)
        hold.release(forward=True)
        out, err = running.communicate(timeout=120)
    finally:
        running.kill()
    # One error for the run: the create refused because the CRD is going (403) stops it.
    assert running.returncode == 4, out + err
    [error] = [line for line in err.splitlines() if line.startswith("error:")]
    assert error.startswith(f"error: apply WebApp/{own.namespace}/app-2: 403 Forbidden: "), error
    assert "custom resource definition is terminating" in error
    assert out.splitlines()[0::3] == [f"created WebApp/{own.namespace}/app-{i}" for i in (0, 1)]
    assert "app-3" not in out + err

    # The CRD waits for its WebApps' finalizers: the next run does their cleanup (so the
    # deletion completes), still one error; then the CRD is gone.
    during = own.driftctl("apply")
    assert eventually(lambda: gone(own, "crd", CRD), 60), "the CRD is still terminating"
    after = own.driftctl("apply")
    own.kubectl("apply", "--server-side", "-f", str(CRD_FILE))
    own.kubectl("wait", "--for=condition=Established", "--timeout=30s", f"crd/{CRD}")
    converged = own.driftctl("apply")
    again = own.driftctl("apply")

    assert during.code == 4, during.out + during.err
    assert during.out.splitlines()[:2] == [
        f"deleted WebApp/{own.namespace}/app-{i}: deleted in the cluster, still declared in "
        "Git: created again after cleanup"
        for i in (0, 1)
    ]
    assert after.code == 4, after.out + after.err
    assert after.err.splitlines() == [
        "error: the cluster has no WebApp resource (webapps.example.com is not installed)",
        "hint: install the CRD: driftctl crd | kubectl apply -f -",
    ]
    assert converged.code == 0, converged.out + converged.err
    assert converged.out.splitlines()[-1] == (
        "Apply: 8 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"
    )
    assert again.out.splitlines()[-1] == (
        "Apply: 0 created, 0 configured, 0 deleted, 8 unchanged, 0 skipped, 0 failed"
    )
