"""Receivers of driftctl's notifications on loopback: a webhook that checks its signature,
and stand-ins for GitHub's and GitLab's APIs that check each request against the shape
their documentation gives; one that never answers; a port where nobody listens.

No real forge can be used by the tests: GitHub and GitLab are services on the Internet,
and nothing in the tests may leave the machine (docs/development: the network rule); a
GitLab of one's own is no Debian package. So each stand-in holds what the documentation
says of the calls driftctl makes, and answers 422 (recording why) to anything else:

- GitHub, "Create a commit status": `POST /repos/{owner}/{repo}/statuses/{sha}`, body
  `state` (required: error, failure, pending, success), `target_url`, `description`,
  `context`; "Create a deployment": `POST /repos/{owner}/{repo}/deployments`, `ref`
  required, answers 201 with the deployment's `id`; "Create a deployment status":
  `POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses`, `state` required
  (error, failure, inactive, in_progress, queued, pending, success). Headers: a token in
  `Authorization`, `Accept: application/vnd.github+json`, `X-GitHub-Api-Version`, and a
  `User-Agent` (GitHub refuses requests without one).
- GitLab, "Set the pipeline status of a commit": `POST /projects/:id/statuses/:sha`
  (`:id` a number or the URL-encoded path), `state` required (pending, running, success,
  failed, canceled), `name`, `description`, `target_url`; the token in `PRIVATE-TOKEN`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.server
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.support.gitrepos import free_port

SHA = r"[0-9a-f]{40}"


@dataclass(frozen=True)
class Received:
    """One request as the receiver saw it, and what was wrong with it."""

    path: str
    headers: dict[str, str]
    body: bytes
    problems: tuple[str, ...] = ()
    code: int = 200  # what the receiver answered

    @property
    def json(self) -> Any:
        return json.loads(self.body)


Check = Callable[[str, dict[str, str], bytes], tuple[list[str], int, Any]]  # problems, code, answer


@dataclass
class Receiver:
    """A loopback HTTP server: every POST recorded, checked by `check`, answered."""

    check: Check
    received: list[Received] = field(default_factory=list)
    url: str = ""

    @property
    def problems(self) -> list[str]:
        return [problem for each in self.received for problem in each.problems]

    @property
    def taken(self) -> list[Received]:
        """The requests it answered 2xx: what was delivered."""
        return [each for each in self.received if 200 <= each.code < 300]


@contextlib.contextmanager
def serving(check: Check) -> Iterator[Receiver]:
    receiver = Receiver(check)
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {key.lower(): value for key, value in self.headers.items()}
            problems, code, answer = receiver.check(self.path, headers, body)
            code = 422 if problems else code
            with lock:
                receiver.received.append(Received(self.path, headers, body, tuple(problems), code))
            data = json.dumps(answer).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def _body(body: bytes) -> tuple[dict[str, Any], list[str]]:
    try:
        document = json.loads(body)
    except ValueError:
        return {}, ["the body is not JSON"]
    return (document, []) if isinstance(document, dict) else ({}, ["the body is not an object"])


def webhook_check(secret: bytes) -> Check:
    """The generic webhook: JSON, signed with HMAC-SHA256 of the body under `secret`."""

    def check(path: str, headers: dict[str, str], body: bytes) -> tuple[list[str], int, Any]:
        expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        given = headers.get("x-driftctl-signature-256", "")
        problems = [] if hmac.compare_digest(given, expected) else ["bad signature"]
        document, bad = _body(body)
        problems += bad
        if document.get("version") != 1:
            problems.append("no version 1")
        return problems, 200, {}

    return check


@dataclass
class Switch:
    """A receiver that can be down (answering 503) and back, and slow (`delay` seconds
    before each answer), around another check."""

    check: Check
    down: bool = False
    delay: float = 0.0

    def __call__(
        self, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[list[str], int, Any]:
        time.sleep(self.delay)
        problems, code, answer = self.check(path, headers, body)
        return (problems, 503, {}) if self.down else (problems, code, answer)


def accepting(path: str, headers: dict[str, str], body: bytes) -> tuple[list[str], int, Any]:
    """A receiver that takes anything JSON (a Slack-compatible webhook)."""
    return _body(body)[1], 200, {}


_GITHUB_STATUS = re.compile(rf"^/repos/[^/]+/[^/]+/statuses/{SHA}$")
_GITHUB_DEPLOYMENTS = re.compile(r"^/repos/[^/]+/[^/]+/deployments$")
_GITHUB_DEPLOYMENT_STATUS = re.compile(r"^/repos/[^/]+/[^/]+/deployments/(\d+)/statuses$")


def github_check(token: str) -> Check:
    """GitHub's REST API for commit statuses and deployments (module docstring)."""
    made: list[int] = []

    def check(path: str, headers: dict[str, str], body: bytes) -> tuple[list[str], int, Any]:
        problems = _github_headers(headers, token)
        document, bad = _body(body)
        problems += bad
        if _GITHUB_STATUS.match(path):
            if document.get("state") not in ("error", "failure", "pending", "success"):
                problems.append(f"status state {document.get('state')!r}")
            if len(str(document.get("description", ""))) > 140:
                problems.append("description longer than 140")
            return problems, 201, {"id": 1, "state": document.get("state")}
        if _GITHUB_DEPLOYMENTS.match(path):
            if not document.get("ref"):
                problems.append("deployment without ref")
            made.append(len(made) + 100)
            return problems, 201, {"id": made[-1], "ref": document.get("ref")}
        if match := _GITHUB_DEPLOYMENT_STATUS.match(path):
            states = ("error", "failure", "inactive", "in_progress", "queued", "pending", "success")
            if document.get("state") not in states:
                problems.append(f"deployment state {document.get('state')!r}")
            if int(match.group(1)) not in made:
                problems.append(f"no deployment {match.group(1)}")
            return problems, 201, {"id": 1}
        return [*problems, f"no such GitHub endpoint: POST {path}"], 404, {}

    return check


