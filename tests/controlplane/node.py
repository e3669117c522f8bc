"""A node for a local control plane: containerd, a CNI bridge, kube-scheduler and kubelet.

Everything the node is configured with lives in DIR/node. What keeps it on this machine:

- every image registry resolves to a loopback port where nothing listens (containerd's
  `_default` host and a proxy that is the same dead port), so an image that was not
  imported fails at once and no pull ever leaves the machine;
- the Pods' bridge network has no masquerading and no default route: a Pod reaches the
  host's bridge address and other Pods, nothing else;
- Pods resolve names with a resolv.conf of our own that names only 127.0.0.1;
- the API server reaches the kubelet by the node's name, which start() checks resolves to
  loopback.

This module writes configuration and builds argv lists; launcher.py starts the
processes, and leftovers.py removes what the node writes outside DIR.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.controlplane import leftovers

# The node's InternalIP: a documentation address, registered and never dialled (the API
# server reaches the kubelet by name). The kubelet insists that it is an address of this
# machine; on these machines eth0 has it.
NODE_IP = "192.0.2.2"
POD_SUBNET = "10.88.0.0/24"
CNI_BIN = Path("/usr/lib/cni")
CONTAINERD_NAMESPACE = "k8s.io"
SOCKET_TIMEOUT = 30.0


class NodeError(RuntimeError):
    """The node cannot start here; the message says why."""


@dataclass(frozen=True)
class NodeLayout:
    """Where a node's files live, under DIR/node."""

    root: Path

    @property
    def containerd(self) -> Path:
        return self.root / "containerd"

    @property
    def containerd_config(self) -> Path:
        return self.containerd / "config.toml"

    @property
    def socket(self) -> Path:
        return self.root / "containerd.sock"

    @property
    def ttrpc_socket(self) -> Path:
        return self.root / "containerd.ttrpc"

    @property
    def longest_sockets(self) -> list[tuple[Path, int]]:
        """The deepest unix sockets of the node, each with its platform's path limit."""
        return [
            (self.ttrpc_socket, 104),  # containerd's own check
            (self.kubelet_dir / "pod-resources" / "kubelet.sock", 107),
        ]

    @property
    def registry_hosts(self) -> Path:
        return self.containerd / "certs.d"

    @property
    def cni_conf_dir(self) -> Path:
        return self.root / "cni" / "net.d"

    @property
    def kubelet_dir(self) -> Path:
        return self.root / "kubelet"

    @property
    def kubelet_config(self) -> Path:
        return self.root / "kubelet-config.json"

    @property
    def kubelet_kubeconfig(self) -> Path:
        return self.root / "kubelet.kubeconfig"

    @property
    def scheduler_kubeconfig(self) -> Path:
        return self.root / "scheduler.kubeconfig"

    @property
    def pod_logs(self) -> Path:
        return self.root / "pod-logs"

    @property
    def resolv_conf(self) -> Path:
        return self.root / "resolv.conf"


@dataclass(frozen=True)
class Node:
    """The node of a control plane started with node=True, as recorded in DIR/state.json."""

    name: str
    root: Path
    api_port: int
    dead_registry_port: int
    survey: leftovers.Survey

    @property
    def layout(self) -> NodeLayout:
        return NodeLayout(self.root)

    @property
    def dead_registry(self) -> str:
        """The loopback address every registry resolves to (nothing listens there)."""
        return f"127.0.0.1:{self.dead_registry_port}"

    def host_network_environment(self) -> dict[str, str]:
        """What a `hostNetwork: true` Pod needs to reach the API server in-cluster.

        The `kubernetes` Service has no endpoints here (and its address is not on this
        machine): the Pod goes to the API server on loopback instead.
        """
        return {
            "KUBERNETES_SERVICE_HOST": "127.0.0.1",
            "KUBERNETES_SERVICE_PORT": str(self.api_port),
        }

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "root": str(self.root),
            "api_port": self.api_port,
            "dead_registry_port": self.dead_registry_port,
            "survey": self.survey.as_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Node:
        survey = data["survey"]
        assert isinstance(survey, dict)
        return cls(
            name=str(data["name"]),
            root=Path(str(data["root"])),
            api_port=int(str(data["api_port"])),
            dead_registry_port=int(str(data["dead_registry_port"])),
            survey=leftovers.Survey.from_json(survey),
        )


def check_socket_paths(layout: NodeLayout) -> None:
    """Unix socket paths are short (about 104 bytes): refuse a folder too deep for them."""
    for path, limit in layout.longest_sockets:
        if len(str(path)) > limit:
            raise NodeError(
                f"{path} is longer than {limit} bytes, too long for a unix socket: "
                "start the node in a shorter folder"
            )


