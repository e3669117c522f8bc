"""A real Prometheus Alertmanager on a free loopback port, for the notification tests.

The binary is Debian's prometheus-alertmanager, which `make test` installs when it is
missing (tests/alertmanager/install.sh). Each test starts its own: clustering off (no
gossip port, nothing but loopback), its data in the test's folder, and a configuration
whose one receiver sends nowhere: the tests read the alerts back from its API v2, as a
person's dashboard would.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.gitrepos import free_port
from tests.support.ready_probe import wait_ready

BINARY = "prometheus-alertmanager"
DEBIAN_PATH = Path("/usr/bin") / BINARY
CONFIG = """\
route:
  receiver: nowhere
  group_wait: 1h
receivers:
  - name: nowhere
"""


@dataclass(frozen=True)
class Alertmanager:
    url: str

    def alerts(self) -> list[dict[str, Any]]:
        """The alerts it holds as active now (GET /api/v2/alerts: resolved ones are gone)."""
        with urllib.request.urlopen(f"{self.url}/api/v2/alerts", timeout=10) as page:
            found: list[dict[str, Any]] = json.loads(page.read())
        return found


def binary() -> str:
    """The installed Alertmanager; AssertionError naming the set-up step when it is missing."""
    found = shutil.which(BINARY) or (str(DEBIAN_PATH) if DEBIAN_PATH.exists() else None)
    assert found, f"{BINARY} is not installed: run `make alertmanager` (tests/alertmanager/)"
    return found


@contextlib.contextmanager
def running(folder: Path) -> Iterator[Alertmanager]:
    """An Alertmanager on 127.0.0.1 until the block ends; its log in folder/alertmanager.log."""
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "alertmanager.yml"
    config.write_text(CONFIG)
    with (folder / "alertmanager.log").open("wb") as log:
        process = subprocess.Popen(
            [
                binary(),
                f"--config.file={config}",
                f"--storage.path={folder / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--cluster.listen-address=",
                "--log.level=warn",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_ready(url, process, "Alertmanager", 20)
            yield Alertmanager(url)
        finally:
            process.terminate()
            process.wait(timeout=10)
