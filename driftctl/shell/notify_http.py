"""The only module that sends notifications: one HTTP POST to a receiver, within a time.

Every receiver (the generic webhook, a Slack-compatible webhook, Alertmanager, GitHub,
GitLab) is an HTTP endpoint that takes a JSON body; what differs (path, headers, body) is
decided in render.sinks, so the sending is written once, here, as the API server's is in
shell.kube: a failure that may pass (no connection, a timeout, 408/425/429/500/502/503/504:
the receivers' column of core.retries) is tried again after the receivers' backoff, until
`timeout` seconds are spent; a refusal (another 4xx) is not. Redirects are not followed:
a receiver that answers one is refused, so a token never follows a redirect to another
host.

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

from driftctl.core.notify.outbox import Post
from driftctl.core.retries import (
    CONNECTION_FAILED,
    RECEIVERS,
    Peer,
    retry_after_seconds,
    transient,
)

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


@dataclass(frozen=True)
class _MayPass:
    """A failure worth another try, and the receiver's Retry-After (None: it sent none)."""

    failed: Failed
    retry_after: float | None = None


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
        outcome = _try(post, give_up - monotonic())
        if not isinstance(outcome, _MayPass):
            return outcome
        wait = RECEIVERS.delay(attempt, retry_after=outcome.retry_after)
        if monotonic() + wait >= give_up:
            return Failed(f"{outcome.failed.reason}; gave up after {timeout:.3g}s")
        sleep(wait)
        attempt += 1


def _try(post: Post, left: float) -> Sent | Failed | _MayPass:
    """One POST: sent, refused, or failed in a way that may pass."""
    request = urllib.request.Request(
        post.url, data=post.body, headers={**post.headers, **post.secret_headers}, method="POST"
    )
    try:
        with _OPENER.open(request, timeout=max(left, 0.05)) as answer:
            return Sent(answer.status, _json(answer.read(MAX_ANSWER_BYTES)))
    except urllib.error.HTTPError as refused:
        said = f"{post.what} answered {refused.code} {refused.reason}"
        return _failed(refused.code, said, refused.headers.get("Retry-After"))
    except urllib.error.URLError as failed:
        return _failed(CONNECTION_FAILED, f"{post.what} is unreachable: {failed.reason}")
    except (OSError, http.client.HTTPException) as failed:
        said = f"{post.what} is unreachable: {failed or type(failed).__name__}"
        return _failed(CONNECTION_FAILED, said)


def _failed(status: int, reason: str, retry_after: str | None = None) -> Failed | _MayPass:
    """A failure, worth another try when the receivers' column of core.retries says so."""
    if not transient(Peer.RECEIVER, status):
        return Failed(reason)
    return _MayPass(Failed(reason), retry_after_seconds(retry_after))


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
