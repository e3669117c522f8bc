"""What bench_cluster measured, and how it reads: medians, spreads, ratios, targets.

Reads the results as data (the JSON bench_cluster writes) and turns them into Markdown;
the documentation's Performance table (docs/development/benchmarks.md) is made from the same
summary (benchmarks/performance_table.py).
The only facts it looks up itself are those of the machine, versions and commit, so a
recorded result says where it ran.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STEPS = (
    "cold apply",
    "no-drift plan",
    "no-drift apply",
    "drift plan",
    "drift apply",
    "prune apply",
)
PRUNE = "kubectl apply --server-side --prune --applyset=..."
SCENARIOS = {  # step: (scenario, what driftctl runs, what kubectl runs)
    "no-drift plan": ("no drift", "plan", "kubectl diff --server-side"),
    "no-drift apply": ("no drift", "apply", "kubectl apply --server-side"),
    "drift plan": ("1% drift", "plan", "kubectl diff --server-side"),
    "drift apply": ("1% drift", "apply", "kubectl apply --server-side"),
    "cold apply": ("all new", "apply", "kubectl apply --server-side"),
    "prune apply": ("1% removed", "apply (prune)", PRUNE),
}
# The issues' targets: driftctl/kubectl medians of one run, and absolute bounds.
RATIO_TARGETS = {
    ("no-drift plan", 1000): 0.08,
    ("no-drift plan", 10000): 0.035,
    ("drift apply", 1000): 0.20,
    ("drift apply", 10000): 0.08,
    ("cold apply", 1000): 0.5,
    ("cold apply", 10000): 0.7,
    ("prune apply", 1000): 0.5,
    ("prune apply", 10000): 0.5,
}
PLAN_SECONDS = {1000: 2.0, 10000: 10.0}
RSS_MB = {1000: 120.0, 10000: 250.0}
FLOOR = "paged LIST"  # bench_cluster's floor of a no-drift plan (benchmarks/bare_list.py)
FLOOR_RATIO = {10000: 1.3}  # no-drift plan wall / the floor's
PLAN_CPU_SECONDS = {10000: 4.0}  # driftctl's own CPU in a no-drift plan
APPLY_OVER_PLAN = {10000: 1.1}  # no-drift apply / no-drift plan, driftctl's wall
STEP_RSS_MIB = {  # peak RSS of driftctl at 10,000
    "no-drift plan": 150.0,
    "drift plan": 150.0,
    "no-drift apply": 150.0,
    "cold apply": 180.0,
}


@dataclass(frozen=True)
class Sample:
    """One step of one tool: what it cost, as measured outside the tool."""

    size: int
    step: str
    tool: str
    repetition: int
    seconds: float  # wall clock of the process
    cpu_seconds: float  # its user + system time
    rss_kib: int  # its peak RSS
    requests: int  # what the API server dispatched for the ServiceAccount: the tool alone
    by_verb: dict[str, int]  # "<resource> <verb>[ dry-run]": count (every client)
    server_cpu_seconds: float  # kube-apiserver + etcd CPU meanwhile
    load: float  # 1-minute load average at the start
    # LIST requests the API server sent etcd for WebApps and Deployments meanwhile (its
    # watch cache could not answer them); None in records made before it was counted.
    etcd_lists: int | None = None


@dataclass(frozen=True)
class Spread:
    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Iterable[float]) -> Spread:
        items = sorted(values)
        return cls(statistics.median(items), items[0], items[-1])

    def text(self, digits: int = 2) -> str:
        if self.low == self.high:
            return f"{self.median:.{digits}f}"
        return f"{self.median:.{digits}f} ({self.low:.{digits}f} to {self.high:.{digits}f})"


@dataclass(frozen=True)
class Row:
    """One step at one size: both tools' figures and the ratio of paired runs."""

    size: int
    step: str
    runs: int
    seconds: tuple[Spread, Spread]  # driftctl, kubectl
    ratio: Spread  # driftctl/kubectl per repetition
    cpu: tuple[float, float]
    server_cpu: tuple[float, float]
    rss_mib: tuple[float, float]  # maxima
    requests: tuple[float, float]
    by_verb: tuple[dict[str, int], dict[str, int]]  # first repetition
    load: float


