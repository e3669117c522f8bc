"""What a node leaves outside its folder, found exactly and removed when it stops.

containerd, its shims, runc, the CNI plugins and the kubelet write to a few fixed places
whatever their configuration: shim sockets in /run/containerd, a CNI cache in
/var/lib/cni, log links in /var/log/containers, a socket in /var/lib/kubelet/device-plugins,
the `kubepods` cgroups, the Pods' bridge, and the bridge plugin turns on IPv4 forwarding.
Inside DIR, the Pods' network namespaces (containerd keeps them under its state folder,
not in /run/netns), the containers' root file systems, volumes and shm are mounts that
outlive a killed shim: unmounting them frees the namespaces and with them the Pods' veths.

`survey()` notes before the node starts which of those places exist. On stop,
`kill_containers()` kills every container process under our shims (found by our socket in
their command lines) and notes the sockets they listened on, and `sweep()` then removes
each place that did not exist before and, in places that did, only what is provably ours.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tests.controlplane import processes

BRIDGE = "driftctl0"
NETWORK_NAME = "driftctl-node"
PLACES = [
    Path("/run/containerd"),
    Path("/var/lib/cni"),
    Path("/var/log/containers"),
    Path("/var/lib/kubelet"),
    Path("/var/lib/kubelet/device-plugins"),
]
IP_FORWARD = Path("/proc/sys/net/ipv4/ip_forward")
KUBEPODS = "kubepods"
MNT_DETACH = 2


@dataclass(frozen=True)
class Survey:
    """What existed outside the node's folder before it started."""

    places: list[str]
    cgroups: list[str]
    ip_forward: str

    def as_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Survey:
        places, cgroups, forward = data["places"], data["cgroups"], data["ip_forward"]
        assert isinstance(places, list)
        assert isinstance(cgroups, list)
        return cls([str(p) for p in places], [str(c) for c in cgroups], str(forward))


@dataclass(frozen=True)
class Killed:
    """What kill_containers() leaves to sweep(): the sockets the killed shims listened on."""

    sockets: list[str] = field(default_factory=list)


def mounts() -> list[tuple[str, str]]:
    """(mount point, file system type) of every mount, as this process sees them."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, rest = line.partition(" - ")
        point = fields.split()[4].encode().decode("unicode_escape")
        found.append((point, rest.split()[0]))
    return found


def cgroup_dirs() -> list[Path]:
    return [Path(point) / KUBEPODS for point, kind in mounts() if kind in ("cgroup", "cgroup2")]


def survey() -> Survey:
    return Survey(
        places=[str(place) for place in PLACES if place.exists()],
        cgroups=[str(path) for path in cgroup_dirs() if path.exists()],
        ip_forward=IP_FORWARD.read_text().strip(),
    )


def shims(socket: Path) -> list[int]:
    """containerd-shim processes serving our containerd (their -address is our socket)."""
    return [
        pid
        for pid in processes.all_pids()
        if "-address" in (argv := processes.command_line(pid))
        and str(socket) in argv
        and Path(argv[0]).name.startswith("containerd-shim")
    ]


def _listening_sockets(pids: list[int]) -> list[str]:
    """Paths of the unix sockets that these processes hold open."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[len("socket:[") : -1])
    paths = []
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        columns = line.split()
        if len(columns) >= 8 and columns[6] in inodes and columns[7].startswith("/"):
            paths.append(columns[7])
    return sorted(set(paths))


def kill_containers(socket: Path) -> Killed:
    """SIGKILL our shims and every process below them (the containers)."""
    found = shims(socket)
    sockets = _listening_sockets(found)
    victims = processes.descendants(found) + found
    processes.kill_now(victims)
    return Killed(sockets=sockets)


def _unmount_under(folder: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    inside = f"{folder}/"
    points = sorted(
        {point for point, _ in mounts() if point.startswith(inside)}, key=len, reverse=True
    )
    for point in points:
        libc.umount2(point.encode(), MNT_DETACH)


def running_kubelets() -> list[int]:
    """Every kubelet process on the machine, ours or not."""
    return [
        pid
        for pid in processes.all_pids()
        if (argv := processes.command_line(pid)) and Path(argv[0]).name == "kubelet"
    ]


def remove_orphaned_bridge() -> bool:
    """Remove the Pods' bridge when no kubelet runs: a node killed without `stop` left it.

    Return whether the bridge still stands (a running node holds it).
    """
    if not Path(f"/sys/class/net/{BRIDGE}").exists():
        return False
    if running_kubelets():
        return True
    _remove_bridge()
    return Path(f"/sys/class/net/{BRIDGE}").exists()


def _remove_bridge() -> None:
    if Path(f"/sys/class/net/{BRIDGE}").exists():
        subprocess.run(["ip", "link", "delete", BRIDGE], capture_output=True, check=False)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file() or path.is_socket():
        path.unlink(missing_ok=True)
    elif path.is_dir():
        if path.is_mount():
            libc = ctypes.CDLL(None, use_errno=True)
            libc.umount2(str(path).encode(), MNT_DETACH)
        shutil.rmtree(path, ignore_errors=True)


def _remove_ours_in_places(folder: Path, killed: Killed) -> None:
    """In places that existed before: only our sockets, CNI cache files and log links."""
    for socket in killed.sockets:
        if socket.startswith("/run/containerd/"):
            _remove(Path(socket))
    _remove_cni_cache(Path("/var/lib/cni/results"))
    logs = Path("/var/log/containers")
    for link in logs.glob("*.log") if logs.is_dir() else []:
        if link.is_symlink() and os.readlink(link).startswith(f"{folder}/"):
            link.unlink()


def _remove_cni_cache(results: Path) -> None:
    """libcni's cache files of our sandboxes: `<network>-<sandbox id>-<interface>`.

    Our sandboxes are those with a file of our network; their loopback files go too.
    """
    if not results.is_dir():
        return
    ours = {path.name.split("-")[-2] for path in results.glob(f"{NETWORK_NAME}-*-*")}
    for cached in results.iterdir():
        if cached.name.count("-") >= 2 and cached.name.split("-")[-2] in ours:
            _remove(cached)


def _remove_cgroups(survey: Survey) -> None:
    for top in cgroup_dirs():
        if str(top) in survey.cgroups or not top.exists():
            continue
        for here, _, _ in os.walk(top, topdown=False):
            with contextlib.suppress(OSError):
                Path(here).rmdir()


def sweep(folder: Path, survey: Survey, killed: Killed) -> None:
    """Remove what the node left outside `folder`, and the mounts it left inside."""
    _unmount_under(folder)
    _remove_bridge()
    _remove_ours_in_places(folder, killed)
    for place in PLACES:
        if str(place) not in survey.places:
            _remove(place)
    _remove_cgroups(survey)
    if IP_FORWARD.read_text().strip() != survey.ip_forward:
        IP_FORWARD.write_text(survey.ip_forward)
