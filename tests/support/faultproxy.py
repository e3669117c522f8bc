"""A loopback HTTPS proxy in front of the test API server that injects faults on real bytes.

driftctl talks to the proxy exactly as to an API server: TLS with a certificate from the
control plane's own CA, HTTP/1.1 with keep-alive. Each request is forwarded unchanged
(method, path and query, headers with the bearer token, body) to the real API server over
TLS verified with the same CA, and its real answer is returned — unless a scripted fault
matches it first: then the proxy answers a given status itself, resets the connection
without answering, waits before forwarding, or holds the request until the test releases
it (forwarded or dropped), which lets a test kill the client at exactly that request. A
WATCH (`watch=1`) is relayed line by line as the server sends it, and can be cut off after
some lines.
Every request is recorded with what the client got, so tests assert exact numbers of tries.

Client certificates cannot pass a TLS-terminating proxy: use a bearer-token kubeconfig.
`accept_token(presented, real)` lets a client present a made-up bearer token (a canary a
test then looks for everywhere) that the proxy swaps for a real one before forwarding.
It listens on 127.0.0.1 only, and every wait is bounded (socket timeouts, stop).
"""

from __future__ import annotations

import http.client
import http.server
import json
import socket
import ssl
import struct
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import cast
from urllib.parse import urlsplit

from tests.controlplane.pki import KeyPair

IDLE_SECONDS = 60.0  # how long a kept-alive client connection may sit unused
UPSTREAM_SECONDS = 30.0
HOLD_SECONDS = 120.0  # the longest a Hold keeps a request when the test never releases it
# Hop-by-hop headers belong to one connection, not to the request or the answer.
HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade"}
)


@dataclass(frozen=True)
class Answer:
    """Answer the request with this instead of forwarding it."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""


@dataclass(frozen=True)
class Delay:
    """Wait this long (or until the proxy stops), then forward the request."""

    seconds: float


@dataclass(frozen=True)
class Reset:
    """Close the connection with a TCP reset, answering nothing: a connection error."""


@dataclass(eq=False)
class Hold:
    """Keep the request waiting, unsent, until the test says what becomes of it.

    `held` is set once a request waits here, so a test knows the client is blocked at
    exactly this request (and can kill it). `release(forward=True)` sends it on to the
    API server (the write happens, as if the client died after sending it);
    `release(forward=False)` drops it with a reset (the write never reaches the server).
    A stopping proxy drops what it holds. One Hold serves one request (`times=1`).
    """

    held: threading.Event = field(default_factory=threading.Event)
    _released: threading.Event = field(default_factory=threading.Event)
    _forward: bool = False

    def release(self, *, forward: bool) -> None:
        self._forward = forward
        self._released.set()

    def wait(self, stopping: threading.Event, bound: float) -> bool:
        """Block until released (or the proxy stops, or `bound` passes); forward it?"""
        self.held.set()
        deadline = time.monotonic() + bound
        while not self._released.wait(0.05):
            if stopping.is_set() or time.monotonic() >= deadline:
                return False
        return self._forward


@dataclass(frozen=True)
class Cut:
    """Forward a streamed answer (a WATCH), but close the connection after its first
    `lines` lines, in the middle of the body: a stream broken off mid-way (a reset could
    take the lines already sent with it)."""

    lines: int


Action = Answer | Delay | Reset | Hold | Cut


@dataclass
class Fault:
    """A scripted fault: applies to the next `times` requests that match (None: all of them).

    `path` is a substring of the path (query excluded); `dry_run` tells server-side dry-runs
    (`dryRun=All`) from real writes to the same path.
    """

    action: Action
    method: str | None = None
    path: str | None = None
    dry_run: bool | None = None
    times: int | None = 1

    def matches(self, method: str, path: str, query: str) -> bool:
        return (
            (self.method is None or self.method == method)
            and (self.path is None or self.path in path)
            and (self.dry_run is None or self.dry_run == _is_dry_run(query))
        )


@dataclass(frozen=True)
class Exchange:
    """One request the proxy received, and the status the client got (0: reset)."""

    method: str
    path: str
    query: str
    status: int
    injected: bool

    @property
    def dry_run(self) -> bool:
        return _is_dry_run(self.query)


def _is_watch(query: str) -> bool:
    return any(part in ("watch=1", "watch=true") for part in query.split("&"))


def _is_dry_run(query: str) -> bool:
    return "dryRun=All" in query.split("&")


_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


def status_answer(code: int, message: str, *, retry_after: int | None = None) -> Answer:
    """An answer shaped like the API server's own: a metav1.Status JSON body."""
    status: dict[str, object] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": _REASONS.get(code, ""),
        "code": code,
    }
    headers = [("Content-Type", "application/json")]
    if retry_after is not None:
        status["details"] = {"retryAfterSeconds": retry_after}
        headers.append(("Retry-After", str(retry_after)))
    return Answer(code, tuple(headers), json.dumps(status).encode())