def samples(data: dict[str, Any]) -> list[Sample]:
    return [Sample(**sample) for sample in data["samples"]]


def _median(items: list[Sample], value: Callable[[Sample], float]) -> float:
    return statistics.median(value(item) for item in items)


def rows(data: dict[str, Any]) -> list[Row]:
    """Every (size, step) both tools ran, in size then step order."""
    every = samples(data)
    out = []
    for size in sorted({s.size for s in every}):
        for step in STEPS:
            ours = [s for s in every if (s.size, s.step, s.tool) == (size, step, "driftctl")]
            theirs = {
                s.repetition: s
                for s in every
                if (s.size, s.step, s.tool) == (size, step, "kubectl")
            }
            paired = [s for s in ours if s.repetition in theirs]
            if not paired:
                continue
            pairs = [(s, theirs[s.repetition]) for s in paired]
            kubectl = [k for _, k in pairs]
            out.append(
                Row(
                    size,
                    step,
                    len(pairs),
                    (Spread.of(s.seconds for s in paired), Spread.of(k.seconds for k in kubectl)),
                    Spread.of(d.seconds / k.seconds for d, k in pairs),
                    (
                        _median(paired, lambda s: s.cpu_seconds),
                        _median(kubectl, lambda s: s.cpu_seconds),
                    ),
                    (
                        _median(paired, lambda s: s.server_cpu_seconds),
                        _median(kubectl, lambda s: s.server_cpu_seconds),
                    ),
                    (max(s.rss_kib for s in paired) / 1024, max(k.rss_kib for k in kubectl) / 1024),
                    (_median(paired, lambda s: s.requests), _median(kubectl, lambda s: s.requests)),
                    (pairs[0][0].by_verb, pairs[0][1].by_verb),
                    _median([*paired, *kubectl], lambda s: s.load),
                )
            )  # fmt: skip
    return out


@dataclass(frozen=True)
class Target:
    """One line of the issue's targets: what, at which size, the figure, met or not."""

    what: str
    size: int
    bound: str
    figure: str
    met: bool


def targets(data: dict[str, Any]) -> list[Target]:
    found = {(row.step, row.size): row for row in rows(data)}
    out = []
    for (step, size), bound in RATIO_TARGETS.items():
        if (step, size) in found:
            ratio = found[step, size].ratio.median
            scenario, ours, theirs = SCENARIOS[step]
            what = f"{scenario}: {ours} / {theirs}"
            out.append(Target(what, size, f"≤ {bound:g}", f"{ratio:.3f}", ratio <= bound))
    for size, bound in PLAN_SECONDS.items():
        if ("no-drift plan", size) in found:
            seconds = found["no-drift plan", size].seconds[0].median
            figure = f"{seconds:.2f} s"
            out.append(
                Target("no-drift plan, absolute", size, f"≤ {bound:g} s", figure, seconds <= bound)
            )
    for size, bound in RSS_MB.items():
        at_size = [row for row in found.values() if row.size == size]
        if at_size:
            peak = max(row.rss_mib[0] for row in at_size) * 1.048576  # MiB -> MB
            figure = f"{peak:.0f} MB"
            out.append(
                Target("peak RSS of driftctl", size, f"≤ {bound:g} MB", figure, peak <= bound)
            )
    return out


def floor_targets(data: dict[str, Any]) -> list[Target]:
    """The floor, CPU, apply-over-plan and per-step memory bounds (issue 33's)."""
    found = {(row.step, row.size): row for row in rows(data)}
    floors = {row.size: row for row in floor_rows(data)}
    out = []
    for size, bound in FLOOR_RATIO.items():
        if size in floors:
            ratio = floors[size].ratio.median
            what = "no-drift plan / a bare paged LIST of the same objects"
            out.append(Target(what, size, f"≤ {bound:g}", f"{ratio:.2f}", ratio <= bound))
    for size, bound in PLAN_CPU_SECONDS.items():
        if ("no-drift plan", size) in found:
            cpu = found["no-drift plan", size].cpu[0]
            what = "no-drift plan, driftctl CPU seconds"
            out.append(Target(what, size, f"≤ {bound:g} s", f"{cpu:.2f} s", cpu <= bound))
    for size, bound in APPLY_OVER_PLAN.items():
        if ("no-drift plan", size) in found and ("no-drift apply", size) in found:
            plan = found["no-drift plan", size].seconds[0].median
            ratio = found["no-drift apply", size].seconds[0].median / plan
            what = "no-drift apply / no-drift plan (driftctl)"
            out.append(Target(what, size, f"≤ {bound:g}", f"{ratio:.2f}", ratio <= bound))
    for step, bound in STEP_RSS_MIB.items():
        if (step, 10000) in found:
            peak = found[step, 10000].rss_mib[0]
            what = f"peak RSS of driftctl, {step}"
            out.append(Target(what, 10000, f"≤ {bound:g} MiB", f"{peak:.0f} MiB", peak <= bound))
    return out


