"""Start, inspect and stop a local control plane: etcd, kube-apiserver, kube-controller-manager.

Every start is a new, empty cluster with a new CA (etcd data of an earlier start is removed).

The processes run in the background on free loopback ports, with their data, logs,
certificates and a `kubeconfig` in one folder, and a `state.json` that lets another
process (the `stop` command) find them. CRDs handed to `start` are installed before the
controller manager starts, so its garbage collector knows them from its first discovery.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.controlplane.pki import Pki, make_pki

HERE = Path(__file__).resolve().parent
READY_TIMEOUT = 90.0
STOP_TIMEOUT = 15.0
# Controllers the tests rely on. The deployment controller is left out on purpose:
# with no kubelet no pod ever runs, and tests write Deployment status themselves.
CONTROLLERS = "garbage-collector-controller,namespace-controller,serviceaccount-controller"


class StartError(RuntimeError):
    """The control plane did not come up; the message carries the tail of the log."""


@dataclass(frozen=True)
class ControlPlane:
    """A running control plane, as recorded in DIR/state.json."""

    folder: Path
    server: str
    pids: dict[str, int]

    @property
    def kubeconfig(self) -> Path:
        return self.folder / "kubeconfig"

    @property
    def bin_dir(self) -> Path:
        return Path(json.loads((self.folder / "state.json").read_text())["bin_dir"])


def build_binaries() -> Path:
    """Build the binaries if their cache is missing; return the folder that holds them."""
    done = subprocess.run(
        ["bash", str(HERE / "build.sh")], stdout=subprocess.PIPE, text=True, check=False
    )
    if done.returncode != 0:
        raise StartError(f"building the control plane failed (exit {done.returncode})")
    return Path(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def write_kubeconfig(path: Path, server: str, pki: Pki) -> None:
    """An admin kubeconfig (system:masters) with the certificates embedded."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "driftctl-test",
                "cluster": {"server": server, "certificate-authority-data": _b64(pki.ca.cert)},
            }
        ],
        "users": [
            {
                "name": "admin",
                "user": {
                    "client-certificate-data": _b64(pki.admin.cert),
                    "client-key-data": _b64(pki.admin.key),
                },
            }
        ],
        "contexts": [
            {"name": "driftctl-test", "context": {"cluster": "driftctl-test", "user": "admin"}}
        ],
        "current-context": "driftctl-test",
    }
    path.write_text(json.dumps(config, indent=2))
    path.chmod(0o600)


def _spawn(name: str, argv: list[str], folder: Path) -> subprocess.Popen[bytes]:
    log = (folder / f"{name}.log").open("ab")
    return subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def etcd_argv(bin_dir: Path, folder: Path, client: int, peer: int) -> list[str]:
    peer_url, client_url = f"http://127.0.0.1:{peer}", f"http://127.0.0.1:{client}"
    return [
        str(bin_dir / "etcd"),
        f"--data-dir={folder / 'etcd-data'}",
        f"--listen-client-urls={client_url}",
        f"--advertise-client-urls={client_url}",
        f"--listen-peer-urls={peer_url}",
        f"--initial-advertise-peer-urls={peer_url}",
        f"--initial-cluster=default={peer_url}",
        "--unsafe-no-fsync",
        "--log-level=warn",
    ]


def apiserver_argv(bin_dir: Path, pki: Pki, etcd_port: int, port: int) -> list[str]:
    return [
        str(bin_dir / "kube-apiserver"),
        f"--etcd-servers=http://127.0.0.1:{etcd_port}",
        f"--secure-port={port}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        # A loopback advertise address is refused by the endpoint reconciler; no Service
        # here needs the `kubernetes` endpoints, so it is switched off.
        "--endpoint-reconciler-type=none",
        f"--tls-cert-file={pki.serving.cert}",
        f"--tls-private-key-file={pki.serving.key}",
        f"--client-ca-file={pki.ca.cert}",
        "--service-account-issuer=https://kubernetes.default.svc",
        f"--service-account-key-file={pki.service_account_pub}",
        f"--service-account-signing-key-file={pki.service_account_key}",
        "--service-cluster-ip-range=10.96.0.0/24",
        "--authorization-mode=RBAC",
        "--profiling=false",
        "--v=1",
    ]


def controller_manager_argv(bin_dir: Path, kubeconfig: Path) -> list[str]:
    return [
        str(bin_dir / "kube-controller-manager"),
        f"--kubeconfig={kubeconfig}",
        "--leader-elect=false",
        "--secure-port=0",
        f"--controllers={CONTROLLERS}",
        "--v=1",
    ]


def _ssl_context(folder: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(folder / "pki" / "ca.crt"))
    context.load_cert_chain(str(folder / "pki" / "admin.crt"), str(folder / "pki" / "admin.key"))
    return context


def get(folder: Path, server: str, path: str, timeout: float = 5.0) -> tuple[int, str]:
    """GET a path of the API server as admin; (status, body), status 0 when unreachable."""
    try:
        with urllib.request.urlopen(
            server + path, context=_ssl_context(folder), timeout=timeout
        ) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode(errors="replace")
    except (OSError, ssl.SSLError):
        return 0, ""


