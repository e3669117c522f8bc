"""Benchmark (not a test): `driftctl watch` over a fleet of N WebApps on one local control plane.

For N WebApps over 10 namespaces and 100 files (benchmarks/fleet.py, as bench_cluster), the
fleet is applied once (`driftctl apply`, untimed), then one `driftctl watch` process leads
the instance (as bench_cluster's ServiceAccount, defaults but --lock-namespace):
- corrections: a person (admin, Python client) scales one Deployment to 5 through its
  scale subresource; the time from that PATCH's answer to the moment a WATCH of that
  Deployment (opened at the PATCH's resourceVersion) shows it back at 2 replicas. One
  edit at a time, every 20th Deployment, each once; the median, min and max, and the
  watch's own histogram (from the event seen to the reconcile that corrected it);
- a quiet minute: nothing drifts for 60 s; the CPU seconds the watch process used
  (/proc/<pid>/stat utime+stime), its RSS at the end and its peak (VmRSS, VmHWM), the
  requests the API server dispatched for the ServiceAccount, and the writes to WebApps,
  Deployments and Events (any client).

Results go to benchmarks/results/watch/<date>.json and .md (a folder of their own: the
documentation's Performance table is made from the newest benchmarks/results/*.json), unless
--no-record. Run: `.venv/bin/python -m benchmarks.bench_watch [--sizes 1000]
[--edits 20] [--controlplane DIR]`. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubernetes import client, config, watch

from benchmarks import bench_cluster as bench_
from benchmarks import cluster_report as report
from benchmarks import fleet as f
from tests.support.control_plane import delta, request_counts

RESULTS = bench_.RESULTS / "watch"
QUIET_SECONDS = 60.0
EDIT_EVERY = 20  # every 20th Deployment is scaled, once
WRITES = frozenset({"APPLY", "PATCH", "POST", "PUT", "CREATE", "UPDATE", "DELETE"})
_SERVING = re.compile(r"serving /healthz, /readyz and /metrics on 127\.0\.0\.1:(\d+)")


class Watch:
    """The `driftctl watch` process under measurement."""

    def __init__(self, argv: list[str], log: Path) -> None:
        self.log = log
        self._out = log.open("w")
        self.process = subprocess.Popen(
            argv, stdout=self._out, stderr=self._out, env=bench_.tool_environment(), cwd=report.ROOT
        )

    def port(self) -> int | None:
        found = _SERVING.search(self.log.read_text())
        return int(found.group(1)) if found else None

    def get(self, path: str) -> tuple[int, str]:
        if self.port() is None:
            return 0, ""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port()}{path}", timeout=10) as got:
                return got.status, got.read().decode()
        except (urllib.error.URLError, OSError):
            return 0, ""

    def metric(self, name: str) -> float:
        lines = self.get("/metrics")[1].splitlines()
        return sum(
            float(line.rpartition(" ")[2])
            for line in lines
            if line.rpartition(" ")[0].split("{", 1)[0] == name
        )

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory_kib(self) -> dict[str, int]:
        """VmRSS (now) and VmHWM (peak) of the process, KiB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text().splitlines()
        fields = dict(line.split(":", 1) for line in status)
        return {name: int(fields[name].split()[0]) for name in ("VmRSS", "VmHWM")}

    def wait_until(self, what: str, check: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"watch exited {self.process.returncode}: {self.tail()}")
            if check():
                return
            time.sleep(0.2)
        raise RuntimeError(f"watch: {what} not in {timeout:.0f}s: {self.tail()}")

    def tail(self) -> str:
        return "\n".join(self.log.read_text().splitlines()[-15:])

    def stop(self) -> int:
        self.process.terminate()
        code = self.process.wait(120)
        self._out.close()
        return code


