"""Real Git repositories in temporary folders, and real Git servers on loopback, for tests.

Git is never mocked: a test writes files, commits them with the real git, and points
driftctl at the folder, at a file:// URL, at `git daemon` (git://), at `git http-backend`
behind a small HTTP server that demands a token, or at OpenSSH's sshd (ssh://) with a
host key and an authorized key of the test's own. Inherited GIT_* variables are dropped so
a developer's or CI's settings cannot leak in.

`python -m tests.support.gitrepos serve-http ROOT --token-file FILE` runs the token-checking
server on its own (make demo): it prints its URL, then serves until it is stopped.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import getpass
import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment without GIT_*, with a fixed author and no user config."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_CONFIG_NOSYSTEM="1",
    )
    env.update(extra or {})
    return env


class Repo:
    """A working repository in a folder: write files, make symlinks, commit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet", "--initial-branch=main")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=git_env(), capture_output=True, check=True
        )
        return done.stdout.decode().strip()

    def write(self, files: Mapping[str, str | bytes]) -> Repo:
        for name, content in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode() if isinstance(content, str) else content
            target.write_bytes(data)
        return self

    def remove(self, *names: str) -> Repo:
        for name in names:
            (self.path / name).unlink()
        return self

    def symlink(self, name: str, target: str) -> Repo:
        link = self.path / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)
        return self

    def commit(self, message: str = "change") -> str:
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def tag(self, name: str) -> None:
        self.git("tag", "-a", name, "-m", name)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited at start")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """`git daemon` serving every repository under `base`; yields git://127.0.0.1:port."""
    port = free_port()
    process = subprocess.Popen(
        [
            "git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1",
            f"--port={port}", f"--base-path={base}", str(base),
        ],
        env=git_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_for_port(port, process)
        yield f"git://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


class _HttpBackend(http.server.BaseHTTPRequestHandler):
    """Runs `git http-backend` as CGI for each request, after checking Basic auth."""

    root: Path
    expected_authorization: str
    seen_authorization: list[str]

    def do_GET(self) -> None:
        self._cgi()

    def do_POST(self) -> None:
        self._cgi()

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output clean

    def _cgi(self) -> None:
        given = self.headers.get("Authorization", "")
        self.seen_authorization.append(given)
        if given != self.expected_authorization:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.end_headers()
            return
        path, _question, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = git_env(
            {
                "GIT_PROJECT_ROOT": str(self.root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "REQUEST_METHOD": self.command,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "REMOTE_USER": "test",
            }
        )
        done = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, _blank, payload = done.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode().split("\r\n"):
            name, _colon, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextlib.contextmanager
def http_git_server(root: Path, username: str, token: str) -> Iterator[tuple[str, list[str]]]:
    """Smart HTTP on loopback requiring Basic `username:token`; yields the base URL and the
    Authorization headers it was sent."""
    expected = "Basic " + base64.b64encode(f"{username}:{token}".encode()).decode()
    seen: list[str] = []
    handler = type(
        "Handler",
        (_HttpBackend,),
        {"root": root, "expected_authorization": expected, "seen_authorization": seen},
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


SSHD = Path("/usr/sbin/sshd")  # tests/sshd/install.sh installs it when missing


@dataclass(frozen=True)
class SshServer:
    """sshd on loopback: the URL prefix of its repositories, a client key it accepts, and a
    known_hosts file naming its host key (and `other_known_hosts`, naming another key)."""

    base: str  # ssh://user@127.0.0.1:port
    client_key: Path
    known_hosts: Path
    other_known_hosts: Path


def _keypair(path: Path) -> str:
    """A new ed25519 key without passphrase at `path`; returns the public key line."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", str(path)],
        check=True,
        capture_output=True,
    )
    return path.with_suffix(".pub").read_text().strip()


def _sshd_config(folder: Path, port: int, host_key: Path, user: str) -> Path:
    config = folder / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1:{port}\n"
        f"HostKey {host_key}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\n"
        f"PidFile {folder / 'sshd.pid'}\n"
        f"AllowUsers {user}\n"
        "PermitRootLogin prohibit-password\n"
        "PasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\n"
        "UsePAM no\n"
        "StrictModes no\n"  # the test's folders belong to whoever runs the tests
        "AllowTcpForwarding no\n"
        "X11Forwarding no\n"
    )
    return config


@contextlib.contextmanager
def ssh_git_server(folder: Path) -> Iterator[SshServer]:
    """OpenSSH's sshd on a free loopback port, accepting one new client key.

    It runs as the user running the tests and lets only that user in, by key; repositories
    are reached by their absolute path: `{base}/abs/path/repo.git`.
    """
    folder.mkdir(parents=True, exist_ok=True)
    host_key, client_key, other = folder / "host_key", folder / "client_key", folder / "other"
    host_public = _keypair(host_key).rsplit(" ", 1)[0]
    (folder / "authorized_keys").write_text(_keypair(client_key) + "\n")
    other_public = _keypair(other).rsplit(" ", 1)[0]
    port, user = free_port(), getpass.getuser()
    known, wrong = folder / "known_hosts", folder / "other_known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {host_public}\n")
    wrong.write_text(f"[127.0.0.1]:{port} {other_public}\n")
    config = _sshd_config(folder, port, host_key, user)
    log = (folder / "sshd.log").open("wb")
    process = subprocess.Popen(
        [str(SSHD), "-D", "-e", "-f", str(config)], stdout=log, stderr=log, env=git_env()
    )
    try:
        _wait_for_port(port, process)
        yield SshServer(f"ssh://{user}@127.0.0.1:{port}", client_key, known, wrong)
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def serve_http(argv: list[str]) -> int:
    """`serve-http ROOT --token-file FILE [--username NAME]`: until SIGTERM or SIGINT."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.gitrepos serve-http")
    parser.add_argument("root", type=Path, help="folder of the repositories served")
    parser.add_argument("--token-file", type=Path, required=True)
    parser.add_argument("--username", default="x-access-token")
    args = parser.parse_args(argv)
    token = args.token_file.read_text().strip()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    with http_git_server(args.root, args.username, token) as (base, _seen):
        print(base, flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve-http"]:
        sys.exit("usage: python -m tests.support.gitrepos serve-http ROOT --token-file FILE")
    sys.exit(serve_http(sys.argv[2:]))