@dataclass(frozen=True)
class FloorRow:
    """driftctl's no-drift plan beside the bare paged LIST of the same objects."""

    size: int
    runs: int
    seconds: tuple[Spread, Spread]  # driftctl, the floor
    ratio: Spread
    cpu: tuple[float, float]
    server_cpu: tuple[float, float]


def floor_rows(data: dict[str, Any]) -> list[FloorRow]:
    every = samples(data)
    out = []
    for size in sorted({s.size for s in every}):
        plans = {
            s.repetition: s
            for s in every
            if (s.size, s.step, s.tool) == (size, "no-drift plan", "driftctl")
        }
        pairs = [
            (plans[s.repetition], s)
            for s in every
            if (s.size, s.tool) == (size, FLOOR) and s.repetition in plans
        ]
        if not pairs:
            continue
        ours, floor = [p for p, _ in pairs], [f for _, f in pairs]
        out.append(
            FloorRow(
                size,
                len(pairs),
                (Spread.of(s.seconds for s in ours), Spread.of(s.seconds for s in floor)),
                Spread.of(p.seconds / f.seconds for p, f in pairs),
                (_median(ours, lambda s: s.cpu_seconds), _median(floor, lambda s: s.cpu_seconds)),
                (
                    _median(ours, lambda s: s.server_cpu_seconds),
                    _median(floor, lambda s: s.server_cpu_seconds),
                ),
            )
        )
    return out


def floor_table(data: dict[str, Any]) -> list[str]:
    lines = [
        "| N | s no-drift plan | s paged LIST | ratio (range) | CPU s driftctl | CPU s LIST "
        "| server CPU s driftctl | server CPU s LIST |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in floor_rows(data):
        lines.append(
            f"| {row.size:,} | {row.seconds[0].text()} | {row.seconds[1].text()} "
            f"| **{row.ratio.text()}** | {row.cpu[0]:.2f} | {row.cpu[1]:.2f} "
            f"| {row.server_cpu[0]:.1f} | {row.server_cpu[1]:.1f} |"
        )
    return lines


def target_table(data: dict[str, Any]) -> list[str]:
    lines = ["| target | N | bound | measured | |", "|---|---:|---|---:|---|"]
    for target in [*targets(data), *floor_targets(data)]:
        verdict = "met" if target.met else "**missed**"
        lines.append(
            f"| {target.what} | {target.size:,} | {target.bound} | {target.figure} | {verdict} |"
        )
    return lines


def ratio_table(data: dict[str, Any]) -> list[str]:
    """Per scenario and size: both tools' median seconds and the median ratio (spread)."""
    lines = [
        "| scenario | N | driftctl | kubectl | s driftctl | s kubectl | ratio (range) | runs |",
        "|---|---:|---|---|---:|---:|---:|---:|",
    ]
    for row in rows(data):
        scenario, ours, theirs = SCENARIOS[row.step]
        lines.append(
            f"| {scenario} | {row.size:,} | `{ours}` | `{theirs}` | {row.seconds[0].median:.2f} "
            f"| {row.seconds[1].median:.2f} | **{row.ratio.text(3)}** | {row.runs} |"
        )
    return lines


def ratio(mine: float, theirs: float) -> str:
    return f"{mine / theirs:.2f}" if theirs else "n/a"


def cost_table(data: dict[str, Any]) -> list[str]:
    lines = [
        "| N | step | s driftctl | s kubectl | CPU s driftctl | CPU s kubectl | server CPU s "
        "driftctl | server CPU s kubectl | MiB driftctl | MiB kubectl | requests driftctl "
        "| requests kubectl | load |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows(data):
        lines.append(
            f"| {row.size:,} | {row.step} | {row.seconds[0].text()} | {row.seconds[1].text()} "
            f"| {row.cpu[0]:.2f} | {row.cpu[1]:.2f} | {row.server_cpu[0]:.1f} "
            f"| {row.server_cpu[1]:.1f} | {row.rss_mib[0]:.0f} | {row.rss_mib[1]:.0f} "
            f"| {row.requests[0]:.0f} | {row.requests[1]:.0f} | {row.load:.1f} |"
        )
    return lines


def verbs_text(counted: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counted.items())) or "none"


def verb_table(data: dict[str, Any]) -> list[str]:
    lines = ["| N | step | driftctl | kubectl |", "|---:|---|---|---|"]
    for row in rows(data):
        lines.append(
            f"| {row.size:,} | {row.step} | {verbs_text(row.by_verb[0])} "
            f"| {verbs_text(row.by_verb[1])} |"
        )
    return lines


def etcd_table(data: dict[str, Any]) -> list[str]:
    """LIST requests the API server sent etcd during each step, per repetition."""
    every = samples(data)
    if all(sample.etcd_lists is None for sample in every):
        return ["Not counted in this record."]
    lines = ["| N | step | driftctl | kubectl | paged LIST |", "|---:|---|---|---|---|"]
    for size, step in dict.fromkeys((s.size, s.step) for s in every):
        counted = [
            ", ".join(
                str(s.etcd_lists)
                for s in every
                if (s.size, s.step, s.tool) == (size, step, tool) and s.etcd_lists is not None
            )
            or "-"
            for tool in ("driftctl", "kubectl", FLOOR)
        ]
        lines.append(f"| {size:,} | {step} | {' | '.join(counted)} |")
    return lines


def cpu_model() -> str:
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def machine() -> dict[str, Any]:
    with open("/proc/meminfo") as meminfo:
        kib = int(meminfo.readline().split()[1])  # MemTotal comes first
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": round(kib / 2**20, 1),
        "kernel": platform.release(),
    }