def log_tail(folder: Path, name: str, lines: int = 30) -> str:
    path = folder / f"{name}.log"
    if not path.exists():
        return f"({path} is missing)"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _wait_ready(folder: Path, server: str, processes: dict[str, subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        for name, process in processes.items():
            if process.poll() is not None:
                raise StartError(
                    f"{name} exited with {process.returncode}:\n{log_tail(folder, name)}"
                )
        if get(folder, server, "/readyz")[0] == 200:
            return
        time.sleep(0.2)
    raise StartError(
        f"kube-apiserver not ready in {READY_TIMEOUT:.0f}s:\n{log_tail(folder, 'kube-apiserver')}"
    )


def install_manifests(bin_dir: Path, kubeconfig: Path, manifests: Sequence[Path]) -> None:
    """Apply manifests (CRDs) and wait until every CRD among them is Established."""
    if not manifests:
        return
    kubectl = [str(bin_dir / "kubectl"), f"--kubeconfig={kubeconfig}"]
    files = [arg for manifest in manifests for arg in ("-f", str(manifest))]
    subprocess.run([*kubectl, "apply", "--server-side", *files], check=True, capture_output=True)
    subprocess.run(
        [*kubectl, "wait", "--for=condition=Established", "--timeout=30s", "crd", "--all"],
        check=True,
        capture_output=True,
    )


def _record(
    folder: Path, server: str, bin_dir: Path, processes: dict[str, subprocess.Popen[bytes]]
) -> ControlPlane:
    pids = {name: process.pid for name, process in processes.items()}
    state = {"server": server, "bin_dir": str(bin_dir), "pids": pids}
    (folder / "state.json").write_text(json.dumps(state, indent=2))
    return ControlPlane(folder=folder, server=server, pids=pids)


def start(folder: Path, crds: Sequence[Path] = ()) -> ControlPlane:
    """Start etcd, kube-apiserver and kube-controller-manager; return once /readyz is ok."""
    folder = folder.resolve()
    if read_state(folder) is not None and status(folder).startswith("up"):
        raise StartError(f"a control plane already runs in {folder}; stop it first")
    bin_dir = build_binaries()
    folder.mkdir(parents=True, exist_ok=True)
    # Every start is a new cluster: old data would belong to a CA that no longer exists.
    shutil.rmtree(folder / "etcd-data", ignore_errors=True)
    pki = make_pki(folder / "pki")
    etcd_port, api_port = free_port(), free_port()
    server = f"https://127.0.0.1:{api_port}"
    kubeconfig = folder / "kubeconfig"
    write_kubeconfig(kubeconfig, server, pki)
    processes = {"etcd": _spawn("etcd", etcd_argv(bin_dir, folder, etcd_port, free_port()), folder)}
    processes["kube-apiserver"] = _spawn(
        "kube-apiserver", apiserver_argv(bin_dir, pki, etcd_port, api_port), folder
    )
    _record(folder, server, bin_dir, processes)
    try:
        _wait_ready(folder, server, processes)
        install_manifests(bin_dir, kubeconfig, crds)
        processes["kube-controller-manager"] = _spawn(
            "kube-controller-manager", controller_manager_argv(bin_dir, kubeconfig), folder
        )
        return _record(folder, server, bin_dir, processes)
    except BaseException:
        stop(folder)
        raise


def read_state(folder: Path) -> ControlPlane | None:
    path = folder.resolve() / "state.json"
    if not path.exists():
        return None
    state = json.loads(path.read_text())
    return ControlPlane(folder=folder.resolve(), server=state["server"], pids=state["pids"])


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _ours(pid: int, folder: Path) -> bool:
    """Guard against a recycled pid: the process must be one we started for this folder."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    state = json.loads((folder / "state.json").read_text())
    return cmdline.startswith(state["bin_dir"])


def _terminate(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT
    while alive(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.05)
    if alive(pid):
        os.killpg(pid, signal.SIGKILL)
    _reap(pid)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # not our child: init reaps it
        os.waitpid(pid, os.WNOHANG)


def stop(folder: Path) -> list[str]:
    """Stop every recorded process, newest first; return the names that were running."""
    plane = read_state(folder)
    if plane is None:
        return []
    stopped = []
    for name, pid in reversed(list(plane.pids.items())):
        if alive(pid) and _ours(pid, plane.folder):
            _terminate(pid)
            stopped.append(name)
    (plane.folder / "state.json").unlink()
    return stopped


def status(folder: Path) -> str:
    """`up <server>`, `down`, or `degraded: ...` naming what is not running."""
    plane = read_state(folder)
    if plane is None:
        return "down"
    dead = [name for name, pid in plane.pids.items() if not alive(pid)]
    if dead:
        return f"degraded: not running: {', '.join(dead)}"
    code, _ = get(plane.folder, plane.server, "/readyz")
    return (
        f"up {plane.server}" if code == 200 else f"degraded: /readyz answered {code or 'nothing'}"
    )
