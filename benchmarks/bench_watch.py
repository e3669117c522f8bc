"""Benchmark (not a test): `driftctl watch` beside the seed operator, the kube-rs WebApp
operator driftctl was designed from (../shared/peers/seed-operator/, built with cargo when
its binary is missing), each on fresh control planes of its own, one after the other.

For N WebApps over 10 namespaces (benchmarks/fleet.py), each tool on its own control plane
(etcd, kube-apiserver, and a kube-controller-manager that runs the Deployment controller
too, so Deployments get a status as in a cluster, without a node, hence without Pods):
- cold start: driftctl from Git (the repository declares the fleet, the cluster has none
  of it: watch's start pass creates it); the seed operator from existing WebApps (created
  as admin, untimed, before it starts: it has no Git). Ready: every Deployment exists and
  every WebApp has a status, as the API server shows them (both tools the same way);
  driftctl's /readyz too. The process's CPU seconds and RSS at that moment;
- the aftermath: at once, hand scales one after another while the Deployment
  controller's status updates of the new Deployments are still being worked through
  (driftctl's status refreshes wait in its queue: their count is recorded at each edit);
- the minute after the cold start (its aftermath included): the process's CPU seconds,
  the requests the API server dispatched for both tools' ServiceAccount, by kind; every
  rollout stays in progress (no node, no Pod), as a fleet-wide image change would keep
  them on a real cluster for a while;
- a quiet cluster: the Deployment controller stopped (the progress deadline of Deployments
  that never get Pods would otherwise change them all again ten minutes later), nothing
  sent for 2 s, then hand scales one at a time, a second apart;
- a quiet minute: nothing drifts for 60 s: the process's CPU seconds, its RSS at the end
  and its peak (VmRSS, VmHWM), the requests the API server dispatched for the
  ServiceAccount both tools run as.
A hand scale is a PATCH of one Deployment's scale subresource to 5 replicas, as admin;
its time runs from the PATCH's answer to the moment a WATCH of that Deployment, opened at
the PATCH's resourceVersion, shows it back at 2 replicas.

Results go to benchmarks/results/watch/<date>.json and .md, unless --no-record. Run:
`.venv/bin/python -m benchmarks.bench_watch [--sizes 1000,10000] [--edits 20]
[--tools driftctl,seed]`. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubernetes import client, config, watch

from benchmarks import bench_cluster as bench_
from benchmarks import cluster_report as report
from benchmarks import fleet as f
from tests.controlplane import launcher
from tests.support.control_plane import Requests, request_counts

RESULTS = bench_.RESULTS / "watch"
QUIET_SECONDS = 60.0
AFTERMATH_EDITS = 10
EDIT_EVERY = 20  # the quiet edits: every 20th Deployment, each once
DEPLOYMENT_CONTROLLER = "deployment-controller"
SEED_BINARY = (
    Path.home() / ".cache" / "driftctl" / "seed-operator" / "release" / "seed-webapp-operator"
)
SEED_SOURCE = report.ROOT.parent / "shared" / "peers" / "seed-operator"
TOOLS = ("driftctl", "seed")
METADATA_ONLY = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
READY_POLL = 5.0  # seconds between the looks at the fleet while an operator starts
_SERVING = re.compile(r"serving /healthz, /readyz and /metrics on 127\.0\.0\.1:(\d+)")


class Operator:
    """The operator process under measurement (driftctl watch, or the seed operator)."""

    def __init__(self, argv: list[str], log: Path, env: dict[str, str]) -> None:
        self.log = log
        self._out = log.open("w")
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            argv, stdout=self._out, stderr=self._out, env=env, cwd=report.ROOT
        )

    def port(self) -> int | None:
        found = _SERVING.search(self.log.read_text())
        return int(found.group(1)) if found else None

    def get(self, path: str) -> tuple[int, str]:
        """GET from driftctl's /healthz, /readyz, /metrics (0: not serving)."""
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

    def alive(self) -> None:
        if self.process.poll() is not None:
            raise RuntimeError(f"operator exited {self.process.returncode}: {self.tail()}")

    def tail(self) -> str:
        return "\n".join(self.log.read_text().splitlines()[-15:])

    def stop(self) -> int:
        self.process.terminate()
        try:
            code = self.process.wait(120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(30)
        self._out.close()
        return code


# --- the seed operator ------------------------------------------------------------------


def seed_binary(source: Path) -> Path | None:
    """The seed operator's binary: the cached build, else built with cargo (about 11
    minutes, once), else None (its rows are then left out, and the results say why)."""
    if SEED_BINARY.exists():
        return SEED_BINARY
    cargo = shutil.which("cargo")
    if cargo is None or not (source / "Cargo.toml").exists():
        return None
    target = SEED_BINARY.parents[1]
    subprocess.run(
        [cargo, "build", "--release", "--locked", "--manifest-path", str(source / "Cargo.toml"),
         "--target-dir", str(target)],
        check=True,
    )  # fmt: skip
    return SEED_BINARY if SEED_BINARY.exists() else None


def seed_crd(binary: Path, folder: Path) -> Path:
    """The seed operator's own CRD (status: available_replicas and ready only)."""
    path = folder / "seed-crd.yaml"
    path.write_text(subprocess.run([str(binary), "crd"], capture_output=True, text=True,
                                   check=True).stdout)  # fmt: skip
    return path


def create_webapps(bench: bench_.Bench, fleet: f.Fleet) -> None:
    """The fleet's WebApps, as a person or a restore would leave them for the seed operator
    (admin, server-side apply, four namespaces at a time; untimed)."""

    def one_namespace(namespace: str) -> None:
        items = [
            {
                "apiVersion": "example.com/v1",
                "kind": "WebApp",
                "metadata": {"name": app.name, "namespace": app.namespace},
                "spec": {"image": app.spec.image, "replicas": app.spec.replicas},
            }
            for app in fleet.apps()
            if app.namespace == namespace
        ]
        listed = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
        bench.admin("apply", "--server-side", "-f", "-", stdin=listed)

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(one_namespace, fleet.namespaces))


