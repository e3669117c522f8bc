"""Every way a kubeconfig says who is asking reaches the real API server as that identity.

driftctl reads kubeconfigs itself (core/api/kubeconfig.py, shell/kube_credentials.py);
these runs of `driftctl plan` against the session's control plane show that what it sends
is what the kubeconfig means:

- an exec plugin's token is fetched once for a whole run of many requests from a pool of
  workers, and fetched again when it is about to expire; the plugin is told it is not
  interactive (KUBERNETES_EXEC_INFO) and its own env entries reach it;
- an exec plugin's client certificate and key authenticate (the admin's);
- a plugin that is not installed, or that fails, is said in a person's words, exit 4;
- impersonation (`as`) acts as the user named: the server refuses that user, not the admin;
- a token file, written relative to the kubeconfig, authenticates;
- `tls-server-name` is the name the server's certificate is checked against (one of its
  names passes, another is refused), and `insecure-skip-tls-verify` skips the check;
- two files on KUBECONFIG merge: a context in the first, its cluster and user in the second;
- `proxy-url` sends every request through that proxy (a CONNECT tunnel on loopback).
"""

from __future__ import annotations

import base64
import json
import os
import select
import socket
import socketserver
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane import launcher
from tests.support.harness import Harness, Ran, driftctl_env
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration


def config_of(kubeconfig: Path) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(kubeconfig.read_text())
    return config


def written(folder: Path, config: dict[str, Any], name: str = "kubeconfig") -> Path:
    path = folder / name
    path.write_text(json.dumps(config))
    path.chmod(0o600)
    return path


def with_user(kubeconfig: Path, user: dict[str, Any], folder: Path) -> Path:
    """The kubeconfig's cluster and context, and `user` as its only user."""
    config = config_of(kubeconfig)
    config["users"] = [{"name": "someone", "user": user}]
    config["contexts"][0]["context"]["user"] = "someone"
    return written(folder, config)


def plugin(folder: Path, credential: dict[str, Any], *, exit_code: int = 0) -> Path:
    """An exec plugin: logs each run and its KUBERNETES_EXEC_INFO and GREETING to runs.log,
    then prints `credential` as an ExecCredential (or fails with `exit_code`)."""
    script = folder / "credential-plugin"
    answer: dict[str, Any] = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": credential,
    }
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(folder / 'runs.log')!r}, 'a') as log:\n"
        "    log.write(json.dumps([os.environ.get('KUBERNETES_EXEC_INFO'),"
        " os.environ.get('GREETING')]) + '\\n')\n"
        f"if {exit_code}:\n"
        "    print('login required: run the login command first', file=sys.stderr)\n"
        f"    sys.exit({exit_code})\n"
        f"print(json.dumps({answer!r}))\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def exec_user(command: str, *, env: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": command,
            "interactiveMode": "IfAvailable",
            "env": env or [],
            "installHint": "install credential-plugin from your platform team's page",
        }
    }


def runs(folder: Path) -> list[list[Any]]:
    log = folder / "runs.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def token_of(kubeconfig: Path) -> str:
    return str(config_of(kubeconfig)["users"][0]["user"]["token"])


def plan(harness: Harness, kubeconfig: Path) -> Ran:
    return harness.driftctl("plan", "--concurrency", "4", kubeconfig=kubeconfig)


def planned(ran: Ran) -> bool:
    """A plan that read the cluster: the WebApps to create are listed."""
    return ran.code == 1 and ran.out.splitlines()[-1].startswith("Plan: 6 to create")


@pytest.fixture
def apps(harness: Harness) -> Harness:
    harness.declare({f"app-{i}": ("nginx:1.27", 1) for i in range(3)})
    return harness


def test_an_exec_plugins_token_is_fetched_once_for_a_whole_run(
    apps: Harness, tmp_path: Path
) -> None:
    script = plugin(tmp_path, {"token": token_of(apps.kubeconfig)})
    user = exec_user(str(script), env=[{"name": "GREETING", "value": "hello"}])
    kubeconfig = with_user(apps.kubeconfig, user, tmp_path)

    ran = plan(apps, kubeconfig)

    assert planned(ran), ran
    [(info, greeting)] = runs(tmp_path)
    assert json.loads(info) == {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "spec": {"interactive": False},
    }
    assert greeting == "hello"