def correction(apps: client.AppsV1Api, namespace: str, name: str) -> float:
    """Seconds from a hand scale's answer to the Deployment seen back at its replicas."""
    scaled = apps.patch_namespaced_deployment_scale(
        name,
        namespace,
        {"spec": {"replicas": f.DRIFTED_REPLICAS}},
        _content_type="application/merge-patch+json",
    )
    edited = time.perf_counter()
    version = scaled.metadata.resource_version if scaled.metadata else None
    stream = watch.Watch()  # type: ignore[no-untyped-call]
    for event in stream.stream(  # type: ignore[no-untyped-call]
        apps.list_namespaced_deployment,
        namespace,
        field_selector=f"metadata.name={name}",
        resource_version=version,
        timeout_seconds=120,
    ):
        if event["type"] == "MODIFIED" and event["object"].spec.replicas == f.REPLICAS:
            stream.stop()  # type: ignore[no-untyped-call]
            return time.perf_counter() - edited
    raise RuntimeError(f"deployment {namespace}/{name} was not put back in 120 s")


def measure(bench: bench_.Bench, count: int, options: argparse.Namespace) -> dict[str, Any]:
    fleet = f.Fleet(count, f"w{count}")
    turn = bench_.driftctl_turn(bench, fleet, None)
    for namespace in fleet.namespaces:
        bench.admin("create", "namespace", namespace)
    applied = subprocess.run(
        turn.argv("cold apply"), env=bench_.tool_environment(), cwd=report.ROOT,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if applied.returncode != 0:
        raise RuntimeError(f"cold apply exited {applied.returncode}: {applied.stderr[-2000:]}")
    base = turn.argv("cold apply")
    argv = [*base[:3], "watch", *base[4:], "--metrics-addr", "127.0.0.1:0"]
    process = Watch(argv, bench.work / f"watch-{count}.log")
    try:
        process.wait_until("ready", lambda: process.get("/readyz")[0] == 200, 1800)
        started_rss = process.memory_kib()
        bench_.settle(bench)
        api = config.new_client_from_config(config_file=str(bench.plane.kubeconfig))  # type: ignore[no-untyped-call]
        apps = client.AppsV1Api(api)
        edits = [fleet.apps()[i] for i in range(0, count, EDIT_EVERY)][: options.edits]
        seen = process.metric("driftctl_watch_drift_correction_seconds_sum")
        seen_count = process.metric("driftctl_watch_drift_correction_seconds_count")
        seconds = []
        for app in edits:
            seconds.append(correction(apps, app.namespace, app.name))
            time.sleep(1.0)  # one edit at a time: the next starts on a quiet watch
        own = process.metric("driftctl_watch_drift_correction_seconds_sum") - seen
        own_count = process.metric("driftctl_watch_drift_correction_seconds_count") - seen_count
        api.close()

        bench_.settle(bench)
        load, cpu, before = os.getloadavg()[0], process.cpu_seconds(), request_counts(bench.plane)
        time.sleep(QUIET_SECONDS)
        cpu, after = process.cpu_seconds() - cpu, request_counts(bench.plane)
        memory = process.memory_kib()
        touched = delta(before, after, ("webapps", "deployments", "events"))
        writes = {f"{s[0]} {s[2]}": n for s, n in touched.items() if s[2] in WRITES}
        code = process.stop()
    finally:
        if process.process.poll() is None:
            process.process.kill()
    row = {
        "size": count,
        "edits": len(seconds),
        "correction_seconds": [round(s, 4) for s in seconds],
        "correction_median": round(statistics.median(seconds), 4),
        "correction_min": round(min(seconds), 4),
        "correction_max": round(max(seconds), 4),
        "watch_own_seen_to_corrected_mean": round(own / own_count, 4) if own_count else None,
        "quiet_seconds": QUIET_SECONDS,
        "quiet_cpu_seconds": round(cpu, 3),
        "quiet_cpu_percent": round(100 * cpu / QUIET_SECONDS, 2),
        "rss_kib_ready": started_rss["VmRSS"],
        "rss_kib_end": memory["VmRSS"],
        "rss_kib_peak": memory["VmHWM"],
        "quiet_requests": after.service_accounts - before.service_accounts,
        "quiet_writes": writes,  # to WebApps, Deployments, Events, by any client
        "quiet_load": round(load, 2),
        "exit_code_on_sigterm": code,
    }
    print(f"# N={count}: {json.dumps(row)}", file=sys.stderr, flush=True)
    if options.controlplane is not None or count != options.sizes[-1]:
        bench_.clean_up(bench, turn)  # not on a control plane about to be stopped
    return row


def markdown(data: dict[str, Any]) -> str:
    m = data["machine"]
    lines = [
        f"# driftctl watch over a fleet ({data['date']})",
        "",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, Linux "
        f"{m['kernel']}; Python {data['versions']['python']}; driftctl at {data['commit']}.",
        f"- Load average {data['load_average']['start'][0]:.1f} at the start, "
        f"{data['load_average']['end'][0]:.1f} at the end (other work on the machine shows here).",
        "- Correction: a hand `scale` (PATCH of the scale subresource, as admin) to the "
        "Deployment seen back at 2 replicas by a WATCH opened at the PATCH's "
        "resourceVersion; one edit at a time. Quiet minute: 60 s with nothing drifted, "
        "CPU of the watch process from /proc, RSS (VmRSS, peak VmHWM), requests the API "
        "server dispatched for the ServiceAccount (its open WATCHes started earlier; what "
        "remains is its Lease renewals), writes to the counted kinds by any client. The "
        "watch's own figure runs from the event seen to the end of the reconcile "
        "(status and Event written too), so it can exceed the Deployment's own correction.",
        "",
        "| WebApps | edits | correction median (min-max), s "
        "| watch's own, seen to corrected (mean), s | quiet minute: CPU s (%) "
        "| RSS ready / end / peak, MiB | its requests in the minute "
        "| writes to WebApps, Deployments, Events |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in data["rows"]:
        own = row["watch_own_seen_to_corrected_mean"]
        writes = sum(row["quiet_writes"].values())
        lines.append(
            f"| {row['size']:,} | {row['edits']} | {row['correction_median']:.3f} "
            f"({row['correction_min']:.3f}-{row['correction_max']:.3f}) | "
            f"{'-' if own is None else f'{own:.3f}'} | {row['quiet_cpu_seconds']:.2f} "
            f"({row['quiet_cpu_percent']:.2f}%) | {row['rss_kib_ready'] / 1024:.0f} / "
            f"{row['rss_kib_end'] / 1024:.0f} / {row['rss_kib_peak'] / 1024:.0f} | "
            f"{row['quiet_requests']} | {writes} |"
        )
    return "\n".join(lines) + "\n"


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_watch", description=__doc__)
    parser.add_argument("--sizes", default="1000", help="WebApp counts")
    parser.add_argument("--edits", type=int, default=20, help="hand edits per size")
    parser.add_argument("--controlplane", type=Path, help="folder of a running control plane")
    parser.add_argument("--no-record", action="store_true", help="print only, write no file")
    options = parser.parse_args(argv)
    options.sizes = [int(size) for size in options.sizes.split(",")]
    return options


def main(argv: Sequence[str] | None = None) -> None:
    options = parse(sys.argv[1:] if argv is None else argv)
    started, load_before = time.monotonic(), os.getloadavg()
    rows = []
    with (
        tempfile.TemporaryDirectory() as folder,
        bench_.control_plane(options.controlplane, Path(folder)) as plane,
    ):
        bench = bench_.prepare(plane, Path(folder))
        for count in options.sizes:
            rows.append(measure(bench, count, options))
    data = {
        "date": datetime.date.today().isoformat(),
        "machine": report.machine(),
        "versions": report.versions(),
        "commit": report.commit(),
        "elapsed_minutes": round((time.monotonic() - started) / 60, 1),
        "load_average": {"start": list(load_before), "end": list(os.getloadavg())},
        "rows": rows,
    }
    if options.no_record:
        print(markdown(data))
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{data['date']}.json").write_text(json.dumps(data, indent=1) + "\n")
    (RESULTS / f"{data['date']}.md").write_text(markdown(data))
    print(markdown(data))


if __name__ == "__main__":
    main()
