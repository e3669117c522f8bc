"""Only transient failures are retried, with capped exponential backoff, within the deadline.

The policy (core/retries.py) is pure and tested as tables. The one choke point that applies
it, `Kube.send`, is driven against a small real HTTP server on loopback that answers from
a script, with an injected clock and sleep: no waiting, and no mock of the client.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from driftctl.core.api import requests as r
from driftctl.core.api.kubeconfig import Endpoint
from driftctl.core.retries import (
    API_SERVER,
    CONNECTION_FAILED,
    Backoff,
    ends_the_run,
    is_object_refusal,
    retry_after_seconds,
    should_retry,
)
from driftctl.shell.kube import ApiError, Deadline, Kube
from driftctl.shell.kube_credentials import Connection
from tests.support.clock import FakeTime

RETRIED = [CONNECTION_FAILED, 429, 500, 502, 503, 504]
NOT_RETRIED = [400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 501]

# The API server's own words (kube-apiserver v1.37.2, server-side apply of the status
# driftctl writes to the seed operator's CRD, which declares only two status fields).
SCHEMA_REFUSAL = (
    "failed to create typed patch object (web/shop; example.com/v1, Kind=WebApp): "
    ".status.conditions: field not declared in schema"
)


@pytest.mark.parametrize("status", RETRIED)
def test_transient_failures_are_retried_while_the_wait_fits_the_deadline(status: int) -> None:
    assert should_retry(status, delay=0.5, remaining=10.0)
    assert not should_retry(status, delay=10.0, remaining=10.0)
    assert not should_retry(status, delay=0.5, remaining=0.1)


@pytest.mark.parametrize("status", NOT_RETRIED)
def test_answers_about_the_request_itself_are_never_retried(status: int) -> None:
    assert not should_retry(status, delay=0.0, remaining=300.0)


@pytest.mark.parametrize(
    "message",
    [
        pytest.param(SCHEMA_REFUSAL, id="field-not-declared"),
        pytest.param(
            "failed to create typed live object (web/shop; apps/v1, Kind=Deployment): "
            '.spec.template.spec.containers[name="app"].ports: duplicate entries',
            id="live-object-untyped",
        ),
        pytest.param(
            "failed to convert new object (web/shop; example.com/v1, Kind=WebApp) to proper "
            "version (example.com/v1)",
            id="conversion",
        ),
    ],
)
def test_a_500_that_says_the_request_does_not_fit_the_schema_is_not_retried(
    message: str,
) -> None:
    """The same request gets the same answer: it ends the object's attempt, not the run."""
    assert not should_retry(500, delay=0.0, remaining=300.0, message=message)
    assert is_object_refusal(500, message)
    assert not ends_the_run(500, message)


@pytest.mark.parametrize(
    "message",
    [
        pytest.param("etcdserver: request timed out", id="etcd-timeout"),
        pytest.param("Internal error occurred: resource quota evaluation timed out", id="quota"),
        pytest.param("", id="no-message"),
    ],
)
def test_any_other_500_is_retried_and_ends_the_run_when_the_retries_give_up(
    message: str,
) -> None:
    assert should_retry(500, delay=0.5, remaining=10.0, message=message)
    assert not is_object_refusal(500, message)
    assert ends_the_run(500, message)


def test_only_a_500_is_read_for_its_words() -> None:
    """A 503 naming the schema is still the server being unavailable."""
    assert should_retry(503, delay=0.5, remaining=10.0, message=SCHEMA_REFUSAL)
    assert ends_the_run(503, SCHEMA_REFUSAL)


@pytest.mark.parametrize(
    ("status", "object_alone"),
    [
        pytest.param(400, True, id="bad-request"),
        pytest.param(404, True, id="namespace-missing"),
        pytest.param(409, True, id="conflict"),
        pytest.param(422, True, id="invalid"),
        pytest.param(429, True, id="throttled-past-the-deadline"),
        pytest.param(401, False, id="unauthorized"),
        pytest.param(403, False, id="forbidden"),
        pytest.param(500, False, id="server-error"),
        pytest.param(503, False, id="unavailable"),
        pytest.param(CONNECTION_FAILED, False, id="no-answer"),
    ],
)
def test_a_refused_dry_run_fails_its_object_or_the_whole_run(
    status: int, object_alone: bool
) -> None:
    assert is_object_refusal(status) is object_alone


