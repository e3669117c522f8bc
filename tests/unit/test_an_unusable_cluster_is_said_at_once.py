"""A cluster driftctl cannot use is said at once, in a person's words, as kubectl does.

- a connection refused before the API server ever answered is not a passing fault: one
  error, no retries (a real loopback port where nothing listens);
- a kubeconfig file that does not exist is named as missing;
- a context the kubeconfig lacks is named with the contexts it has.
Nothing here needs a cluster: each run stops before the first answer.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.support.clirun import Ran, run_driftctl


def free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def kubeconfig(folder: Path, server: str, contexts: tuple[str, ...] = ("dev",)) -> Path:
    """A kubeconfig with one cluster at `server`, a token user, and `contexts` onto them."""
    path = folder / "kubeconfig"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "local", "cluster": {"server": server}}],
        "users": [{"name": "me", "user": {"token": "t"}}],
        "contexts": [{"name": n, "context": {"cluster": "local", "user": "me"}} for n in contexts],
        "current-context": contexts[0],
    }
    path.write_text(json.dumps(config))
    return path


def unlock(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *flags: str) -> Ran:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    return run_driftctl(["unlock", "--timeout", "10", *flags], capsys, monkeypatch)


def test_a_refused_connection_on_the_first_request_fails_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = f"http://127.0.0.1:{free_port()}"

    ran = unlock(capsys, monkeypatch, "--kubeconfig", str(kubeconfig(tmp_path, server)))

    assert ran.code == 4
    assert "retrying" not in ran.err
    [error, hint] = ran.err.splitlines()
    lease = "Lease/driftctl-system/driftctl-default"
    assert error.startswith(f"error: get {lease}: API server {server} unreachable: ")
    assert "Connection refused" in error
    assert hint == (
        "hint: the cluster never answered: is it running, and are the kubeconfig and its "
        "context the ones you mean? (A cluster that never answered is not retried.)"
    )


def test_a_kubeconfig_that_does_not_exist_is_named_as_missing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = unlock(capsys, monkeypatch, "--kubeconfig", "/nope/config")

    assert ran.code == 4
    assert ran.err.splitlines() == [
        "error: kubeconfig /nope/config does not exist",
        "hint: pass --kubeconfig with the file of your cluster, or set KUBECONFIG",
    ]


def test_a_context_the_kubeconfig_lacks_is_named_with_those_it_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = kubeconfig(tmp_path, "https://127.0.0.1:6443", contexts=("dev", "prod"))

    ran = unlock(capsys, monkeypatch, "--kubeconfig", str(path), "--context", "staging")

    assert ran.code == 4
    assert ran.err.splitlines() == [
        f"error: kubeconfig {path} has no context 'staging'",
        "hint: its contexts: dev, prod (kubectl config get-contexts)",
    ]
