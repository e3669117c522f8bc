"""The HTTP endpoints of `driftctl watch`: /healthz, /readyz and /metrics.

/healthz answers 200 while the process runs; /readyz 200 once it leads and its informers
have listed everything (503 before, and on a standby); /metrics is the registry in
Prometheus' text format. Served from a daemon thread; nothing here decides what is ready.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from driftctl.errors import UsageError


def serve(
    address: tuple[str, int], registry: CollectorRegistry, ready: Callable[[], bool]
) -> ThreadingHTTPServer:
    """Start serving on `address` (port 0: any free port; `server.server_address` says which)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/healthz":
                self._answer(200, b"ok\n", "text/plain")
            elif path == "/readyz":
                ok = ready()
                self._answer(200 if ok else 503, b"ok\n" if ok else b"not ready\n", "text/plain")
            elif path == "/metrics":
                self._answer(200, generate_latest(registry), CONTENT_TYPE_LATEST)
            else:
                self._answer(404, b"not found\n", "text/plain")

        def _answer(self, code: int, body: bytes, content_type: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return None  # probes every few seconds would drown the log

    try:
        server = ThreadingHTTPServer(address, Handler)
    except OSError as failed:
        raise UsageError(
            f"--metrics-addr {address[0]}:{address[1]}: cannot listen: {failed.strerror}"
        ) from None
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="probes", daemon=True).start()
    return server
