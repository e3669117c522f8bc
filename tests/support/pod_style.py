"""driftctl run the way a Pod runs it, without a node: the in-cluster settings, for real.

A Pod's process finds the API server from `KUBERNETES_SERVICE_HOST` and `_PORT`, and its
ServiceAccount under /var/run/secrets/kubernetes.io/serviceaccount/ (token, ca.crt,
namespace). Here the process gets exactly those: the variables point at the test control
plane on loopback (NODE.md: never at a Service address), and the folder holds a real token
of the ServiceAccount, the control plane's CA and the namespace, at the real path, in a
mount namespace of its own (`unshare --mount`: a tmpfs over /run, which /var/run links to,
seen by that process alone). No kubeconfig, no KUBECONFIG, a HOME without ~/.kube: the
kubernetes client's in-cluster loader does the rest, as in a Pod.

A mount namespace needs root (or an unprivileged user namespace); under CI this never
skips.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.controlplane import launcher
from tests.support.harness import driftctl_env

SERVICE_ACCOUNT_DIR = "/run/secrets/kubernetes.io/serviceaccount"  # /var/run is /run


def require_mount_namespace() -> list[str]:
    """The `unshare` argv prefix that gives a process its own mounts; skip (fail under CI)
    when this machine cannot."""
    prefix = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "-Urm"]
    if shutil.which("unshare") is not None:
        tried = subprocess.run([*prefix, "true"], capture_output=True, check=False)
        if tried.returncode == 0:
            return prefix
    reason = "a Pod-style run needs a mount namespace (unshare --mount)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; under CI it never skips")
    pytest.skip(reason)


def pod_style_argv(
    plane: launcher.ControlPlane, token: str, namespace: str, argv: Sequence[str], home: Path
) -> tuple[list[str], dict[str, str]]:
    """(argv, environment) that run `argv` as a Pod of ServiceAccount `token`'s in
    `namespace` would: the in-cluster settings only."""
    prefix = require_mount_namespace()
    files = home / "serviceaccount"
    files.mkdir(parents=True, exist_ok=True)
    (files / "token").write_text(token)
    (files / "namespace").write_text(namespace)
    shutil.copy(plane.folder / "pki" / "ca.crt", files / "ca.crt")
    setup = " && ".join(
        [
            "mount -t tmpfs tmpfs /run",
            f"mkdir -p {SERVICE_ACCOUNT_DIR}",
            f"cp {shlex.quote(str(files))}/* {SERVICE_ACCOUNT_DIR}/",
            "exec " + shlex.join(argv),
        ]
    )
    host, port = plane.server.removeprefix("https://").rsplit(":", 1)
    env = {k: v for k, v in driftctl_env().items() if k != "KUBECONFIG"}
    env.update(KUBERNETES_SERVICE_HOST=host, KUBERNETES_SERVICE_PORT=port, HOME=str(home))
    return [*prefix, "sh", "-c", setup], env