def test_an_exec_plugins_token_about_to_expire_is_fetched_again(
    apps: Harness, tmp_path: Path
) -> None:
    # It expires within the margin a credential must have left (10 s): every request asks.
    soon = "2000-01-01T00:00:00Z"
    script = plugin(tmp_path, {"token": token_of(apps.kubeconfig), "expirationTimestamp": soon})
    kubeconfig = with_user(apps.kubeconfig, exec_user(str(script)), tmp_path)

    ran = plan(apps, kubeconfig)

    assert planned(ran), ran
    assert len(runs(tmp_path)) >= 3  # the CRD, the Lease, each LIST: one run each


def test_a_credential_the_server_refuses_is_fetched_again_once(
    apps: Harness, tmp_path: Path
) -> None:
    script = plugin(tmp_path, {"token": token_of(apps.kubeconfig)})
    revoked = tmp_path / "revoked-first"
    revoked.write_text(
        f"#!{sys.executable}\n"
        "import os, pathlib, subprocess, sys\n"
        f"spent = pathlib.Path({str(tmp_path / 'spent')!r})\n"
        "if not spent.exists():\n"
        "    spent.touch()\n"
        '    print(\'{"apiVersion": "client.authentication.k8s.io/v1", \'\n'
        '          \'"kind": "ExecCredential", "status": {"token": "revoked"}}\')\n'
        "    sys.exit(0)\n"
        f"os.execv({str(script)!r}, [{str(script)!r}])\n"
    )
    revoked.chmod(revoked.stat().st_mode | stat.S_IXUSR)
    kubeconfig = with_user(apps.kubeconfig, exec_user(str(revoked)), tmp_path)

    ran = plan(apps, kubeconfig)

    assert planned(ran), ran
    assert len(runs(tmp_path)) == 1  # the revoked token's run, then this one


def test_an_exec_plugins_client_certificate_authenticates(
    apps: Harness, control_plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    admin = config_of(control_plane.kubeconfig)["users"][0]["user"]
    pair = {
        "clientCertificateData": base64.b64decode(admin["client-certificate-data"]).decode(),
        "clientKeyData": base64.b64decode(admin["client-key-data"]).decode(),
    }
    script = plugin(tmp_path, pair)
    kubeconfig = with_user(apps.kubeconfig, exec_user(str(script)), tmp_path)

    ran = plan(apps, kubeconfig)

    assert planned(ran), ran
    assert len(runs(tmp_path)) == 1


def test_an_exec_plugin_that_is_not_installed_is_named_with_its_hint(
    apps: Harness, tmp_path: Path
) -> None:
    missing = str(tmp_path / "no-such-plugin")
    kubeconfig = with_user(apps.kubeconfig, exec_user(missing), tmp_path)

    ran = plan(apps, kubeconfig)

    assert ran.code == 4, ran
    assert ran.err.splitlines()[-2:] == [
        f"error: the exec plugin {missing!r} is not installed",
        "hint: install credential-plugin from your platform team's page",
    ]


def test_an_exec_plugin_that_fails_is_said_with_its_last_words(
    apps: Harness, tmp_path: Path
) -> None:
    script = plugin(tmp_path, {}, exit_code=3)
    kubeconfig = with_user(apps.kubeconfig, exec_user(str(script)), tmp_path)

    ran = plan(apps, kubeconfig)

    assert ran.code == 4, ran
    assert ran.err.splitlines()[-1] == (
        f"error: the exec plugin {str(script)!r} exited 3: "
        "login required: run the login command first"
    )
    assert "Traceback" not in ran.err


def test_impersonation_acts_as_the_user_it_names(
    apps: Harness, control_plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    config = config_of(control_plane.kubeconfig)  # the admin may impersonate anyone
    config["users"][0]["user"]["as"] = "nobody-in-particular"
    config["users"][0]["user"]["as-groups"] = ["team-a"]
    kubeconfig = written(tmp_path, config)

    ran = plan(apps, kubeconfig)

    assert ran.code == 4, ran
    assert 'User "nobody-in-particular" cannot get resource' in ran.err, ran.err


def test_a_token_file_next_to_the_kubeconfig_authenticates(apps: Harness, tmp_path: Path) -> None:
    (tmp_path / "token").write_text(token_of(apps.kubeconfig) + "\n")
    kubeconfig = with_user(apps.kubeconfig, {"tokenFile": "token"}, tmp_path)

    ran = plan(apps, kubeconfig)

    assert planned(ran), ran


@pytest.mark.parametrize(
    ("name", "passes"), [("kubernetes.default.svc", True), ("elsewhere.example", False)]
)
def test_the_server_certificate_is_checked_against_tls_server_name(
    apps: Harness, tmp_path: Path, name: str, passes: bool
) -> None:
    config = config_of(apps.kubeconfig)
    config["clusters"][0]["cluster"]["tls-server-name"] = name

    ran = plan(apps, written(tmp_path, config))

    if passes:
        assert planned(ran), ran
    else:
        assert ran.code == 4, ran
        assert "certificate verify failed" in ran.err, ran.err


def test_insecure_skip_tls_verify_reaches_a_server_of_no_known_authority(
    apps: Harness, tmp_path: Path
) -> None:
    config = config_of(apps.kubeconfig)
    cluster = config["clusters"][0]["cluster"]
    del cluster["certificate-authority-data"]

    refused = plan(apps, written(tmp_path, config))
    cluster["insecure-skip-tls-verify"] = True
    ran = plan(apps, written(tmp_path, config))

    assert refused.code == 4, refused
    assert "certificate verify failed" in refused.err, refused
    assert planned(ran), ran


def test_two_kubeconfig_files_merge_as_kubectl_merges_them(apps: Harness, tmp_path: Path) -> None:
    config = config_of(apps.kubeconfig)
    first = {
        "apiVersion": "v1",
        "kind": "Config",
        "contexts": [{"name": "mine", "context": {"cluster": "theirs", "user": "me"}}],
        "current-context": "mine",
    }
    second = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "theirs", "cluster": config["clusters"][0]["cluster"]}],
        "users": [{"name": "me", "user": config["users"][0]["user"]}],
        "contexts": [{"name": "other", "context": {"cluster": "nowhere", "user": "me"}}],
        "current-context": "other",
    }
    paths = [written(tmp_path, first, "a"), written(tmp_path, second, "b")]
    argv = apps.argv("plan")
    at = argv.index("--kubeconfig")
    del argv[at : at + 2]
    env = {**driftctl_env(), "KUBECONFIG": os.pathsep.join(str(path) for path in paths)}

    done = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )

    assert planned(Ran(done.returncode, done.stdout, done.stderr)), done


