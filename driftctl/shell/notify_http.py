"""The only module that sends notifications: one HTTP POST to a receiver, within a time.

Every receiver (the generic webhook, a Slack-compatible webhook, Alertmanager, GitHub,
GitLab) is an HTTP endpoint that takes a JSON body; what differs (path, headers, body) is
decided in render.sinks, so the sending is written once, here, as the API server's is in
shell.kube: a failure that may pass (no connection, a timeout, 408/425/429/5xx) is tried
again with backoff (core.notify.outbox), until `timeout` seconds are spent; a refusal
(another 4xx) is not. Redirects are not followed: a receiver that answers one is
refused, so a token never follows a redirect to another host.

Nothing here raises: a send answers `Sent` or `Failed` with a reason that names the
receiver (`Post.what`), never its URL's query, a header's value or the receiver's body,
which may echo what was sent. Secret files (`read_secret`) are read here too: a run
reads them when it sends, and only their contents leave this module.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from driftctl.core.notify.outbox import Post, backoff, transient

MAX_SECRET_BYTES = 64 * 1024
MAX_ANSWER_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Sent:
    """The receiver took it: its status and its JSON answer (None when not JSON)."""

    status: int
    answer: object


@dataclass(frozen=True)
class Failed:
    """Why a notification was not delivered."""

    reason: str


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # the 3xx answer is raised as an HTTPError, then refused


_OPENER = urllib.request.build_opener(_NoRedirect)


def send(
    post: Post,
    timeout: float,
    *,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> Sent | Failed:
    """POST once, and again while it fails in a way that may pass, within `timeout`."""
    give_up = monotonic() + timeout
    attempt = 0
    while True:
        left = give_up - monotonic()
        outcome, retry_after = _try(post, left)
        if isinstance(outcome, Sent) or retry_after is None:
            return outcome
        wait = backoff(attempt, retry_after if retry_after >= 0 else None)
        if monotonic() + wait >= give_up:
            return Failed(f"{outcome.reason}; gave up after {timeout:g}s")
        sleep(wait)
        attempt += 1


def _try(post: Post, left: float) -> tuple[Sent | Failed, float | None]:
    """One POST: its outcome, and when a failure may pass, the Retry-After (-1: none)."""
    request = urllib.request.Request(
        post.url, data=post.body, headers={**post.headers, **post.secret_headers}, method="POST"
    )
    try:
        with _OPENER.open(request, timeout=max(left, 0.05)) as answer:
            return Sent(answer.status, _json(answer.read(MAX_ANSWER_BYTES))), None
    except urllib.error.HTTPError as refused:
        said = f"{post.what} answered {refused.code} {refused.reason}"
        if transient(refused.code):
            return Failed(said), _retry_after(refused.headers.get("Retry-After"))
        return Failed(said), None
    except urllib.error.URLError as failed:
        return Failed(f"{post.what} is unreachable: {failed.reason}"), -1.0
    except (OSError, http.client.HTTPException) as failed:
        return Failed(f"{post.what} is unreachable: {failed or type(failed).__name__}"), -1.0


def _retry_after(value: str | None) -> float:
    try:
        return float(value) if value is not None else -1.0
    except ValueError:
        return -1.0


def _json(data: bytes) -> object:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def read_secret(path: Path) -> bytes | Failed:
    """A secret from its mounted file (a trailing newline dropped), or why it cannot be."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SECRET_BYTES + 1)
    except OSError as failed:
        return Failed(f"cannot read {path}: {failed.strerror or failed}")
    if len(data) > MAX_SECRET_BYTES:
        return Failed(f"{path} is larger than {MAX_SECRET_BYTES} bytes: not a secret")
    secret = data.rstrip(b"\r\n")
    return secret if secret else Failed(f"{path} is empty")