def versions() -> dict[str, str]:
    return {"python": platform.python_version(), "driftctl": metadata.version("kube-driftctl")}


def commit() -> str:
    """The commit measured; `-dirty` when driftctl's code or the harness differ from it
    (a changed README or test does not change a figure)."""
    described = _git("describe", "--always") or "unknown"
    changed = _git("status", "--porcelain", "--", "driftctl", "benchmarks/bench_cluster.py",
                   "benchmarks/fleet.py")  # fmt: skip
    return described + ("-dirty" if changed else "")


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip()


METHOD = """\
- One local control plane (etcd, kube-apiserver, kube-controller-manager: garbage collector
  and namespace controllers, no deployment controller, no kubelet) on the same 2 cores as
  the tools, which other engineers' test suites share (the load column). Both tools run as
  the same ServiceAccount bound to cluster-admin.
- The fleet: N WebApps over 10 namespaces and 100 files (image nginx:1.27, 2 replicas).
  driftctl reads them from Git with `--ref main`; kubectl applies what driftctl would build,
  rendered to 100 files, without the Deployments' ownerReference (a WebApp's uid is unknown
  before it exists) and without the cleanup finalizer (kubectl runs no cleanup), with
  `--server-side --force-conflicts` and a warm discovery cache.
- Steps, each one process, in each tool's own 10 namespaces, the two tools interleaved step
  by step (the order alternates between repetitions), each step once the API server has been idle
  for two seconds (no client sent a request about the counted resources, it served no
  other request, and it and etcd used under 0.1 of a core): all new (cold apply); no drift (plan
  or `kubectl diff`, then apply); 1% of the Deployments scaled to 5 and set to nginx:1.28 by
  admin (not counted), then plan or `kubectl diff`, then apply; 1% of the WebApps removed
  from Git (or from the files), then apply, which prunes.
- kubectl's prune: `KUBECTL_APPLYSET=true kubectl apply --server-side --prune
  --applyset=applysets.bench.example.com/<name>`. `--applyset` is alpha in kubectl v1.37
  (unknown flag without the variable). A Secret or ConfigMap parent is namespaced and makes
  kubectl refuse objects of other namespaces, so the parent is a cluster-scoped custom
  resource, made beforehand with the id label, tooling and contains-group-kinds annotations
  kubectl requires (it does not create custom parents). Before the timed step, one untimed
  `apply --prune --applyset` of the whole fleet makes it the ApplySet (kubectl labels every
  object `applyset.kubernetes.io/part-of`). The timed step then: GET and server-side apply
  the parent, server-side apply every object in the files, LIST every group-kind in every
  namespace the parent names by that label, DELETE each listed object not in the files,
  apply the parent again. driftctl's prune deletes the WebApp, runs its cleanup (deletes
  the Deployment, waits until it is gone, removes the finalizer) and records one Event.
- The floor of a no-drift plan (benchmarks/bare_list.py), timed right after driftctl's
  no-drift plan: the same LIST pages of the same WebApps and Deployments (driftctl's label
  selector and page size, the two kinds at once, as driftctl reads them), each page's bytes
  read and not decoded.
- driftctl does more than kubectl per apply: a run lock (Lease), each changed WebApp's
  status, Events (at most one per WebApp, at most --max-events per run); its plan is exact
  (server-side dry-runs), as `kubectl diff` is.
- LISTs sent to etcd: deltas of `etcd_request_duration_seconds_count` (operations list*) for
  WebApps and Deployments, any client: the pages the API server's watch cache could not
  answer. A paged LIST's later pages go to etcd once a compaction (every 5 minutes) passed
  with no change of the kind (benchmarks/list_after_compaction.py), and cost the server more
  than the cache's answers: where the compactions fall moves a step's figures.
- Seconds: wall clock of the process, median (range); ratio: driftctl/kubectl of the two
  runs of one repetition, median (range). CPU: the process's user + system time; server
  CPU: kube-apiserver + etcd during the step (both tools' steps run alone). MiB: peak RSS
  (`ru_maxrss`), the maximum. Requests: what the API server's flow control dispatched for
  the ServiceAccount (exactly the tool's requests), median. By verb: deltas of
  `apiserver_request_total` (any client), first repetition.
"""