@dataclass
class _Script:
    """The faults still to inject and the requests seen, shared by the handler threads."""

    faults: list[Fault] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, method: str, path: str, query: str) -> Action | None:
        """The action of the first fault matching this request, used up by one."""
        with self.lock:
            for fault in self.faults:
                if fault.matches(method, path, query):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self.faults.remove(fault)
                    return fault.action
            return None

    def record(self, exchange: Exchange) -> None:
        with self.lock:
            self.exchanges.append(exchange)


class _Server(http.server.ThreadingHTTPServer):
    """Accepts on loopback; TLS is set up in the connection's own thread, not the accept loop."""

    daemon_threads = True

    def __init__(self, port: int, proxy: FaultProxy, tls: ssl.SSLContext) -> None:
        self.proxy = proxy
        self.tls = tls
        super().__init__(("127.0.0.1", port), _Relay)

    def finish_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        raw = cast(socket.socket, request)
        raw.settimeout(IDLE_SECONDS)
        with self.tls.wrap_socket(raw, server_side=True) as secured:
            _Relay(secured, client_address, self)

    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        """A client that went away mid-handshake or mid-request is no news: stay quiet."""


class _Relay(http.server.BaseHTTPRequestHandler):
    """Handles one client connection: each request is faulted or forwarded."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def relay(self) -> None:
        proxy = self.server.proxy
        path, _, query = self.path.partition("?")
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        action = proxy.script.take(self.command, path, query)
        if isinstance(action, Hold) and not action.wait(proxy.stopping, HOLD_SECONDS):
            action = Reset()
        if isinstance(action, Reset):
            proxy.script.record(Exchange(self.command, path, query, 0, injected=True))
            self.reset()
            return
        if isinstance(action, Answer):
            answer, injected = action, True
        elif _is_watch(query) and not isinstance(action, Hold):
            if isinstance(action, Delay):
                proxy.stopping.wait(action.seconds)
            proxy.stream(self, body, action.lines if isinstance(action, Cut) else None)
            return
        else:
            if isinstance(action, Delay):
                proxy.stopping.wait(action.seconds)
            answer, injected = (
                proxy.forward(self.command, self.path, self.headers.items(), body),
                False,
            )
        proxy.script.record(Exchange(self.command, path, query, answer.status, injected))
        self.answer(answer)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = relay

    def answer(self, answer: Answer) -> None:
        self.send_response_only(answer.status)
        for name, value in answer.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(answer.body)

    def reset(self) -> None:
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        """Requests are recorded as Exchanges; nothing is printed."""


def kubeconfig_for(kubeconfig: Path, server: str, written: Path) -> Path:
    """A copy of a (JSON) kubeconfig whose cluster is reached at `server`; its path."""
    config = json.loads(kubeconfig.read_text())
    for cluster in config["clusters"]:
        cluster["cluster"]["server"] = server
    written.write_text(json.dumps(config))
    written.chmod(0o600)
    return written


class FaultProxy:
    """The proxy, started and stopped as a context manager."""

    def __init__(self, upstream: str, ca_file: Path, serving: KeyPair, *, port: int = 0) -> None:
        target = urlsplit(upstream)
        if target.hostname not in ("127.0.0.1", "localhost") or target.port is None:
            raise ValueError(f"the upstream must be a loopback https URL with a port: {upstream}")
        self._upstream = (target.hostname, target.port)
        self._client_tls = ssl.create_default_context(cafile=str(ca_file))
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(str(serving.cert), str(serving.key))
        self.script = _Script()
        self._tokens: dict[str, str] = {}
        self.stopping = threading.Event()
        self._server = _Server(port, self, tls)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fault-proxy", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"https://{host!s}:{port}"

    def inject(self, *faults: Fault) -> None:
        """Queue faults; a request takes the first one that matches."""
        with self.script.lock:
            self.script.faults.extend(faults)

    def heal(self) -> None:
        """Drop every fault still queued: from now on requests are only forwarded."""
        with self.script.lock:
            self.script.faults.clear()

    def accept_token(self, presented: str, real: str) -> None:
        """Forward requests bearing the token `presented` with the token `real` instead."""
        self._tokens[f"Bearer {presented}"] = f"Bearer {real}"

    @property
    def exchanges(self) -> list[Exchange]:
        with self.script.lock:
            return list(self.script.exchanges)

    def statuses(self, method: str, path: str, *, dry_run: bool = False) -> list[int]:
        """What the client got, try after try, for requests to exactly this path."""
        return [
            seen.status
            for seen in self.exchanges
            if (seen.method, seen.path, seen.dry_run) == (method, path, dry_run)
        ]

    def forward(
        self, method: str, target: str, headers: Sequence[tuple[str, str]], body: bytes
    ) -> Answer:
        """The real API server's answer to the request, read whole."""
        upstream = self._upstream_connection()
        try:
            upstream.request(method, target, body=body or None, headers=self._sent(headers))
            answer = upstream.getresponse()
            data = answer.read()
        except OSError as failed:  # the API server itself is gone: what a gateway says
            return Answer(502, (("Content-Type", "text/plain"),), f"{failed}".encode())
        finally:
            upstream.close()
        kept = tuple(
            (k, v)
            for k, v in answer.getheaders()
            if k.lower() not in HOP_BY_HOP | {"content-length"}
        )
        return Answer(answer.status, kept, data)

    def stream(self, relay: _Relay, body: bytes, cut: int | None) -> None:
        """Relay the API server's streamed answer as it comes, a line (an event) at a time,
        chunked; closed after `cut` lines when given. Recorded once the status is known (0
        when cut): the client may leave a stream long before it ends."""
        path, _, query = relay.path.partition("?")
        upstream = self._upstream_connection()
        try:
            upstream.request(
                "GET", relay.path, body=body or None, headers=self._sent(relay.headers.items())
            )
            answer = upstream.getresponse()
        except OSError as failed:  # the API server itself is gone: what a gateway says
            upstream.close()
            self.script.record(Exchange("GET", path, query, 502, False))
            relay.answer(Answer(502, (("Content-Type", "text/plain"),), f"{failed}".encode()))
            return
        try:
            got = answer.status if cut is None else 0
            self.script.record(Exchange("GET", path, query, got, cut is not None))
            relay.send_response_only(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in HOP_BY_HOP | {"content-length"}:
                    relay.send_header(name, value)
            relay.send_header("Transfer-Encoding", "chunked")
            relay.end_headers()
            sent = 0
            while line := answer.readline():
                if sent == cut:
                    relay.connection.shutdown(socket.SHUT_RDWR)
                    relay.close_connection = True
                    return
                relay.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                relay.wfile.flush()
                sent += 1
            relay.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client went away, or the server: the stream ends here
            relay.close_connection = True
        finally:
            upstream.close()

    def _upstream_connection(self) -> http.client.HTTPSConnection:
        host, port = self._upstream
        return http.client.HTTPSConnection(
            host, port, context=self._client_tls, timeout=UPSTREAM_SECONDS
        )

    def _sent(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """The request's headers as forwarded: end-to-end ones, a presented token swapped."""
        sent = {k: v for k, v in headers if k.lower() not in HOP_BY_HOP | {"host"}}
        for name, value in sent.items():
            if name.lower() == "authorization" and value in self._tokens:
                sent[name] = self._tokens[value]
        return sent

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