@pytest.mark.parametrize(
    ("attempt", "low", "high"),
    [
        pytest.param(0, 0.1, 0.2, id="first"),
        pytest.param(1, 0.2, 0.4, id="doubles"),
        pytest.param(4, 1.6, 3.2, id="fifth"),
        pytest.param(6, 5.0, 10.0, id="capped"),
        pytest.param(60, 5.0, 10.0, id="still-capped"),
    ],
)
def test_backoff_is_exponential_with_jitter_in_the_upper_half_and_capped(
    attempt: int, low: float, high: float
) -> None:
    backoff = Backoff(base=0.2, cap=10.0)

    assert backoff.delay(attempt, 0.0) == pytest.approx(low)
    assert low <= backoff.delay(attempt, 0.5) < high
    assert backoff.delay(attempt, 0.999999) == pytest.approx(high, rel=1e-5)


@pytest.mark.parametrize(
    ("retry_after", "delay"),
    [
        pytest.param(1.0, 1.0, id="honoured"),
        pytest.param(0.0, 0.0, id="at-once"),
        pytest.param(-5.0, 0.0, id="negative-is-at-once"),
        pytest.param(120.0, 120.0, id="never-shortened-by-the-cap"),
    ],
)
def test_retry_after_replaces_the_backoff_and_is_never_shortened(
    retry_after: float, delay: float
) -> None:
    """The server asked for that much; the run's --timeout (should_retry) bounds the wait."""
    assert API_SERVER.delay(3, 0.7, retry_after) == delay


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        pytest.param("1", 1.0, id="seconds"),
        pytest.param("2.5", 2.5, id="fraction"),
        pytest.param(None, None, id="absent"),
        pytest.param("", None, id="empty"),
        pytest.param("Wed, 21 Oct 2026 07:28:00 GMT", None, id="http-date"),
    ],
)
def test_retry_after_header_is_read_as_seconds(header: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(header) == seconds


Scripted = tuple[int, Sequence[tuple[str, str]]] | tuple[int, Sequence[tuple[str, str]], str]


class _Scripted(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        status, headers, message = self.server.next_answer()
        failure = {"kind": "Status", "code": status, "message": message}
        body = json.dumps(failure).encode() if status >= 300 else b'{"items":[]}'
        self.send_response_only(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test counts requests itself."""


class _Server(http.server.ThreadingHTTPServer):
    """Answers GETs from a script; the last answer repeats for ever."""

    daemon_threads = True

    def __init__(self, script: Sequence[Scripted]) -> None:
        super().__init__(("127.0.0.1", 0), _Scripted)
        self.script = list(script)
        self.requests = 0
        self.lock = threading.Lock()

    def next_answer(self) -> tuple[int, Sequence[tuple[str, str]], str]:
        with self.lock:
            self.requests += 1
            answer = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        status, headers, *said = answer
        return status, headers, said[0] if said else "scripted"

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start a scripted server: `serve([(status, headers), ...])`."""
    servers: list[_Server] = []

    def start(script: Sequence[Scripted]) -> _Server:
        server = _Server(script)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def kube_at(url: str, time: FakeTime, timeout: float = 300.0) -> Kube:
    api = Connection(Endpoint(server=url, source="a test"), pool_size=2)
    return Kube(api, Deadline(timeout, clock=time.clock), sleep=time.sleep, jitter=lambda: 0.5)


LIST = r.list_page(r.WEBAPP, "driftctl.example.com/instance=default")


@pytest.mark.parametrize("header", ["Retry-After", "retry-after", "RETRY-AFTER"])
def test_retry_after_is_honoured_whatever_the_case_of_its_name(serve: Any, header: str) -> None:
    server = serve([(429, [(header, "7")]), (200, [])])
    time = FakeTime()

    assert kube_at(server.url, time).send(LIST) == {"items": []}

    assert (server.requests, time.sleeps) == (2, [7.0])


@pytest.mark.parametrize("status", [400, 403, 404, 409, 422])
def test_a_refusal_is_sent_once_and_raised(serve: Any, status: int) -> None:
    server = serve([(status, [])])
    time = FakeTime()

    with pytest.raises(ApiError) as refused:
        kube_at(server.url, time).send(LIST)

    assert (refused.value.status, refused.value.hint) == (status, None)
    assert (server.requests, time.sleeps) == (1, [])


def test_a_schema_refusal_is_sent_once_and_raised_with_the_server_s_words(serve: Any) -> None:
    server = serve([(500, [], SCHEMA_REFUSAL)])
    time = FakeTime()

    with pytest.raises(ApiError) as refused:
        kube_at(server.url, time).send(LIST)

    assert (server.requests, time.sleeps) == (1, [])
    assert (refused.value.status, refused.value.hint) == (500, None)
    assert refused.value.short == f"500: {SCHEMA_REFUSAL}"


def test_a_500_in_other_words_is_retried(serve: Any) -> None:
    server = serve([(500, [], "etcdserver: leader changed"), (200, [])])
    time = FakeTime()

    assert kube_at(server.url, time).send(LIST) == {"items": []}

    assert server.requests == 2


def test_retries_end_when_the_next_wait_would_pass_the_deadline(serve: Any) -> None:
    server = serve([(503, [])])
    time = FakeTime()

    with pytest.raises(ApiError) as gave_up:
        kube_at(server.url, time, timeout=5.0).send(LIST)

    # jitter 0.5: waits of 0.15, 0.3, 0.6, 1.2, 2.4 s (4.65 s); the next, 4.8 s, would not fit
    assert time.sleeps == pytest.approx([0.15, 0.3, 0.6, 1.2, 2.4])
    assert server.requests == 6
    assert gave_up.value.status == 503
    assert gave_up.value.hint == (
        "tried 6 times; the run's --timeout (5s) leaves no time for another try"
    )


def test_an_unreachable_server_is_named_without_the_client_library_s_words() -> None:
    with _Server([(200, [])]) as closed:  # bound, then closed: nothing listens on its port
        url = closed.url
    time = FakeTime()

    with pytest.raises(ApiError) as unreachable:
        kube_at(url, time, timeout=1.0).send(LIST)

    assert unreachable.value.status == CONNECTION_FAILED
    assert unreachable.value.message == (
        f"list webapps: API server {url} unreachable: "
        "Failed to establish a new connection: [Errno 111] Connection refused"
    )
    assert time.sleeps == []  # it never answered: not a passing fault (kubectl's way)
    assert unreachable.value.hint is not None
    assert unreachable.value.hint.startswith("the cluster never answered")


def test_a_refused_connection_is_retried_once_the_server_has_answered() -> None:
    with _Server([(200, [])]) as closed:
        url = closed.url
    time = FakeTime()
    kube = kube_at(url, time, timeout=1.0)
    kube.reached = True  # as after a first answer: now a refusal is a restart

    with pytest.raises(ApiError) as gave_up:
        kube.send(LIST)

    assert gave_up.value.status == CONNECTION_FAILED
    assert len(time.sleeps) >= 1


def test_a_streamed_list_is_retried_like_any_request_and_once_refused_is_not_asked_again(
    serve: Any,
) -> None:
    """403: the role may not `watch`. The list is read page by page, said once; the next
    list of this client goes to pages at once, unsaid."""
    server = serve([(503, []), (403, [], "cannot watch"), (200, [])])
    time = FakeTime()
    said: list[str] = []
    api = Connection(Endpoint(server=server.url, source="a test"), pool_size=2)
    kube = Kube(
        api,
        Deadline(300, clock=time.clock),
        sleep=time.sleep,
        jitter=lambda: 0.5,
        notice=said.append,
    )

    first = kube.list_streamed(r.WEBAPP, "")
    second = kube.bounded(60).list_streamed(r.DEPLOYMENT, "")

    assert (first, second) == (([], ""), ([], ""))
    assert server.requests == 2 + 1 + 1  # the stream twice, then a page of each kind
    assert time.sleeps == [pytest.approx(0.15)]
    assert said == [
        "retrying in 0.2s: list webapps: 503: scripted",
        "list webapps: 403: cannot watch; reading page by page (grant `watch` to stream)",
    ]


def test_a_streamed_list_that_ends_before_its_last_object_is_read_again_in_pages(
    serve: Any,
) -> None:
    server = serve([(200, [])])  # a 2xx body with no bookmark in it
    said: list[str] = []
    api = Connection(Endpoint(server=server.url, source="a test"), pool_size=2)
    kube = Kube(api, Deadline(300), notice=said.append)

    assert kube.list_streamed(r.WEBAPP, "") == ([], "")
    assert kube.list_streamed(r.WEBAPP, "") == ([], "")

    assert server.requests == 4  # not a refusal: the next list streams again
    assert said == ["list webapps: it ended before its last object; reading it page by page"] * 2


def test_a_server_without_streamed_lists_is_read_in_pages_without_a_word(serve: Any) -> None:
    """422: the WatchList feature is off (Kubernetes 1.27 to 1.31, and 1.33). Nobody running
    driftctl can change that: nothing is said, and the server is not asked again."""
    feature_off = "sendInitialEvents is forbidden for watch unless the WatchList feature gate"
    server = serve([(422, [], feature_off), (200, [])])
    said: list[str] = []
    api = Connection(Endpoint(server=server.url, source="a test"), pool_size=2)
    kube = Kube(api, Deadline(300), notice=said.append)

    assert kube.list_streamed(r.WEBAPP, "") == ([], "")
    assert kube.list_streamed(r.DEPLOYMENT, "") == ([], "")

    assert (server.requests, said) == (1 + 2, [])
