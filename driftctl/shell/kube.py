"""The one way requests reach the API server: sends, retries, lists, streams.

Requests arrive as values (core.api.requests) and leave through `Kube.send`, the single choke
point: transient failures (connection errors, 429, 500/502/503/504) are retried here and
nowhere else, with exponential backoff and jitter, within the run's deadline. urllib3's
own retries are switched off so that no request is sent twice behind this loop's back; a
401 has the credential fetched again once (a rotated token, a plugin's revoked one). The
bytes go out through urllib3 to the server, and as the identity, that
shell.kube_credentials reads from the kubeconfig; answers are parsed as plain JSON. This
module decides nothing about WebApps.

A whole kind is read as a streamed list where the server gives one (`list_streamed`: one
WATCH answered from the watch cache), page by page otherwise (`list_all`).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import urllib3

from driftctl.core.api.requests import (
    PAGE_SIZE,
    Kind,
    Request,
    end_of_initial_events,
    in_list_order,
    list_page,
    listed_object,
    read_page,
    streamed_list,
)
from driftctl.core.planning.redaction import masked_text
from driftctl.core.retries import (
    API_SERVER,
    CONNECTION_FAILED,
    Backoff,
    is_transient,
    never_answered,
    retry_after_seconds,
    should_retry,
)
from driftctl.errors import ClusterError
from driftctl.shell.kube_credentials import Connection, connection

REQUEST_TIMEOUT = 30.0
NEVER_ANSWERED = (
    "the cluster never answered: is it running, and are the kubeconfig and its context the "
    "ones you mean? (A cluster that never answered is not retried.)"
)
UNAUTHORIZED = 401
FORBIDDEN = 403
NOT_FOUND = 404
GONE = 410
# What an API server answers a streamed list it will not give: 400/422 when the feature is
# off, 403 when the role may not `watch`, 405 when it cannot watch that resource.
STREAM_REFUSALS = frozenset({400, 403, 405, 422})
STREAM_SECONDS = 1800


class ApiError(ClusterError):
    """The API server refused a request (or could not be reached in time)."""

    def __init__(
        self, request: Request, status: int, body: dict[str, Any], *, hint: str | None = None
    ) -> None:
        self.request = request
        self.status = status
        self.reason = str(body.get("reason") or "")
        self.details = body.get("details") or {}
        # The server's message may echo a value of the request (a webhook quoting a Secret).
        message = masked_text(str(body.get("message") or "no message"))
        self.said = message  # the server's own words (a schema refusal is told by them)
        if status == CONNECTION_FAILED:
            self.detail = f"API server {message}"
        else:
            self.detail = (
                " ".join(part for part in (str(status), self.reason) if part) + f": {message}"
            )
        super().__init__(f"{request.what}: {self.detail}", hint=hint)

    @property
    def causes(self) -> list[dict[str, Any]]:
        causes: list[dict[str, Any]] = self.details.get("causes") or []
        return [
            {**cause, "message": masked_text(str(cause.get("message", "")))} for cause in causes
        ]

    @property
    def short(self) -> str:
        """The server's answer in one line, for an outcome: `403 Forbidden: ...`."""
        return self.detail


class _StreamBroke(Exception):
    """A streamed list that ended, broke off or went silent before its last object."""


@dataclass
class _Streaming:
    """Whether the API server gave streamed lists; shared by a client's bounded copies."""

    refused: bool = False  # whether the server refused one (it is not asked again)
    told: bool = False  # whether a refusal was said (once, whichever kind's list said it)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def first_to_tell(self) -> bool:
        with self.lock:
            told, self.told = self.told, True
            return not told


@dataclass
class Deadline:
    """The time left for the whole run (`--timeout`), on an injectable monotonic clock."""

    seconds: float
    clock: Callable[[], float] = time.monotonic
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def remaining(self) -> float:
        return self.seconds - (self.clock() - self.started)


def connect(kubeconfig: str | None, context: str | None, pool_size: int) -> Connection:
    """The way to the API server of the kubeconfig (as kubectl finds it) or of the Pod's
    ServiceAccount (shell.kube_credentials)."""
    return connection(kubeconfig, context, pool_size)


