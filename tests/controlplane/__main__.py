"""`python -m tests.controlplane start|stop|status [--node] --dir DIR`: the control plane by hand.

`start` returns once the API server is ready and leaves the processes running in the
background; `DIR/kubeconfig` then reaches it as admin. `start --node` adds a node that runs
Pods (as root; it installs containerd and friends with apt when missing) and returns once
the node is Ready. `import IMAGE.tar...` hands OCI image tarballs to the node's containerd
(image/build.py, tests/controlplane/testimages.py make them). `stop` leaves no process
behind, and removes what a node left outside DIR.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tests.controlplane import launcher

DEFAULT_CRD = Path(__file__).resolve().parents[2] / "specs" / "webapp-crd.yaml"


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.controlplane", description=__doc__)
    parser.add_argument("action", choices=["start", "stop", "status", "build", "import"])
    parser.add_argument("images", nargs="*", type=Path, help="image tarballs (import)")
    parser.add_argument(
        "--node",
        action="store_true",
        help="start (or build) a node too: containerd, kube-scheduler and a kubelet",
    )
    parser.add_argument("--dir", type=Path, default=Path(".controlplane"), help="state folder")
    parser.add_argument(
        "--crd",
        type=Path,
        action="append",
        help="CRD manifest installed before the controller manager starts "
        "(default: specs/webapp-crd.yaml when it exists)",
    )
    return parser.parse_intermixed_args(argv)


def run(args: argparse.Namespace) -> int:
    if args.action == "build":
        print(launcher.build_binaries(args.node))
        return 0
    if args.action == "start":
        crds = args.crd if args.crd is not None else [p for p in [DEFAULT_CRD] if p.exists()]
        started = time.monotonic()
        plane = launcher.start(args.dir, crds, node=args.node)
        node = f", node {plane.node.name} Ready" if plane.node else ""
        print(f"up {plane.server}{node} in {time.monotonic() - started:.1f}s")
        print(f"export KUBECONFIG={plane.kubeconfig}")
        if plane.node:
            pods = " ".join(f"{k}={v}" for k, v in plane.node.host_network_environment().items())
            print(f"# hostNetwork Pods reach the API server with: {pods}")
        return 0
    if args.action == "import":
        return _import(args.dir, args.images)
    if args.action == "stop":
        stopped = launcher.stop(args.dir)
        print(f"stopped: {', '.join(stopped)}" if stopped else "nothing was running")
        return 0
    state = launcher.status(args.dir)
    print(state)
    return 0 if state.startswith("up") else 1


def _import(folder: Path, images: list[Path]) -> int:
    plane = launcher.read_state(folder)
    if plane is None:
        print(f"error: no control plane recorded in {folder}", file=sys.stderr)
        return 1
    for image in images:
        launcher.import_image(plane, image)
        print(f"imported {image}")
    return 0


def main() -> int:
    try:
        return run(parse(sys.argv[1:]))
    except launcher.StartError as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