def check_node_ip() -> None:
    """The kubelet refuses a node IP that no interface here has: say so before it starts."""
    with socket.socket() as probe:
        try:
            probe.bind((NODE_IP, 0))  # binding sends nothing; it fails unless the address is ours
        except OSError:
            raise NodeError(
                f"{NODE_IP}, the node's IP, is not an address of this machine: "
                "the kubelet would refuse it"
            ) from None


def node_name() -> str:
    """The machine's hostname, once it is known to resolve to loopback only.

    The API server dials the kubelet by this name (`kubectl logs`): a name that resolved
    elsewhere would send that connection off the machine.
    """
    name = socket.gethostname()
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(name, None)}
    except socket.gaierror as unknown:
        raise NodeError(f"the hostname {name!r} does not resolve ({unknown})") from None
    if not all(ipaddress.ip_address(address).is_loopback for address in addresses):
        raise NodeError(
            f"the hostname {name!r} resolves to {sorted(addresses)}, not only to loopback: "
            "the API server would reach the kubelet off this machine"
        )
    return name


def _toml_string(value: str | Path) -> str:
    return json.dumps(str(value))


def containerd_config(layout: NodeLayout, sandbox_image: str) -> str:
    """containerd's config: all its state under DIR/node/containerd, runc v2, cgroupfs."""
    c = layout.containerd
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    lines = [
        "version = 2",
        f"root = {_toml_string(c / 'root')}",
        f"state = {_toml_string(c / 'state')}",
        'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", '
        '"io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", '
        '"io.containerd.snapshotter.v1.devmapper"]',
        "[grpc]",
        f"  address = {_toml_string(layout.socket)}",
        "[ttrpc]",
        f"  address = {_toml_string(layout.ttrpc_socket)}",
        '[plugins."io.containerd.internal.v1.opt"]',
        f"  path = {_toml_string(c / 'opt')}",
        f"[{cri}]",
        f"  sandbox_image = {_toml_string(sandbox_image)}",
        # The machine lacks CAP_SYS_RESOURCE: without this every sandbox fails to start.
        "  restrict_oom_score_adj = true",
        '  stream_server_address = "127.0.0.1"',
        '  stream_server_port = "0"',
        # The Pods' network namespaces under DIR, not in /run/netns, which is everyone's.
        "  netns_mounts_under_state_dir = true",
        f"[{cri}.containerd]",
        '  snapshotter = "overlayfs"',
        '  default_runtime_name = "runc"',
        f"[{cri}.containerd.runtimes.runc]",
        '  runtime_type = "io.containerd.runc.v2"',
        f"[{cri}.containerd.runtimes.runc.options]",
        "  SystemdCgroup = false",
        f"  Root = {_toml_string(c / 'runc')}",
        f"[{cri}.cni]",
        f"  bin_dir = {_toml_string(CNI_BIN)}",
        f"  conf_dir = {_toml_string(layout.cni_conf_dir)}",
        "  max_conf_num = 1",
        f"[{cri}.registry]",
        f"  config_path = {_toml_string(layout.registry_hosts)}",
    ]
    return "\n".join(lines) + "\n"


def dead_registry_hosts(port: int) -> str:
    """hosts.toml sending every pull and resolve to 127.0.0.1:<port>, where nothing listens."""
    server = f"http://127.0.0.1:{port}"
    return (
        f"server = {_toml_string(server)}\n"
        f"[host.{_toml_string(server)}]\n"
        '  capabilities = ["pull", "resolve"]\n'
    )


def dead_proxy_environment(port: int) -> dict[str, str]:
    """A second guard: should any registry escape hosts.toml, its proxy is the dead port."""
    proxy = f"http://127.0.0.1:{port}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
    return {**dict.fromkeys(names, proxy), "NO_PROXY": "", "no_proxy": ""}


def cni_conflist(ipam_dir: Path) -> dict[str, object]:
    """A bridge network that stays on the machine: no masquerading, no default route."""
    return {
        "cniVersion": "1.0.0",
        "name": leftovers.NETWORK_NAME,
        "plugins": [
            {
                "type": "bridge",
                "bridge": leftovers.BRIDGE,
                "isGateway": True,  # gives the bridge an address: the host reaches the Pods
                "isDefaultGateway": False,
                "ipMasq": False,
                "hairpinMode": False,
                "ipam": {
                    "type": "host-local",
                    "ranges": [[{"subnet": POD_SUBNET}]],
                    "routes": [],
                    "dataDir": str(ipam_dir),
                },
            }
        ],
    }