# --- what is measured ---------------------------------------------------------------------


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
        timeout_seconds=600,
    ):
        if event["type"] == "MODIFIED" and event["object"].spec.replicas == f.REPLICAS:
            stream.stop()  # type: ignore[no-untyped-call]
            return time.perf_counter() - edited
    raise RuntimeError(f"deployment {namespace}/{name} was not put back in 600 s")


def counted(api: client.ApiClient, fleet: f.Fleet) -> tuple[int, int]:
    """(Deployments, WebApps with a status) of the fleet, as the API server lists them."""
    apps, objects = client.AppsV1Api(api), client.CustomObjectsApi(api)
    deployments = statuses = 0
    for namespace in fleet.namespaces:
        listed: Any = apps.list_namespaced_deployment(
            namespace, _preload_content=False, _headers={"Accept": METADATA_ONLY}
        )
        deployments += len(json.loads(listed.data)["items"] or [])
    if deployments < fleet.count:
        return deployments, 0
    for namespace in fleet.namespaces:
        webapps: dict[str, Any] = objects.list_namespaced_custom_object(  # type: ignore[assignment]
            "example.com", "v1", namespace, "webapps"
        )
        statuses += sum(1 for item in webapps["items"] if "ready" in (item.get("status") or {}))
    return deployments, statuses


def wait_ready(operator: Operator, api: client.ApiClient, fleet: f.Fleet) -> float:
    """Seconds from the operator's start until every Deployment exists and every WebApp has
    a status."""
    while True:
        operator.alive()
        if counted(api, fleet) == (fleet.count, fleet.count):
            return time.perf_counter() - operator.started
        time.sleep(READY_POLL)


def spread(seconds: list[float]) -> dict[str, Any]:
    return {
        "seconds": [round(s, 4) for s in seconds],
        "median": round(statistics.median(seconds), 4),
        "min": round(min(seconds), 4),
        "max": round(max(seconds), 4),
    }


def quiet_cluster(plane: launcher.ControlPlane) -> None:
    """The controller manager again, without the Deployment controller."""
    launcher.stop_component(plane.folder, "kube-controller-manager")
    argv = launcher.controller_manager_argv(plane.bin_dir, plane.kubeconfig)
    launcher.start_component(plane.folder, "kube-controller-manager", argv)