def _runs(data: dict[str, Any]) -> list[str]:
    """One line per invocation, when the file was made by more than one (--append)."""
    runs = data.get("runs") or []
    if len(runs) < 2:
        return []
    return [
        f"- Invocation {n}: sizes {run['sizes']}, repetitions {run['repetitions']}, commit "
        f"{run['commit']}, {run['elapsed_minutes']} min{_note(run)}."
        for n, run in enumerate(runs, 1)
    ]


def _note(run: dict[str, Any]) -> str:
    return f"; {run['note']}" if run.get("note") else ""


def _latency_text(settings: dict[str, Any]) -> str:
    added = settings.get("round trip added, ms") or 0
    if not added:
        return ""
    return (
        f"every exchange of both tools through a relay adding a {added:g} ms round trip "
        "(benchmarks/latency.py); "
    )


def markdown(data: dict[str, Any]) -> str:
    m, settings = data["machine"], data["settings"]
    load = data["load_average"]
    version_text = "; ".join(f"{name} {value}" for name, value in data["versions"].items())
    lines = [
        f"# driftctl and kubectl on one control plane ({data['date']})",
        "",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']:g} GiB, Linux {m['kernel']}; "
        f"{version_text}; commit {data['commit']}.",
        f"- Sizes {settings['sizes']}, repetitions {settings['repetitions']}; driftctl "
        f"--concurrency {settings['driftctl concurrency']}; "
        f"{_latency_text(settings)}whole run "
        f"{data['elapsed_minutes']} min; load average (1, 5, 15 min) {load['start']} at the "
        f"start, {load['end']} at the end.",
        *_runs(data),
        "",
        "## Targets",
        "",
        *target_table(data),
        "",
        "## Scenarios: seconds (median) and driftctl/kubectl",
        "",
        *ratio_table(data),
        "",
        "## Costs",
        "",
        *cost_table(data),
        "",
        "## A no-drift plan beside its floor: the same LIST pages, read and not decoded",
        "",
        *floor_table(data),
        "",
        "## LIST requests the API server sent etcd (its watch cache could not answer them)",
        "",
        *etcd_table(data),
        "",
        "## Requests by verb (first repetition)",
        "",
        *verb_table(data),
        "",
        "## Method",
        "",
        METHOD,
    ]
    return "\n".join(lines)
