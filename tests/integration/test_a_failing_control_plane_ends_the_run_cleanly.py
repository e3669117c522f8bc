"""The API server or etcd failing in the middle of an apply: one clear error, then convergence.

These tests stop and start processes of a control plane, so the module has one of its own
(not the session's, which other tests share). driftctl runs as the CronJob's ServiceAccount
through tests/support/faultproxy.py, which holds one chosen write until the test has broken the
control plane: the fault lands after some writes and before the others, every time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.controlplane.pki import issue_serving
from tests.controlplane.processes import started_for
from tests.support.control_plane import grant, own_control_plane
from tests.support.faultproxy import Fault, FaultProxy, Hold, kubeconfig_for
from tests.support.gitrepos import Repo
from tests.support.harness import Harness
from tests.support.kustomize import account

APPS = {f"app-{i}": ("nginx:1.27", 1) for i in range(6)}
CHANGED = dict.fromkeys(APPS, ("nginx:1.28", 1))


@pytest.fixture(scope="module")
def own_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[launcher.ControlPlane]:
    with own_control_plane(tmp_path_factory.mktemp("own-plane")) as plane:
        yield plane


@pytest.fixture(scope="module")
def own_account(own_plane: launcher.ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Path:
    kubectl = [str(own_plane.bin_dir / "kubectl"), f"--kubeconfig={own_plane.kubeconfig}"]
    documents = account(own_plane.bin_dir / "kubectl")
    return grant(own_plane, kubectl, documents, "driftctl", tmp_path_factory.mktemp("sa"))


@pytest.fixture
def own(
    own_plane: launcher.ControlPlane,
    own_account: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Harness:
    """A namespace and repository of one test on the module's own control plane."""
    kubectl = [str(own_plane.bin_dir / "kubectl"), f"--kubeconfig={own_plane.kubeconfig}"]
    name = request.node.name.lower().replace("_", "-")[5:40].strip("-")
    subprocess.run([*kubectl, "create", "namespace", name], check=True, capture_output=True)
    return Harness(Repo(tmp_path / "repo"), name, name, own_account, kubectl)


@pytest.fixture
def proxy(own_plane: launcher.ControlPlane, tmp_path: Path) -> Iterator[FaultProxy]:
    pki = own_plane.folder / "pki"
    serving = issue_serving(pki, tmp_path / "fault-proxy", "fault-proxy")
    with FaultProxy(own_plane.server, pki / "ca.crt", serving) as running:
        yield running


def identities(harness: Harness) -> dict[str, str]:
    """uid of every WebApp and Deployment of the test, by Kind/name."""
    listed = json.loads(
        harness.kubectl("get", "webapps,deployments", "-n", harness.namespace, "-o", "json")
    )
    return {f"{i['kind']}/{i['metadata']['name']}": i["metadata"]["uid"] for i in listed["items"]}


def real_apply_of(harness: Harness, name: str, hold: Hold) -> Fault:
    path = f"/apis/{c.GROUP}/{c.VERSION}/namespaces/{harness.namespace}/{c.PLURAL}/{name}"
    return Fault(hold, method="PATCH", path=path, dry_run=False)


def converged(harness: Harness) -> dict[str, str]:
    harness.declare(APPS)
    first = harness.driftctl("apply")
    assert first.code == 0, first.err
    harness.declare(CHANGED, "new image everywhere")
    return identities(harness)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith("note: retrying")]


def test_the_api_server_stopped_mid_apply_ends_it_with_one_error_and_the_next_run_converges(
    own_plane: launcher.ControlPlane, own: Harness, proxy: FaultProxy, tmp_path: Path
) -> None:
    before = converged(own)
    hold = Hold()
    proxy.inject(real_apply_of(own, "app-3", hold))
    proxied = replace(own, kubeconfig=kubeconfig_for(own.kubeconfig, proxy.url, tmp_path / "p"))
    running = proxied.start("apply", "--concurrency", "1", "--timeout", "10")
    try:
        assert hold.held.wait(60), "the apply never reached app-3"
        argv = launcher.stop_component(own_plane.folder, "kube-apiserver")
        hold.release(forward=True)
        out, err = running.communicate(timeout=60)
    finally:
        running.kill()
    launcher.start_component(own_plane.folder, "kube-apiserver", argv)

    assert running.returncode == 4, out + err
    [error, hint] = error_lines(err)
    # The proxy says 502 once the server is gone; a request sent while it shut down times out.
    assert error.startswith(f"error: apply WebApp/{own.namespace}/app-3: "), error
    assert ": 502" in error or "unreachable" in error, error
    assert hint.startswith("hint: tried ")
    assert "--timeout (10s)" in hint
    assert [line for line in out.splitlines() if line.startswith("failed")] == []
    assert f"configured WebApp/{own.namespace}/app-2" in out

    # The Lease of the run that could not release it expires; the next run waits for it.
    again = own.driftctl("apply", "--lock-timeout", "60")
    after = own.driftctl("apply")

    assert again.code == 0, again.err
    assert after.out.splitlines()[-1] == (
        "Apply: 0 created, 0 configured, 0 deleted, 12 unchanged, 0 skipped, 0 failed"
    )
    assert identities(own) == before  # nothing lost, nothing made twice
    deployment = own.get("deployment", "app-5")
    assert deployment is not None
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"


def test_etcd_stalled_mid_apply_is_bounded_by_the_timeout_and_the_next_run_converges(
    own_plane: launcher.ControlPlane, own: Harness, proxy: FaultProxy, tmp_path: Path
) -> None:
    before = converged(own)
    hold = Hold()
    proxy.inject(real_apply_of(own, "app-2", hold))
    proxied = replace(own, kubeconfig=kubeconfig_for(own.kubeconfig, proxy.url, tmp_path / "p"))
    plane = launcher.read_state(own_plane.folder)
    assert plane is not None
    etcd = plane.pids["etcd"]
    assert started_for(etcd, plane.folder)
    running = proxied.start("apply", "--concurrency", "1", "--timeout", "8")
    try:
        assert hold.held.wait(60), "the apply never reached app-2"
        os.kill(etcd, signal.SIGSTOP)
        try:
            hold.release(forward=True)
            out, err = running.communicate(timeout=60)
        finally:
            os.kill(etcd, signal.SIGCONT)
    finally:
        running.kill()

    assert running.returncode == 4, out + err
    [error, hint] = error_lines(err)
    assert error.startswith(f"error: apply WebApp/{own.namespace}/app-2: ")
    assert "--timeout (8s)" in hint
    assert [line for line in out.splitlines() if line.startswith("failed")] == []

    again = own.driftctl("apply", "--lock-timeout", "60")
    after = own.driftctl("apply")

    assert again.code == 0, again.err
    assert after.out.splitlines()[-1] == (
        "Apply: 0 created, 0 configured, 0 deleted, 12 unchanged, 0 skipped, 0 failed"
    )
    assert identities(own) == before