def measure(
    tool: str, count: int, options: argparse.Namespace, work: Path, seed: Path | None
) -> dict[str, Any]:
    """One tool at one size, on a control plane of its own (`seed`: the seed operator's
    binary, for its turn; None for driftctl's)."""
    with fresh_plane(tool, work, seed) as plane:
        bench = bench_.prepare(plane, work)
        fleet = f.Fleet(count, f"w{count}")
        for namespace in fleet.namespaces:
            bench.admin("create", "namespace", namespace)
        operator = start_operator(bench, fleet, work, seed)
        api = config.new_client_from_config(config_file=str(plane.kubeconfig))  # type: ignore[no-untyped-call]
        try:
            row = run_scenarios(Run(tool, operator, plane, bench, api, fleet), options)
        finally:
            api.close()
            code = operator.stop() if operator.process.poll() is None else None
    row["exit_code_on_sigterm"] = code
    print(f"# {tool} N={count}: {json.dumps(row)}", file=sys.stderr, flush=True)
    return row


def start_operator(bench: bench_.Bench, fleet: f.Fleet, work: Path, seed: Path | None) -> Operator:
    """driftctl watch on a cluster without the fleet (`seed` None), or the seed operator on
    one with the fleet's WebApps."""
    env = bench_.tool_environment()
    if seed is None:
        turn = bench_.driftctl_turn(bench, fleet, None)
        base = turn.argv("cold apply")
        argv = [*base[:3], "watch", *base[4:], "--metrics-addr", "127.0.0.1:0"]
        return Operator(argv, work / f"driftctl-{fleet.count}.log", env)
    create_webapps(bench, fleet)
    bench_.settle(bench)
    env.update(KUBECONFIG=str(bench.kubeconfig), RUST_LOG="warn")
    return Operator([str(seed)], work / f"seed-{fleet.count}.log", env)


@dataclass(frozen=True)
class Run:
    """One tool at one size: its process, its control plane, how the bench reaches it."""

    tool: str
    operator: Operator
    plane: launcher.ControlPlane
    bench: bench_.Bench
    api: client.ApiClient
    fleet: f.Fleet


def run_scenarios(run: Run, options: argparse.Namespace) -> dict[str, Any]:
    """Cold start, the aftermath's corrections, the quiet ones, the quiet minute."""
    tool, operator, plane, bench, api, fleet = (
        run.tool, run.operator, run.plane, run.bench, run.api, run.fleet
    )  # fmt: skip
    apps = client.AppsV1Api(api)
    load_start = os.getloadavg()[0]
    ready = wait_ready(operator, api, fleet)
    ready_cpu, ready_memory = operator.cpu_seconds(), operator.memory_kib()
    readyz = tool == "driftctl" and operator.get("/readyz")[0] == 200

    start_cpu, start_requests = operator.cpu_seconds(), request_counts(plane)
    edited = fleet.apps()
    aftermath, waiting = [], []
    for app in edited[1 : 1 + AFTERMATH_EDITS * EDIT_EVERY : EDIT_EVERY]:
        waiting.append(
            operator.metric("driftctl_watch_queue_status") if tool == "driftctl" else None
        )
        aftermath.append(correction(apps, app.namespace, app.name))
        time.sleep(0.2)
    aftermath_load = os.getloadavg()[0]
    time.sleep(max(ready + QUIET_SECONDS - (time.perf_counter() - operator.started), 0.0))
    start_minute = operator.cpu_seconds() - start_cpu, request_counts(plane)

    quiet_cluster(plane)
    bench_.settle(bench)
    quiet = []
    for app in edited[::EDIT_EVERY][: options.edits]:
        quiet.append(correction(apps, app.namespace, app.name))
        time.sleep(1.0)
    bench_.settle(bench)
    load, cpu, before = os.getloadavg()[0], operator.cpu_seconds(), request_counts(plane)
    time.sleep(QUIET_SECONDS)
    cpu, after = operator.cpu_seconds() - cpu, request_counts(plane)
    memory = operator.memory_kib()
    return {
        "tool": tool,
        "size": fleet.count,
        "cold_start_seconds": round(ready, 2),
        "cold_start_cpu_seconds": round(ready_cpu, 2),
        "driftctl_readyz_at_ready": readyz if tool == "driftctl" else None,
        "cold_start_load": round(load_start, 2),
        "rss_kib_ready": ready_memory["VmRSS"],
        "aftermath": spread(aftermath),
        "aftermath_status_refreshes_waiting": waiting,
        "aftermath_load": round(aftermath_load, 2),
        "start_minute_cpu_seconds": round(start_minute[0], 3),
        "start_minute_requests": start_minute[1].service_accounts - start_requests.service_accounts,
        "start_minute_requests_by_kind": requests_by_kind(start_requests, start_minute[1]),
        "quiet": spread(quiet),
        "quiet_seconds": QUIET_SECONDS,
        "quiet_cpu_seconds": round(cpu, 3),
        "quiet_requests": after.service_accounts - before.service_accounts,
        "quiet_requests_by_kind": requests_by_kind(before, after),
        "quiet_load": round(load, 2),
        "rss_kib_end": memory["VmRSS"],
        "rss_kib_peak": memory["VmHWM"],
    }


