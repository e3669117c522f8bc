"""One `driftctl watch` process under test: started as a real subprocess, read through its
output, /metrics and /readyz, stopped with SIGTERM (or killed at the test's end: the
`watching` fixture, a plugin of tests/conftest.py, kills what a test started)."""

from __future__ import annotations

import re
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.support.harness import Harness, driftctl_env, eventually
from tests.support.paths import ROOT

_SERVING = re.compile(r"serving /healthz, /readyz and /metrics on 127\.0\.0\.1:(\d+)")


class Watching:
    """One `driftctl watch` process, its output, its /metrics and /readyz."""

    def __init__(
        self,
        harness: Harness,
        kubeconfig: Path,
        *extra: str,
        env: Mapping[str, str] | None = None,
    ) -> None:
        argv = harness.argv("watch", kubeconfig=kubeconfig)
        argv += ["--metrics-addr", "127.0.0.1:0", "--git-poll", "0.5", "--concurrency", "2"]
        argv += extra
        self.process = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**driftctl_env(), **(env or {})},
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=_collect, args=(stream, lines), daemon=True)
            for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for reader in self._readers:
            reader.start()
        assert eventually(lambda: self._port() is not None, 60), self.log()

    def _port(self) -> int | None:
        for line in list(self.err):
            if match := _SERVING.search(line):
                return int(match.group(1))
        return None

    def _get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self._port()}{path}", timeout=5) as got:
                return got.status, got.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, ""

    def ready(self) -> bool:
        return self._get("/readyz")[0] == 200

    def metric(self, name: str, **labels: str) -> float:
        """The sum of every series of one metric on /metrics (see metric_sum), of those
        with `labels` when given."""
        return metric_sum(self._get("/metrics")[1], name, labels)

    def said(self, text: str) -> bool:
        """Whether a line read so far holds `text` (all of them, once the process ended)."""
        self._read_to_the_end()
        return any(text in line for line in list(self.err) + list(self.out))

    def log(self) -> str:
        self._read_to_the_end()
        return "".join(self.out) + "".join(self.err)

    def _read_to_the_end(self) -> None:
        """Once the process has ended, wait for its last lines to be read from its pipes."""
        if self.process.poll() is not None:
            for reader in self._readers:
                reader.join(10)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(60)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)


def metric_sum(page: str, name: str, labels: Mapping[str, str] | None = None) -> float:
    """The sum of every series of metric `name` on a Prometheus text page (of those with
    every one of `labels`). A page without one fails (AssertionError): a renamed or missing
    metric must fail the test that reads it, not read as 0."""
    wanted = [f'{key}="{value}"' for key, value in (labels or {}).items()]
    values = [
        float(value)
        for series, _, value in (line.rpartition(" ") for line in page.splitlines())
        if series.split("{", 1)[0] == name and all(each in series for each in wanted)
    ]
    assert values, f"no series of {name}{labels or ''} on /metrics"
    return sum(values)


def _collect(stream: object, lines: list[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.append(line)


def start(harness: Harness, kubeconfig: Path, started: list[Watching], *extra: str) -> Watching:
    process = Watching(harness, kubeconfig, *extra)
    started.append(process)
    return process


def replicas(harness: Harness, name: str) -> int | None:
    deployment = harness.get("deployment", name)
    return None if deployment is None else int(deployment["spec"]["replicas"])


def settled(process: Watching) -> None:
    """Wait until the watch has nothing left to do: an empty queue over three polls."""
    polls = process.metric("driftctl_watch_git_polls_total")

    def idle() -> bool:
        if process.metric("driftctl_watch_queue_depth") != 0:
            return False
        return process.metric("driftctl_watch_git_polls_total") >= polls + 3

    assert eventually(idle, 60), process.log()


@pytest.fixture
def watching() -> Iterator[list[Watching]]:
    """The watch processes a test starts (it appends them); each killed at its end."""
    started: list[Watching] = []
    yield started
    for each in started:
        each.kill()
