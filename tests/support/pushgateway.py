"""A real Prometheus Pushgateway on a free loopback port, for the metrics tests.

The binary is Debian's prometheus-pushgateway, which `make test` installs when it is
missing (tests/pushgateway/install.sh). Each test starts its own, in memory only (no
persistence file), and reads back what driftctl pushed from its /metrics page, as
Prometheus would scrape it.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.support.gitrepos import free_port
from tests.support.ready_probe import wait_ready

BINARY = "prometheus-pushgateway"
DEBIAN_PATH = Path("/usr/bin") / BINARY


@dataclass(frozen=True)
class Sample:
    """One series as the Pushgateway serves it: name, labels (grouping key included), value."""

    name: str
    labels: dict[str, str]
    value: float


@dataclass(frozen=True)
class Pushgateway:
    url: str

    def samples(self, prefix: str = "driftctl_") -> list[Sample]:
        """Every series whose name starts with `prefix`, from the /metrics page."""
        with urllib.request.urlopen(f"{self.url}/metrics", timeout=10) as page:
            text = page.read().decode()
        return [
            Sample(sample.name, dict(sample.labels), sample.value)
            for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name.startswith(prefix)
        ]

    def group(self, instance: str, shard: str = "0") -> dict[str, Sample]:
        """The series of one group by name (a labelled series as `name{label=value}`)."""
        found: dict[str, Sample] = {}
        for sample in self.samples():
            labels = sample.labels
            if labels.get("instance") != instance or labels.get("shard") != shard:
                continue
            extra = {k: v for k, v in labels.items() if k not in ("job", "instance", "shard")}
            suffix = ",".join(f"{k}={v}" for k, v in sorted(extra.items()))
            found[f"{sample.name}{{{suffix}}}" if suffix else sample.name] = sample
        return found


def binary() -> str:
    """The installed Pushgateway; AssertionError naming the set-up step when it is missing."""
    found = shutil.which(BINARY) or (str(DEBIAN_PATH) if DEBIAN_PATH.exists() else None)
    assert found, f"{BINARY} is not installed: run `make pushgateway` (see install.sh beside this)"
    return found


@contextlib.contextmanager
def running(folder: Path) -> Iterator[Pushgateway]:
    """A Pushgateway on 127.0.0.1 until the block ends; its log goes to folder/pushgateway.log."""
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "pushgateway.log").open("wb") as log:
        process = subprocess.Popen(
            [
                binary(),
                f"--web.listen-address=127.0.0.1:{port}",
                "--persistence.file=",
                "--log.level=warn",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_ready(url, process, "Pushgateway", 15)
            yield Pushgateway(url)
        finally:
            process.terminate()
            process.wait(timeout=10)
