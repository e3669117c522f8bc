"""`python -m tests.controlplane start|stop|status [--node] --dir DIR`: the control plane by hand.

`start` returns once the API server is ready and leaves the processes running in the
background; `DIR/kubeconfig` then reaches it as admin. `start --node` adds a node that runs
Pods (as root; it installs containerd and friends with apt when missing) and returns once
the node is Ready. `stop` leaves no process behind, and removes what a node left outside DIR.
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
    parser.add_argument("action", choices=["start", "stop", "status", "build"])
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
    return parser.parse_args(argv)


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
        return 0
    if args.action == "stop":
        stopped = launcher.stop(args.dir)
        print(f"stopped: {', '.join(stopped)}" if stopped else "nothing was running")
        return 0
    state = launcher.status(args.dir)
    print(state)
    return 0 if state.startswith("up") else 1


def main() -> int:
    try:
        return run(parse(sys.argv[1:]))
    except launcher.StartError as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
