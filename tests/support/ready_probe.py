"""Waiting for a Prometheus-family server the tests started on loopback (the Pushgateway,
the Alertmanager) to answer its `/-/ready` probe."""

from __future__ import annotations

import contextlib
import subprocess
import time
import urllib.error
import urllib.request


def wait_ready(url: str, process: subprocess.Popen[bytes], name: str, seconds: float) -> None:
    """Until `url`/-/ready answers 200; AssertionError when `process` exits first or
    `seconds` pass (its log is named `<name>.log` beside it, lowercase)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the {name} exited at start (see {name.lower()}.log)"
        with (
            contextlib.suppress(urllib.error.URLError, OSError),
            urllib.request.urlopen(f"{url}/-/ready", timeout=1) as ready,
        ):
            if ready.status == 200:
                return
        time.sleep(0.05)
    raise AssertionError(f"the {name} at {url} did not become ready")