class _Tunnel(socketserver.BaseRequestHandler):
    """One CONNECT: to a loopback port only; the bytes relayed both ways until one closes."""

    server: _ConnectProxy

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            head += chunk
        verb, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
        host, port = target.rsplit(":", 1)
        if verb != "CONNECT" or host != "127.0.0.1":
            self.request.sendall(b"HTTP/1.1 403 Forbidden\r\n\r\n")
            return
        self.server.tunnels.append(target)
        with socket.create_connection((host, int(port))) as upstream:
            self.request.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            ends = [self.request, upstream]
            while True:
                ready, _, _ = select.select(ends, [], [], 30)
                if not ready:
                    return
                for end in ready:
                    data = end.recv(65536)
                    if not data:
                        return
                    (upstream if end is self.request else self.request).sendall(data)


class _ConnectProxy(socketserver.ThreadingTCPServer):
    daemon_threads = True
    tunnels: list[str]


@pytest.fixture
def connect_proxy() -> Iterator[_ConnectProxy]:
    proxy = _ConnectProxy(("127.0.0.1", 0), _Tunnel)
    proxy.tunnels = []
    thread = threading.Thread(target=proxy.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield proxy
    proxy.shutdown()
    proxy.server_close()


def test_a_proxy_url_carries_every_request(
    apps: Harness, tmp_path: Path, connect_proxy: _ConnectProxy
) -> None:
    config = config_of(apps.kubeconfig)
    cluster = config["clusters"][0]["cluster"]
    cluster["proxy-url"] = f"http://127.0.0.1:{connect_proxy.server_address[1]}"

    ran = plan(apps, written(tmp_path, config))

    assert planned(ran), ran
    server = cluster["server"].removeprefix("https://")
    assert connect_proxy.tunnels, "no request went through the proxy"
    assert set(connect_proxy.tunnels) == {server}
