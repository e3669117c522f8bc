"""A round trip between a tool and the API server, on loopback: a TCP relay that delays.

Against a real cluster every request of a tool waits for the network: a round trip of a
few milliseconds in a region, tens across regions. On the benchmark's loopback there is
none, which hides what `--concurrency` does against a sequential `kubectl apply`. The
relay listens on 127.0.0.1 and passes the bytes of each connection on to the API server
unchanged (TLS end to end: nothing is decrypted, the certificate still names 127.0.0.1),
each chunk half the round trip later in each direction, in order, as a link with that
delay would (TLS handshakes and every request pay it; bandwidth is not limited). Only
loopback is used; it stops with its `with` block.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

CHUNK = 65536


class DelayingRelay:
    """127.0.0.1:`port` -> `upstream` (host, port), `round_trip` seconds added."""

    def __init__(self, upstream: tuple[str, int], round_trip: float) -> None:
        self._upstream, self._half = upstream, round_trip / 2
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="relay", daemon=True)
        self.port = 0

    def __enter__(self) -> DelayingRelay:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the relay did not start")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", 0)
        )
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        except OSError:
            writer.close()
            return
        try:
            await asyncio.gather(
                self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
            )
        except asyncio.CancelledError:  # the relay stops: its connections go with it
            writer.close()
            up_writer.close()

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        """Each chunk of `source`, written to `sink` half a round trip after it came."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                await asyncio.sleep(max(due - loop.time(), 0))
                if not data:
                    break
                sink.write(data)
                await sink.drain()
            with contextlib.suppress(OSError):
                sink.close()

        delivering = asyncio.create_task(deliver())
        try:
            while data := await source.read(CHUNK):
                queue.put_nowait((loop.time() + self._half, data))
        except OSError:
            pass
        queue.put_nowait((loop.time() + self._half, b""))
        await delivering


def relayed_kubeconfig(kubeconfig: Path, relay: DelayingRelay, written: Path) -> Path:
    """`kubeconfig` with its server at the relay (same credentials, same CA)."""
    config = json.loads(kubeconfig.read_text())
    for cluster in config["clusters"]:
        cluster["cluster"]["server"] = f"https://127.0.0.1:{relay.port}"
    written.write_text(json.dumps(config))
    written.chmod(0o600)
    return written


def upstream_of(kubeconfig: Path) -> tuple[str, int]:
    """(host, port) of the server a kubeconfig names."""
    server = urlsplit(json.loads(kubeconfig.read_text())["clusters"][0]["cluster"]["server"])
    if server.hostname != "127.0.0.1" or not server.port:
        raise ValueError(f"not an API server on loopback: {server.geturl()}")
    return server.hostname, server.port