class Kube:
    """Sends request values to one API server; counts what it sent."""

    def __init__(
        self,
        api: Connection,
        deadline: Deadline,
        *,
        backoff: Backoff = API_SERVER,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
        notice: Callable[[str], None] = lambda line: None,
        answered: Callable[[Request, dict[str, Any]], None] = lambda request, body: None,
    ) -> None:
        self._api = api
        self._answered = answered
        self.deadline = deadline
        self._notice = notice
        self._backoff = backoff
        self._sleep = sleep
        self._jitter = jitter
        self.sent: Counter[str] = Counter()
        self.reached = False  # whether the API server answered anything yet
        self._streaming = _Streaming()

    @property
    def host(self) -> str:
        """The API server's URL, as the kubeconfig (or the Pod) names it."""
        return self._api.host

    def bounded(self, seconds: float) -> Kube:
        """This client with at most `seconds` left for its retries (a Lease renewal must end
        before its renew deadline); it counts into the same `sent`."""
        return self.with_deadline(min(seconds, self.deadline.remaining()))

    def with_deadline(self, seconds: float) -> Kube:
        """This client with `seconds` from now for its retries, whatever this one has left
        (`apply --wait` has a time of its own, after the run's); it counts into `sent`."""
        other = Kube(
            self._api,
            Deadline(seconds, self.deadline.clock),
            backoff=self._backoff,
            sleep=self._sleep,
            jitter=self._jitter,
            notice=self._notice,
            answered=self._answered,
        )
        other.sent = self.sent
        other.reached = self.reached
        other._streaming = self._streaming
        return other

    def send(self, request: Request) -> dict[str, Any]:
        """The answer's JSON body on 2xx; ApiError otherwise, after retrying transient failures
        (not a connection refused before the API server ever answered: core.retries)."""
        return self._retried(request, None)[0]

    def _retried(
        self, request: Request, idle_seconds: float | None
    ) -> tuple[dict[str, Any], urllib3.BaseHTTPResponse | None]:
        """`send`'s loop. With `idle_seconds`, the request's body is streamed: a 2xx answer is
        returned open, to be read (silent at most that long between reads) and released."""
        attempt = 0
        renewed = False
        while True:
            status, headers, body, connected, answer = self._send_once(request, idle_seconds)
            if status != CONNECTION_FAILED:
                self.reached = True
            elif never_answered(self.reached, connected):
                raise ApiError(request, status, body, hint=NEVER_ANSWERED)
            if 200 <= status < 300:
                if answer is None:
                    self._answered(request, body)
                return body, answer
            if status == UNAUTHORIZED and not renewed and self._api.forget():
                renewed = True  # a rotated token, a revoked plugin credential: fetched anew
                continue
            delay = self._backoff.delay(
                attempt, self._jitter(), retry_after_seconds(headers.get("retry-after"))
            )
            said = str(body.get("message") or "")
            if not should_retry(status, delay, self.deadline.remaining(), said):
                hint = self._gave_up(status, said, attempt + 1)
                raise ApiError(request, status, body, hint=hint)
            failure = ApiError(request, status, body)
            self._notice(f"retrying in {delay:.1f}s: {failure.message}")
            self._sleep(delay)
            attempt += 1

    def send_unless_missing(self, request: Request) -> dict[str, Any] | None:
        """`send`, where 404 Not Found is an answer (None), not an error.

        For every request whose object may already be gone, where gone means done: a
        delete, a finalizer removal, reading a Lease no run took yet.
        """
        try:
            return self.send(request)
        except ApiError as failed:
            if failed.status == NOT_FOUND:
                return None
            raise

    def _gave_up(self, status: int, said: str, tries: int) -> str | None:
        """Why a transient failure was not tried again: the run's time is spent."""
        if not is_transient(status, said):
            return None
        return (
            f"tried {tries} {'time' if tries == 1 else 'times'}; the run's --timeout "
            f"({self.deadline.seconds:g}s) leaves no time for another try"
        )

    def _prepared(self, request: Request) -> tuple[str, str, urllib3.HTTPHeaderDict]:
        """(method, URL, headers) of a request, counted as sent: the connection's headers
        (who asks: a token read or fetched when due) and the request's own."""
        self.sent[request.method] += 1
        headers = self._api.headers()
        headers.update(_headers(request))
        return request.method, self._api.host + request.path + _query(request), headers

    def _send_once(
        self, request: Request, idle_seconds: float | None = None
    ) -> tuple[int, dict[str, str], dict[str, Any], bool, urllib3.BaseHTTPResponse | None]:
        """(status, headers with lowercase names, JSON body, whether a connection was made,
        the open answer of a streamed request on 2xx); status 0 when no answer came."""
        method, url, headers = self._prepared(request)
        timeout = max(min(REQUEST_TIMEOUT, self.deadline.remaining()), 0.1)
        streamed = idle_seconds is not None
        try:
            answer = self._api.pool.request(
                method,
                url,
                body=request.body,
                headers=headers,
                timeout=urllib3.Timeout(connect=timeout, read=idle_seconds)
                if streamed
                else timeout,
                retries=False,
                preload_content=not streamed,
            )
        except urllib3.exceptions.HTTPError as failed:
            body = {"message": f"{self._api.host} unreachable: {_reason(failed)}"}
            return CONNECTION_FAILED, {}, body, not _not_connected(failed), None
        # Header names are case-insensitive, and proxies in front of API servers may send
        # them lowercase: look them up lowercase.
        said = {name.lower(): value for name, value in answer.headers.items()}
        if streamed and 200 <= answer.status < 300:
            return answer.status, said, {}, True, answer
        try:
            return answer.status, said, _parse(answer.data), True, None
        except urllib3.exceptions.HTTPError as failed:  # the body of a refusal broke off
            body = {"message": f"{self._api.host} unreachable: {_reason(failed)}"}
            return CONNECTION_FAILED, {}, body, True, None
        finally:
            if streamed:
                answer.release_conn()

    def list_all(
        self,
        kind: Kind,
        selector: str,
        page_size: int = PAGE_SIZE,
        namespace: str | None = None,
        on_page: Callable[[list[dict[str, Any]]], None] = lambda page: None,
        *,
        name: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every object of a kind matching a selector (in one namespace, or all; of one
        `name`, when given), page by page (`on_page`: each page's items, as it arrives).

        A continue token expires when etcd compacts (410 Gone): the list starts over, once,
        rather than mixing pages from two moments.
        """
        return self.list_at(kind, selector, page_size, namespace, on_page, name=name)[0]

    def list_at(
        self,
        kind: Kind,
        selector: str,
        page_size: int = PAGE_SIZE,
        namespace: str | None = None,
        on_page: Callable[[list[dict[str, Any]]], None] = lambda page: None,
        *,
        name: str | None = None,
        on_restart: Callable[[], None] = lambda: None,
    ) -> tuple[list[dict[str, Any]], str]:
        """`list_all`, with the resourceVersion the list was read at (to watch from).
        `on_restart` is called before the list starts over after a 410 Gone: `on_page` will
        be given the pages it had again."""
        try:
            return self._pages(kind, selector, page_size, namespace, on_page, name=name)
        except ApiError as failed:
            if failed.status != GONE:
                raise
            on_restart()
            return self._pages(kind, selector, page_size, namespace, on_page, name=name)

    def list_streamed(
        self,
        kind: Kind,
        selector: str,
        page_size: int = PAGE_SIZE,
        namespace: str | None = None,
        on_page: Callable[[list[dict[str, Any]]], None] = lambda page: None,
        on_restart: Callable[[], None] = lambda: None,
    ) -> tuple[list[dict[str, Any]], str]:
        """`list_at`, read as one streamed list (core.api.requests.streamed_list) where the
        API server can give one: its watch cache answers it whole, where a paged LIST's
        continue pages are read from etcd once etcd has compacted since the cache last saw a
        change of the kind. `on_page` gets the objects in groups of `page_size` as they come.

        The same objects, in the same order, as `list_at` gives. A server that refuses it
        is not asked again by this client, which lists page by page: where the role may not
        `watch`, it says so once those pages came (where they are refused too, their refusal
        is the error); where the feature is off (before Kubernetes 1.32, and in 1.33), it
        says nothing. A stream that breaks off before its end is said and read in pages,
        `on_restart` called first: `on_page` will be given what the stream gave it again.
        """
        refused: ApiError | None = None
        if not self._streaming.refused:
            request = streamed_list(kind, selector, namespace, self._stream_seconds())
            try:
                return self._streamed(request, kind, page_size, on_page)
            except ApiError as failed:
                if failed.status not in STREAM_REFUSALS:
                    raise
                self._streaming.refused, refused = True, failed
            except _StreamBroke as broke:
                self._notice(f"{request.what}: {broke}; reading it page by page")
                on_restart()
        listed = self.list_at(kind, selector, page_size, namespace, on_page, on_restart=on_restart)
        # Said once the pages came (a refused LIST says it all), once for both kinds; not
        # of a server without the feature (a 422): nobody running driftctl can change that.
        if refused is not None and refused.status == FORBIDDEN and self._streaming.first_to_tell():
            self._notice(f"{refused.message}; reading page by page (grant `watch` to stream)")
        return listed

    def _stream_seconds(self) -> int:
        """How long the server may take over a streamed list: what the run has left."""
        return max(1, min(STREAM_SECONDS, int(self.deadline.remaining())))

    def _streamed(
        self,
        request: Request,
        kind: Kind,
        page_size: int,
        on_page: Callable[[list[dict[str, Any]]], None],
    ) -> tuple[list[dict[str, Any]], str]:
        idle = max(min(REQUEST_TIMEOUT, self.deadline.remaining()), 0.1)
        answer = self._retried(request, idle)[1]
        assert answer is not None  # a streamed request's 2xx answer is open
        items: list[dict[str, Any]] = []
        group: list[dict[str, Any]] = []
        try:
            for event in _events(answer, request, self._api.host, page_size):
                version = end_of_initial_events(event)
                if version is not None:
                    on_page(group)
                    return in_list_order(items + group), version
                if event.get("type") == "ERROR":
                    said = (event.get("object") or {}).get("message") or "no message"
                    raise _StreamBroke(f"the server ended it: {said}")
                if event.get("type") == "ADDED":
                    group.append(listed_object(event, kind))
                    if len(group) == page_size:
                        on_page(group)
                        items += group
                        group = []
        except ApiError as failed:  # the connection broke or went silent
            raise _StreamBroke(failed.detail) from None
        finally:
            answer.close()  # a watch goes on after its list: this connection is not reused
            answer.release_conn()
        raise _StreamBroke("it ended before its last object")

    def _pages(
        self,
        kind: Kind,
        selector: str,
        page_size: int,
        namespace: str | None,
        on_page: Callable[[list[dict[str, Any]]], None],
        *,
        name: str | None = None,
    ) -> tuple[list[dict[str, Any]], str]:
        items: list[dict[str, Any]] = []
        token: str | None = None
        while True:
            request = list_page(kind, selector, token, page_size, namespace, name=name)
            page = read_page(self.send(request), kind)
            on_page(page.items)
            items += page.items
            if page.continue_token is None:
                return items, page.resource_version
            token = page.continue_token

    def stream(self, request: Request, idle_seconds: float) -> Iterator[dict[str, Any]]:
        """The events of a WATCH as they arrive, one JSON object per line, until the server
        ends it; ApiError when it is refused (410 Gone included), and when the connection
        fails or stays silent for `idle_seconds` (status 0). Not retried here: the watcher
        starts again from where it was."""
        method, url, headers = self._prepared(request)
        server = self._api.host
        try:
            answer = self._api.pool.request(
                method,
                url,
                headers=headers,
                timeout=urllib3.Timeout(connect=REQUEST_TIMEOUT, read=idle_seconds),
                retries=False,
                preload_content=False,
            )
        except urllib3.exceptions.HTTPError as failed:
            body = {"message": f"{server} unreachable: {_reason(failed)}"}
            raise ApiError(request, CONNECTION_FAILED, body) from None
        ended = False
        try:
            if not 200 <= answer.status < 300:
                raise ApiError(request, answer.status, _parse(answer.read()))
            yield from _lines(answer, request, server)
            ended = True
        finally:
            if not ended:  # left mid-stream: what the server sends next must not reach
                answer.close()  # another request on this connection
            answer.release_conn()


def _lines(answer: Any, request: Request, server: str) -> Iterator[dict[str, Any]]:
    """Each complete line of a streamed answer, parsed."""
    for line in _raw_lines(answer, request, server):
        yield _parse(line)


def _raw_lines(answer: Any, request: Request, server: str) -> Iterator[bytes]:
    """Each complete, non-blank line of a streamed answer, as it comes."""
    pending = b""
    try:
        for chunk in answer.stream(65536):
            pending += chunk
            *complete, pending = pending.split(b"\n")
            yield from (line for line in complete if line.strip())
    except (urllib3.exceptions.HTTPError, OSError) as failed:
        body = {"message": f"{server} watch broken: {_reason(failed)}"}
        raise ApiError(request, CONNECTION_FAILED, body) from None


# How a JSON encoder that writes a WatchEvent's fields in order (Go's) starts an ADDED one.
_ADDED = b'{"type":"ADDED",'


def _events(answer: Any, request: Request, server: str, batch: int) -> Iterator[dict[str, Any]]:
    """The events of a streamed list, parsed `batch` ADDED lines at a time, as one JSON
    array: the decoder holds one copy of each key per call, so the objects of a batch share
    their keys, as a LIST page's items do (parsed one line at a time, 10,000 WebApps and
    Deployments took 40 MiB more). Any other line (the bookmark that ends the list, an
    ERROR) is parsed at once, after the lines before it: nothing waits for lines that will
    not come."""
    waiting: list[bytes] = []
    for line in _raw_lines(answer, request, server):
        waiting.append(line)
        if len(waiting) < batch and line.startswith(_ADDED):
            continue
        yield from _parse_lines(waiting)
        waiting = []
    yield from _parse_lines(waiting)


def _parse_lines(lines: list[bytes]) -> list[dict[str, Any]]:
    """Lines parsed as one JSON array; one by one where that fails (a line that is not
    JSON becomes a message, as `_parse` makes it)."""
    if len(lines) > 1:
        try:
            parsed = json.loads(b"[" + b",".join(lines) + b"]")
        except ValueError:
            pass
        else:
            return [each if isinstance(each, dict) else {} for each in parsed]
    return [_parse(line) for line in lines]


def _not_connected(failed: Exception) -> bool:
    """Whether no connection could be made at all: refused, an unknown host, TLS refused."""
    errors = urllib3.exceptions
    return isinstance(failed, errors.NewConnectionError | errors.SSLError | errors.ProxyError)


def _query(request: Request) -> str:
    """The query string, each value quoted (a selector's `=` and `,`; `/` kept)."""
    if not request.query:
        return ""
    return "?" + "&".join(f"{key}={quote(value)}" for key, value in request.query)


def _headers(request: Request) -> dict[str, str]:
    headers = {"Accept": "application/json"}
    if request.content_type:
        headers["Content-Type"] = request.content_type
    return headers


# urllib3 starts its messages with the repr of its connection or pool, e.g.
# "HTTPSConnection(host='127.0.0.1', port=6443): Failed to establish a new connection: ...".
_CONNECTION_REPR = re.compile(r"^\w+\(host='[^']*', port=\d+\): ")


def _reason(failed: Exception) -> str:
    """A urllib3 failure in a person's words: the server is named by the caller already."""
    return _CONNECTION_REPR.sub("", str(failed)) or type(failed).__name__


def _parse(raw: bytes) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        text = raw[:200].decode(errors="replace").strip()
        if text.startswith("<"):  # a proxy's or load balancer's error page, not the API server
            return {"message": f"an HTML page of {len(raw)} bytes, not an API server answer"}
        return {"message": text.splitlines()[0] if text else "an empty answer"}
    return parsed if isinstance(parsed, dict) else {"items": parsed}
