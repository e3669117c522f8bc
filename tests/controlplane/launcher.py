"""Start, inspect and stop a local control plane: etcd, kube-apiserver, kube-controller-manager.

Every start is a new, empty cluster with a new CA (etcd data of an earlier start is removed).

The processes run in the background on free loopback ports, with their data, logs,
certificates and a `kubeconfig` in one folder, and a `state.json` that lets another
process (the `stop` command) find them. CRDs handed to `start` are installed before the
controller manager starts, so its garbage collector knows them from its first discovery.

`start(..., node=True)` adds a node (node.py): containerd, kube-scheduler and a kubelet,
the controllers that run Pods, and returns once the node is Ready. Without it no Pod
ever runs, which is what most tests want. `stop` removes what the node left outside the
folder (leftovers.py).
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.controlplane import leftovers, testimages
from tests.controlplane import node as node_config
from tests.controlplane.node import Node, NodeLayout
from tests.controlplane.pki import KeyPair, Pki, issue_client, make_pki
from tests.controlplane.processes import (
    alive,
    command_line,
    kill_now,
    spawn,
    started_for,
    terminate,
)

HERE = Path(__file__).resolve().parent
READY_TIMEOUT = 90.0
# Controllers the tests rely on. The deployment controller is left out on purpose:
# with no kubelet no pod ever runs, and tests write Deployment status themselves.
CONTROLLERS = (
    "garbage-collector-controller,namespace-controller,serviceaccount-controller,"
    "horizontal-pod-autoscaler-controller"
)
# With a node, Pods run: the controllers that make them, and those that clean up after them.
NODE_CONTROLLERS = (
    "cronjob-controller,job-controller,deployment-controller,replicaset-controller,"
    "node-lifecycle-controller,root-ca-certificate-publisher-controller,"
    "pod-garbage-collector-controller,ttl-after-finished-controller"
)
# The node's agents stop first, so that nothing restarts a container being killed.
NODE_AGENTS = ("kubelet", "kube-scheduler")


class StartError(RuntimeError):
    """The control plane did not come up; the message carries the tail of the log."""


@dataclass(frozen=True)
class ControlPlane:
    """A running control plane, as recorded in DIR/state.json."""

    folder: Path
    server: str
    pids: dict[str, int]
    node: Node | None = None

    @property
    def kubeconfig(self) -> Path:
        return self.folder / "kubeconfig"

    @property
    def bin_dir(self) -> Path:
        return Path(json.loads((self.folder / "state.json").read_text())["bin_dir"])


def build_binaries(node: bool = False) -> Path:
    """Build the binaries (a node's too) if missing; return the folder that holds them."""
    argv = ["bash", str(HERE / "build.sh"), *(["node"] if node else [])]
    done = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise StartError(f"building the control plane failed (exit {done.returncode})")
    return Path(done.stdout.strip().splitlines()[-1])


def install_node_packages() -> None:
    """containerd, runc, the CNI plugins, busybox-static, mmdebstrap (apt, when missing)."""
    done = subprocess.run(["bash", str(HERE / "node-packages.sh")], check=False)
    if done.returncode != 0:
        raise StartError(f"installing the node's packages failed (exit {done.returncode})")


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def write_kubeconfig(path: Path, server: str, ca: Path, client: KeyPair) -> None:
    """A kubeconfig acting as the client certificate's subject, the certificates embedded."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "driftctl-test",
                "cluster": {"server": server, "certificate-authority-data": _b64(ca)},
            }
        ],
        "users": [
            {
                "name": "admin",
                "user": {
                    "client-certificate-data": _b64(client.cert),
                    "client-key-data": _b64(client.key),
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
    """The API server; with a node, also node_apiserver_flags()."""
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


def node_apiserver_flags(pki: Pki) -> list[str]:
    """How the API server reaches the kubelet (logs, exec): by the node's name, as admin."""
    return [
        f"--kubelet-client-certificate={pki.admin.cert}",
        f"--kubelet-client-key={pki.admin.key}",
        "--kubelet-preferred-address-types=Hostname",
    ]


def controller_manager_argv(
    bin_dir: Path, kubeconfig: Path, ca: Path | None = None, extra: str = ""
) -> list[str]:
    """The controller manager; given the CA (`ca`), also the controllers a node needs;
    `extra`: more controllers, comma-separated (a benchmark's Deployment controller)."""
    controllers = CONTROLLERS if ca is None else f"{CONTROLLERS},{NODE_CONTROLLERS}"
    controllers += f",{extra}" if extra else ""
    return [
        str(bin_dir / "kube-controller-manager"),
        f"--kubeconfig={kubeconfig}",
        "--leader-elect=false",
        "--secure-port=0",
        f"--controllers={controllers}",
        *([f"--root-ca-file={ca}"] if ca is not None else []),
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


def _wait(
    folder: Path,
    processes: dict[str, subprocess.Popen[bytes]],
    done: Callable[[], bool],
    what: tuple[str, str],
) -> None:
    """Poll `done` until true; fail when a process exits or READY_TIMEOUT passes.

    `what` is (the awaited state, the log to show when it never comes).
    """
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        for name, process in processes.items():
            if process.poll() is not None:
                raise StartError(
                    f"{name} exited with {process.returncode}:\n{log_tail(folder, name)}"
                )
        if done():
            return
        time.sleep(0.2)
    state, log = what
    raise StartError(f"{state} not in {READY_TIMEOUT:.0f}s:\n{log_tail(folder, log)}")


def _wait_ready(folder: Path, server: str, processes: dict[str, subprocess.Popen[bytes]]) -> None:
    def ready() -> bool:
        return get(folder, server, "/readyz")[0] == 200

    _wait(folder, processes, ready, ("kube-apiserver ready", "kube-apiserver"))


def kubectl_apply(bin_dir: Path, kubeconfig: Path, manifests: Sequence[Path]) -> None:
    kubectl = [str(bin_dir / "kubectl"), f"--kubeconfig={kubeconfig}"]
    files = [arg for manifest in manifests for arg in ("-f", str(manifest))]
    subprocess.run([*kubectl, "apply", "--server-side", *files], check=True, capture_output=True)


def install_manifests(bin_dir: Path, kubeconfig: Path, manifests: Sequence[Path]) -> None:
    """Apply manifests (CRDs) and wait until every CRD among them is Established."""
    if not manifests:
        return
    kubectl_apply(bin_dir, kubeconfig, manifests)
    subprocess.run(
        [
            str(bin_dir / "kubectl"),
            f"--kubeconfig={kubeconfig}",
            *("wait", "--for=condition=Established", "--timeout=30s", "crd", "--all"),
        ],
        check=True,
        capture_output=True,
    )


def _record(
    folder: Path,
    server: str,
    bin_dir: Path,
    processes: dict[str, subprocess.Popen[bytes]],
    node: Node | None = None,
) -> ControlPlane:
    pids = {name: process.pid for name, process in processes.items()}
    state: dict[str, object] = {"server": server, "bin_dir": str(bin_dir), "pids": pids}
    if node is not None:
        state["node"] = node.as_json()
    (folder / "state.json").write_text(json.dumps(state, indent=2))
    return ControlPlane(folder=folder, server=server, pids=pids, node=node)


def start(
    folder: Path,
    crds: Sequence[Path] = (),
    node: bool = False,
    controllers: str = "",
    apiserver_flags: Sequence[str] = (),
) -> ControlPlane:
    """Start etcd, kube-apiserver and kube-controller-manager; return once /readyz is ok.

    With `node`, also a node (containerd, kube-scheduler, kubelet), returning once it is
    Ready; `ControlPlane.node` then says how Pods reach the API server, and
    `import_image` brings images to it. `controllers`: more controllers to run.
    `apiserver_flags`: more flags of the API server (a feature gate, a compaction interval).
    """
    folder = folder.resolve()
    if read_state(folder) is not None and status(folder).startswith("up"):
        raise StartError(f"a control plane already runs in {folder}; stop it first")
    bin_dir = build_binaries(node)
    node_name = _check_node_host(folder) if node else None
    folder.mkdir(parents=True, exist_ok=True)
    # Every start is a new cluster: old data would belong to a CA that no longer exists.
    shutil.rmtree(folder / "etcd-data", ignore_errors=True)
    pki = make_pki(folder / "pki")
    etcd_port, api_port = free_port(), free_port()
    server = f"https://127.0.0.1:{api_port}"
    kubeconfig = folder / "kubeconfig"
    write_kubeconfig(kubeconfig, server, pki.ca.cert, pki.admin)
    processes = {"etcd": spawn("etcd", etcd_argv(bin_dir, folder, etcd_port, free_port()), folder)}
    apiserver = apiserver_argv(bin_dir, pki, etcd_port, api_port)
    processes["kube-apiserver"] = spawn(
        "kube-apiserver",
        [*apiserver, *(node_apiserver_flags(pki) if node else []), *apiserver_flags],
        folder,
    )
    _record(folder, server, bin_dir, processes)
    try:
        _wait_ready(folder, server, processes)
        install_manifests(bin_dir, kubeconfig, crds)
        if node:
            kubectl_apply(bin_dir, kubeconfig, [HERE / "node-rbac.yaml"])
        processes["kube-controller-manager"] = spawn(
            "kube-controller-manager",
            controller_manager_argv(
                bin_dir, kubeconfig, pki.ca.cert if node else None, controllers
            ),
            folder,
        )
        if node_name is None:
            return _record(folder, server, bin_dir, processes)
        return _start_node(folder, server, bin_dir, processes, node_name)
    except BaseException:
        stop(folder)
        raise


def _check_node_host(folder: Path) -> str:
    """Whether a node can run here, before anything starts; return the node's name.

    Its packages are installed when missing; no other node of ours may run on the machine
    (they would share the bridge and the kubepods cgroups); its sockets must fit, its IP
    must be this machine's and its name must resolve to loopback.
    """
    install_node_packages()
    if leftovers.remove_orphaned_bridge():
        raise StartError(
            f"the bridge {leftovers.BRIDGE} exists and a kubelet runs: another node runs on "
            "this machine (stop it first)"
        )
    try:
        node_config.check_socket_paths(NodeLayout(folder / "node"))
        node_config.check_node_ip()
        return node_config.node_name()
    except node_config.NodeError as refused:
        raise StartError(str(refused)) from None


def _write_node_credentials(folder: Path, server: str, layout: NodeLayout, name: str) -> None:
    """Client certificates and kubeconfigs for the kubelet and the scheduler."""
    ca_folder, certs = folder / "pki", layout.root / "pki"
    kubelet = issue_client(ca_folder, certs, "kubelet", f"system:node:{name}", "system:nodes")
    scheduler = issue_client(ca_folder, certs, "kube-scheduler", "system:kube-scheduler")
    write_kubeconfig(layout.kubelet_kubeconfig, server, ca_folder / "ca.crt", kubelet)
    write_kubeconfig(layout.scheduler_kubeconfig, server, ca_folder / "ca.crt", scheduler)


def _start_node(
    folder: Path,
    server: str,
    bin_dir: Path,
    processes: dict[str, subprocess.Popen[bytes]],
    name: str,
) -> ControlPlane:
    layout = NodeLayout(folder / "node")
    node = Node(
        name=name,
        root=layout.root,
        api_port=int(server.rsplit(":", 1)[1]),
        dead_registry_port=free_port(),
        survey=leftovers.survey(),
    )
    node_config.write_configuration(layout, testimages.PAUSE_IMAGE, node.dead_registry_port)
    _write_node_credentials(folder, server, layout, name)
    config = node_config.kubelet_config(layout, folder / "pki" / "ca.crt", free_port(), free_port())
    layout.kubelet_config.write_text(json.dumps(config, indent=2))
    processes["containerd"] = spawn(
        "containerd",
        node_config.containerd_argv(layout),
        folder,
        env=node_config.dead_proxy_environment(node.dead_registry_port),
    )
    _record(folder, server, bin_dir, processes, node)
    try:
        node_config.wait_for_containerd(layout, processes["containerd"])
        node_config.import_image(layout, testimages.pause_image())
    except node_config.NodeError as failed:
        raise StartError(f"{failed}:\n{log_tail(folder, 'containerd')}") from None
    scheduler = node_config.scheduler_argv(bin_dir, layout)
    processes["kube-scheduler"] = spawn("kube-scheduler", scheduler, folder)
    processes["kubelet"] = spawn("kubelet", node_config.kubelet_argv(bin_dir, layout, name), folder)
    plane = _record(folder, server, bin_dir, processes, node)
    _wait(folder, processes, lambda: _node_ready(plane), (f"node {name} Ready", "kubelet"))
    return plane


def _node_ready(plane: ControlPlane) -> bool:
    assert plane.node is not None
    code, body = get(plane.folder, plane.server, f"/api/v1/nodes/{plane.node.name}")
    return code == 200 and node_config.node_ready(json.loads(body))


def import_image(plane: ControlPlane, tarball: Path) -> None:
    """Import an OCI image tarball (image/, testimages.py) into the node's containerd."""
    if plane.node is None:
        raise StartError(f"the control plane in {plane.folder} has no node")
    try:
        node_config.import_image(plane.node.layout, tarball)
    except node_config.NodeError as failed:
        raise StartError(str(failed)) from None


def read_state(folder: Path) -> ControlPlane | None:
    path = folder.resolve() / "state.json"
    if not path.exists():
        return None
    state = json.loads(path.read_text())
    node = Node.from_json(state["node"]) if "node" in state else None
    return ControlPlane(
        folder=folder.resolve(), server=state["server"], pids=state["pids"], node=node
    )


def _stop_each(plane: ControlPlane, names: list[str]) -> list[str]:
    """Terminate the named processes in order; return those that were running."""
    stopped = []
    for name in names:
        pid = plane.pids[name]
        if alive(pid) and started_for(pid, plane.folder):
            terminate(pid)
            stopped.append(name)
    return stopped


def stop_component(folder: Path, name: str, *, crash: bool = False) -> list[str]:
    """Stop one process of a running control plane (kube-apiserver, etcd ...), the others
    left running; return its argv, for `start_component` to start it again the same way.
    `crash`: SIGKILL at once, as a crash would (a kube-apiserver with watches open lets a
    SIGTERM wait the whole STOP_TIMEOUT anyway)."""
    plane = read_state(folder)
    if plane is None or name not in plane.pids:
        raise StartError(f"no {name} recorded in {folder}")
    pid = plane.pids[name]
    if not (alive(pid) and started_for(pid, plane.folder)):
        raise StartError(f"{name} (pid {pid}) of {folder} is not running")
    argv = command_line(pid)
    if crash:
        kill_now([pid])
    else:
        terminate(pid)
    return argv


def start_component(folder: Path, name: str, argv: list[str]) -> ControlPlane:
    """Start one process again (same argv, same data: etcd's is kept), record its new pid;
    for the API server, return once /readyz is ok again."""
    plane = read_state(folder)
    if plane is None:
        raise StartError(f"no control plane recorded in {folder}")
    process = spawn(name, argv, plane.folder)
    pids = {**plane.pids, name: process.pid}
    state = json.loads((plane.folder / "state.json").read_text())
    state["pids"] = pids
    (plane.folder / "state.json").write_text(json.dumps(state, indent=2))
    if name == "kube-apiserver":
        _wait_ready(plane.folder, plane.server, {name: process})
    return read_state(folder) or plane


def _etcd(folder: Path, call: str, body: dict[str, object]) -> dict[str, object]:
    """One call of etcd's v3 JSON gateway on its loopback client URL."""
    plane = read_state(folder)
    if plane is None:
        raise StartError(f"no control plane recorded in {folder}")
    urls = [a for a in command_line(plane.pids["etcd"]) if a.startswith("--listen-client-urls=")]
    if not urls:
        raise StartError(f"etcd of {folder} is not running")
    url = urls[0].split("=", 1)[1]
    request = urllib.request.Request(
        f"{url}/v3/{call}", data=json.dumps(body).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return dict(json.loads(answer.read()))


def compact_etcd(folder: Path) -> int:
    """Compact etcd's history up to its current revision (every older resourceVersion is
    then gone: a watch or list from one gets 410 Gone); return that revision."""
    header = _etcd(folder, "kv/range", {"key": base64.b64encode(b"/").decode()})["header"]
    revision = int(dict(header)["revision"])  # type: ignore[call-overload]
    _etcd(folder, "kv/compaction", {"revision": revision, "physical": True})
    return revision


def stop(folder: Path) -> list[str]:
    """Stop every recorded process, newest first; return the names that were running.

    A node's kubelet and scheduler stop first, then its containers are killed, and once
    containerd is gone too, what the node left outside the folder is removed.
    """
    plane = read_state(folder)
    if plane is None:
        return []
    newest_first = list(reversed(plane.pids))
    agents = [name for name in newest_first if name in NODE_AGENTS]
    stopped = _stop_each(plane, agents)
    killed = leftovers.kill_containers(plane.node.layout.socket) if plane.node else None
    stopped += _stop_each(plane, [name for name in newest_first if name not in NODE_AGENTS])
    if plane.node is not None and killed is not None:
        leftovers.sweep(plane.folder, plane.node.survey, killed)
    (plane.folder / "state.json").unlink()
    return stopped


def status(folder: Path) -> str:
    """`up <server>[, node NAME Ready]`, `down`, or `degraded: ...` naming what is wrong."""
    plane = read_state(folder)
    if plane is None:
        return "down"
    dead = [name for name, pid in plane.pids.items() if not alive(pid)]
    if dead:
        return f"degraded: not running: {', '.join(dead)}"
    code, _ = get(plane.folder, plane.server, "/readyz")
    if code != 200:
        return f"degraded: /readyz answered {code or 'nothing'}"
    if plane.node is None:
        return f"up {plane.server}"
    if not _node_ready(plane):
        return f"degraded: node {plane.node.name} is not Ready"
    return f"up {plane.server}, node {plane.node.name} Ready"