def write_configuration(layout: NodeLayout, sandbox_image: str, dead_port: int) -> None:
    """Every file containerd and the Pods' network read, written before containerd starts."""
    layout.cni_conf_dir.mkdir(parents=True, exist_ok=True)
    (layout.registry_hosts / "_default").mkdir(parents=True, exist_ok=True)
    layout.pod_logs.mkdir(parents=True, exist_ok=True)
    conflist = cni_conflist(layout.root / "cni" / "ipam")
    (layout.cni_conf_dir / "10-driftctl.conflist").write_text(json.dumps(conflist, indent=2))
    (layout.registry_hosts / "_default" / "hosts.toml").write_text(dead_registry_hosts(dead_port))
    layout.containerd_config.write_text(containerd_config(layout, sandbox_image))
    layout.resolv_conf.write_text("nameserver 127.0.0.1\n")


def containerd_argv(layout: NodeLayout) -> list[str]:
    return ["containerd", "--config", str(layout.containerd_config), "--log-level", "warn"]


def ctr(layout: NodeLayout, *args: str) -> list[str]:
    return ["ctr", "--address", str(layout.socket), "--namespace", CONTAINERD_NAMESPACE, *args]


def wait_for_containerd(layout: NodeLayout, running: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SOCKET_TIMEOUT
    while time.monotonic() < deadline:
        if running.poll() is not None:
            raise NodeError(f"containerd exited with {running.returncode}")
        answer = subprocess.run(ctr(layout, "version"), capture_output=True, check=False)
        if answer.returncode == 0:
            return
        time.sleep(0.1)
    raise NodeError(f"containerd did not answer on {layout.socket} in {SOCKET_TIMEOUT:.0f}s")


def import_image(layout: NodeLayout, tarball: Path) -> None:
    """Import an OCI image tarball into the node's containerd, where the kubelet finds it."""
    done = subprocess.run(
        ctr(layout, "images", "import", str(tarball)), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise NodeError(f"importing {tarball} failed: {done.stderr.strip()}")


def kubelet_config(layout: NodeLayout, ca: Path, port: int, healthz_port: int) -> dict[str, object]:
    """The kubelet on loopback, every path under DIR/node, relaxed eviction and image GC."""
    return {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "address": "127.0.0.1",
        "port": port,
        "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": healthz_port,
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": True},
            "x509": {"clientCAFile": str(ca)},
        },
        "authorization": {"mode": "Webhook"},
        "cgroupDriver": "cgroupfs",
        "failCgroupV1": False,
        "failSwapOn": False,
        "containerRuntimeEndpoint": f"unix://{layout.socket}",
        "podLogsDir": str(layout.pod_logs),
        "resolvConf": str(layout.resolv_conf),
        "clusterDomain": "cluster.local",
        "evictionHard": {
            "memory.available": "100Mi",
            "nodefs.available": "1%",
            "imagefs.available": "1%",
            "nodefs.inodesFree": "1%",
        },
        # The images were imported by hand and cannot be pulled again: never collect them.
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "shutdownGracePeriod": "0s",
        "rotateCertificates": False,
        "serializeImagePulls": False,
    }


def kubelet_argv(bin_dir: Path, layout: NodeLayout, name: str) -> list[str]:
    return [
        str(bin_dir / "kubelet"),
        f"--config={layout.kubelet_config}",
        f"--kubeconfig={layout.kubelet_kubeconfig}",
        f"--root-dir={layout.kubelet_dir}",
        f"--cert-dir={layout.kubelet_dir / 'pki'}",
        f"--hostname-override={name}",
        f"--node-ip={NODE_IP}",
        "--v=1",
    ]


def scheduler_argv(bin_dir: Path, layout: NodeLayout) -> list[str]:
    return [
        str(bin_dir / "kube-scheduler"),
        f"--kubeconfig={layout.scheduler_kubeconfig}",
        "--leader-elect=false",
        "--secure-port=0",
        "--v=1",
    ]


def node_ready(node: dict[str, object]) -> bool:
    """Ready, and no longer tainted not-ready: a Pod can be scheduled on it now."""
    status = node.get("status")
    spec = node.get("spec")
    conditions = status.get("conditions", []) if isinstance(status, dict) else []
    taints = spec.get("taints", []) if isinstance(spec, dict) else []
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
    not_ready_taint = any(t.get("key") == "node.kubernetes.io/not-ready" for t in taints)
    return ready and not not_ready_taint