def requests_by_kind(before: Requests, after: Requests) -> dict[str, int]:
    """What the API server dispatched between two counts, by resource and verb (`pods
    LIST`), of every client: in the quiet minute, the tool and the controller manager."""
    made: dict[str, int] = {}
    for series, count in after.by_series.items():
        moved = count - before.by_series[series]
        if moved and series[2] != "WATCH":  # watches are reopened, not sent for work
            resource, subresource, verb = series[:3]
            name = f"{resource}/{subresource}" if subresource else resource
            made[f"{name} {verb}"] = made.get(f"{name} {verb}", 0) + moved
    return dict(sorted(made.items()))


@contextlib.contextmanager
def fresh_plane(tool: str, work: Path, seed: Path | None) -> Iterator[launcher.ControlPlane]:
    """A control plane of one tool's own, with its CRD and the Deployment controller."""
    crd = bench_.CRD_FILE if seed is None else seed_crd(seed, work)
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{tool}-", dir=work))
    plane = launcher.start(folder, [crd], controllers=DEPLOYMENT_CONTROLLER)
    try:
        yield plane
    finally:
        launcher.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


# --- the report ---------------------------------------------------------------------------


def markdown(data: dict[str, Any]) -> str:
    m = data["machine"]
    lines = [
        f"# driftctl watch beside the seed operator ({data['date']})",
        "",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, Linux "
        f"{m['kernel']}; Python {data['versions']['python']}; driftctl at {data['commit']}; "
        f"the whole run {data['elapsed_minutes']} min.",
        f"- Load average {data['load_average']['start'][0]:.1f} at the start, "
        f"{data['load_average']['end'][0]:.1f} at the end (other work on the machine shows "
        "here); each row has its own.",
        *(f"- {note}" for note in data.get("notes", [])),
        "- Each tool on a fresh control plane of its own, one after the other; both as the "
        "same ServiceAccount (cluster-admin). Cold start: driftctl from Git (the cluster has "
        "none of the fleet), the seed operator from WebApps created before it started; ready "
        "when every Deployment exists and every WebApp has a status. Aftermath: hand scales "
        "right after, while the Deployment controller's status updates are worked through "
        "(driftctl: status refreshes waiting in its queue at each edit). Quiet: the "
        "Deployment controller stopped, nothing sent for 2 s, one edit a second. A hand "
        "scale's time runs from the PATCH's answer to the Deployment seen back at 2 replicas.",
        "",
        "| tool | WebApps | cold start, s (CPU s) | RSS ready / end / peak, MiB "
        "| aftermath correction median (min-max), s | status refreshes waiting "
        "| minute after the start: CPU s, requests "
        "| quiet correction median (min-max), s | quiet minute CPU s | requests in it | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in data["rows"]:
        waiting = [w for w in row["aftermath_status_refreshes_waiting"] if w is not None]
        shown = f"{int(max(waiting))} max" if waiting else "-"
        lines.append(
            f"| {row['tool']} | {row['size']:,} | {row['cold_start_seconds']:.1f} "
            f"({row['cold_start_cpu_seconds']:.1f}) | {row['rss_kib_ready'] / 1024:.0f} / "
            f"{row['rss_kib_end'] / 1024:.0f} / {row['rss_kib_peak'] / 1024:.0f} | "
            f"{_spread(row['aftermath'])} | {shown} | {_start_minute(row)} | "
            f"{_spread(row['quiet'])} | "
            f"{row['quiet_cpu_seconds']:.2f} | {row['quiet_requests']} | "
            f"{row['cold_start_load']:.1f} / {row['quiet_load']:.1f} |"
        )
    lines += ["", *comparison(data["rows"])]
    return "\n".join(lines) + "\n"


def _start_minute(row: dict[str, Any]) -> str:
    if "start_minute_cpu_seconds" not in row:  # results from before it was measured
        return "-"
    return f"{row['start_minute_cpu_seconds']:.2f}, {row['start_minute_requests']}"


def _spread(item: dict[str, Any]) -> str:
    return f"{item['median']:.3f} ({item['min']:.3f}-{item['max']:.3f})"


def comparison(rows: list[dict[str, Any]]) -> list[str]:
    """driftctl against the seed, size by size, beside the issue's bounds."""
    lines = [
        "| WebApps | quiet correction, driftctl/seed (bound 1.5) | RSS at the end, "
        "driftctl/seed (bound 1.0 at 10,000) | quiet-minute CPU, driftctl/seed (bound 2.0) "
        "| minute after the start, CPU driftctl/seed (bound 1.5 at 10,000) "
        "| aftermath correction, driftctl max |",
        "|---|---|---|---|---|---|",
    ]
    by = {(row["tool"], row["size"]): row for row in rows}
    for size in sorted({row["size"] for row in rows}):
        ours, seed = by.get(("driftctl", size)), by.get(("seed", size))
        if ours is None or seed is None:
            continue
        correction_ratio = ours["quiet"]["median"] / seed["quiet"]["median"]
        rss = ours["rss_kib_end"] / seed["rss_kib_end"]
        cpu = ours["quiet_cpu_seconds"] / max(seed["quiet_cpu_seconds"], 0.01)
        started = "-"
        if "start_minute_cpu_seconds" in ours and "start_minute_cpu_seconds" in seed:
            ratio = ours["start_minute_cpu_seconds"] / max(seed["start_minute_cpu_seconds"], 0.01)
            started = f"{ratio:.2f}"
        lines.append(
            f"| {size:,} | {correction_ratio:.2f} | {rss:.2f} | {cpu:.2f} | {started} | "
            f"{ours['aftermath']['max']:.3f} s |"
        )
    return lines


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_watch", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="WebApp counts")
    parser.add_argument("--edits", type=int, default=20, help="quiet hand edits per size")
    parser.add_argument("--tools", default=",".join(TOOLS), help="driftctl, seed, or both")
    parser.add_argument(
        "--seed-source", type=Path, default=SEED_SOURCE, help="its Cargo.toml's folder"
    )
    parser.add_argument("--no-record", action="store_true", help="print only, write no file")
    parser.add_argument("--name", help="results file name (default: the date)")
    options = parser.parse_args(argv)
    options.sizes = [int(size) for size in options.sizes.split(",")]
    options.tools = [tool for tool in options.tools.split(",") if tool]
    return options


def main(argv: Sequence[str] | None = None) -> None:
    options = parse(sys.argv[1:] if argv is None else argv)
    started, load_before = time.monotonic(), os.getloadavg()
    notes: list[str] = []
    seed = seed_binary(options.seed_source) if "seed" in options.tools else None
    tools = list(options.tools)
    if "seed" in tools and seed is None:
        tools.remove("seed")
        notes.append(f"the seed operator left out: no binary at {SEED_BINARY} and no cargo")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-watch-", dir="/tmp") as folder:
        for count in options.sizes:
            for tool in tools:
                work = Path(folder) / f"{tool}-{count}"
                work.mkdir()
                rows.append(measure(tool, count, options, work, seed if tool == "seed" else None))
                record(rows, notes, options, started, load_before)
    print(markdown(result(rows, notes, started, load_before)))


def result(
    rows: list[dict[str, Any]], notes: list[str], started: float, load_before: tuple[float, ...]
) -> dict[str, Any]:
    return {
        "date": datetime.date.today().isoformat(),
        "machine": report.machine(),
        "versions": report.versions(),
        "commit": report.commit(),
        "elapsed_minutes": round((time.monotonic() - started) / 60, 1),
        "load_average": {"start": list(load_before), "end": list(os.getloadavg())},
        "notes": notes,
        "rows": rows,
    }


def record(
    rows: list[dict[str, Any]],
    notes: list[str],
    options: argparse.Namespace,
    started: float,
    load_before: tuple[float, ...],
) -> None:
    """Write what was measured so far (after each tool and size)."""
    if options.no_record:
        return
    data = result(rows, notes, started, load_before)
    name = options.name or data["date"]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
    (RESULTS / f"{name}.md").write_text(markdown(data))
    print(f"# written to {RESULTS.relative_to(report.ROOT)}/{name}.json and .md", file=sys.stderr)


if __name__ == "__main__":
    main()