def _github_headers(headers: dict[str, str], token: str) -> list[str]:
    problems = []
    if headers.get("authorization") not in (f"Bearer {token}", f"token {token}"):
        problems.append("no token in Authorization")
    if headers.get("accept") != "application/vnd.github+json":
        problems.append("Accept is not application/vnd.github+json")
    if not headers.get("x-github-api-version"):
        problems.append("no X-GitHub-Api-Version")
    if not headers.get("user-agent"):
        problems.append("no User-Agent")
    return problems


_GITLAB_STATUS = re.compile(rf"^/api/v4/projects/[^/]+/statuses/{SHA}$")


def gitlab_check(token: str) -> Check:
    """GitLab's commit status API (module docstring)."""

    def check(path: str, headers: dict[str, str], body: bytes) -> tuple[list[str], int, Any]:
        problems = [] if headers.get("private-token") == token else ["no PRIVATE-TOKEN"]
        document, bad = _body(body)
        problems += bad
        if not _GITLAB_STATUS.match(path):
            return [*problems, f"no such GitLab endpoint: POST {path}"], 404, {}
        if document.get("state") not in ("pending", "running", "success", "failed", "canceled"):
            problems.append(f"state {document.get('state')!r}")
        return problems, 201, {"id": 1, "status": document.get("state")}

    return check


@contextlib.contextmanager
def never_answering() -> Iterator[str]:
    """A loopback port that accepts connections and never answers: a receiver stuck."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def nobody_listening() -> str:
    """A loopback URL where nothing listens: a receiver that is down."""
    return f"http://127.0.0.1:{free_port()}"


@contextlib.contextmanager
def answering(
    statuses: Sequence[int], headers: Mapping[str, str] | None = None
) -> Iterator[tuple[str, list[int]]]:
    """A receiver that answers each POST with the next of `statuses` (with `headers`), then
    200 once they are spent: its URL, and the statuses it answered."""
    script, answered = list(statuses), []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            code = script.pop(0) if script else 200
            answered.append(code)
            self.send_response(code)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", answered
    finally:
        server.shutdown()
        server.server_close()
