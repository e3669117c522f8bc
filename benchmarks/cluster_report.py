"""What bench_cluster measured, and how it reads: Markdown tables of numbers and ratios.

Turns samples into text and nothing else; the only facts it looks up itself are those of
the machine and the commit the numbers came from, so a recorded result says where it ran.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEPS = ("cold apply", "no-drift apply", "no-drift plan", "drift plan", "drift apply")
KUBECTL_STEP = {
    "cold apply": "apply --server-side",
    "no-drift apply": "apply --server-side",
    "no-drift plan": "diff --server-side",
    "drift plan": "diff --server-side",
    "drift apply": "apply --server-side",
}


@dataclass(frozen=True)
class Sample:
    """One step of one tool: wall clock, peak RSS, and the requests the API server served."""

    seconds: float
    cpu_seconds: float  # user + system time of the process
    rss_kib: int
    requests: int
    by_kind: Counter[str]  # "<resource> <verb>[ dry-run]": count, every client


Results = dict[tuple[int, str, str], list[Sample]]  # (N, step, tool) -> one per repetition


@dataclass(frozen=True)
class Setting:
    """How the run was made, beyond the machine."""

    kubectl_version: str
    repeat: int
    concurrency: int
    elapsed: float
    load: tuple[float, float]  # 1-minute load average at the start and at the end


def ratio(mine: float, theirs: float) -> str:
    return f"{mine / theirs:.2f}" if theirs else "n/a"


def sizes(results: Results) -> list[int]:
    return sorted({count for count, _step, _tool in results})


def median(samples: Iterable[Sample], value: Callable[[Sample], float]) -> float:
    return statistics.median(value(sample) for sample in samples)


def time_rows(results: Results) -> list[str]:
    rows = []
    for count in sizes(results):
        for step in STEPS:
            ours, theirs = results[count, step, "driftctl"], results[count, step, "kubectl"]
            mine, other = (median(s, lambda x: x.seconds) for s in (ours, theirs))
            cpu = [median(s, lambda x: x.cpu_seconds) for s in (ours, theirs)]
            rows.append(
                f"| {count} | {step} | {mine:.2f} ({min(x.seconds for x in ours):.2f}) "
                f"| {other:.2f} ({min(x.seconds for x in theirs):.2f}) "
                f"| **{ratio(mine, other)}** | {cpu[0]:.2f} | {cpu[1]:.2f} | **{ratio(*cpu)}** |"
            )
    return rows


def cost_rows(results: Results) -> list[str]:
    rows = []
    for count in sizes(results):
        for step in STEPS:
            ours, theirs = results[count, step, "driftctl"], results[count, step, "kubectl"]
            rss = [max(x.rss_kib for x in s) / 1024 for s in (ours, theirs)]
            calls = [median(s, lambda x: x.requests) for s in (ours, theirs)]
            rows.append(
                f"| {count} | {step} | {rss[0]:.0f} | {rss[1]:.0f} | **{ratio(*rss)}** "
                f"| {calls[0]:.0f} | {calls[1]:.0f} | **{ratio(*calls)}** |"
            )
    return rows


def kinds_text(counted: Counter[str]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counted.items())) or "none"


def kind_rows(results: Results) -> list[str]:
    return [
        f"| {count} | {step} | {kinds_text(results[count, step, 'driftctl'][0].by_kind)} "
        f"| {kinds_text(results[count, step, 'kubectl'][0].by_kind)} |"
        for count in sizes(results)
        for step in STEPS
    ]


def cpu_model() -> str:
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def memory_gib() -> float:
    with open("/proc/meminfo") as meminfo:
        kib = int(meminfo.readline().split()[1])  # MemTotal comes first
    return kib / 2**20


def commit() -> str:
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def machine(setting: Setting) -> list[str]:
    return [
        f"- Machine: {cpu_model()}, {os.cpu_count()} cores, {memory_gib():.0f} GiB, "
        f"Linux {platform.release()}; Python {platform.python_version()}; "
        f"kubectl and control plane {setting.kubectl_version}; driftctl at {commit()}.",
        f"- {setting.repeat} repetition(s) of each step; driftctl --concurrency "
        f"{setting.concurrency}; whole run {setting.elapsed / 60:.1f} min; load average "
        f"{setting.load[0]:.1f} at the start, {setting.load[1]:.1f} at the end (other work on "
        "the machine shows here).",
    ]


METHOD = """\
- One local control plane (etcd, kube-apiserver, kube-controller-manager: garbage collector
  and namespace controllers, no deployment controller, no kubelet), on the same machine
  as the tools. Both tools run as the same ServiceAccount bound to cluster-admin.
- Git: one file per WebApp (`apps/app-NNNN.yaml`, image nginx:1.27, 2 replicas), all in one
  namespace; driftctl reads it with `--ref main`.
- kubectl applies what driftctl would build (`webapp_manifest`, `build_deployment`), rendered
  to one file per WebApp (the WebApp, then its Deployment) without the Deployment's
  ownerReference (a WebApp's uid is unknown before it exists). kubectl runs with
  `--server-side --force-conflicts --field-manager=kubectl-bench` and a warm discovery cache.
- Steps, each a fresh process, in a fresh namespace per tool and repetition: cold apply;
  apply again; plan (`kubectl diff`); then `kubectl scale` (as admin, not counted) of every
  10th Deployment to 5 replicas; plan (`kubectl diff`) and apply again. Clean-up between
  rounds: Deployments deleted, finalizers released, namespace deleted and gone; each round
  starts once no client has sent a request about WebApps or Deployments for a second.
- driftctl does more than kubectl per apply: a run lock (Lease), the WebApp status, Events;
  its plan is exact (a server-side dry-run per candidate), as `kubectl diff` is.
- Time: wall clock of the process, median (min); CPU: its user + system time, median.
  Peak RSS: `ru_maxrss` of that process (wait4), the maximum over repetitions. Requests:
  what the API server's flow control dispatched for the ServiceAccount (exactly the tool's
  requests), median. By kind: deltas of `apiserver_request_total` for WebApps, Deployments
  and Events (any client, first run).
- Ratios are driftctl / kubectl: below 1, driftctl is faster, smaller or sends fewer requests.
"""


def markdown(results: Results, setting: Setting) -> str:
    today = datetime.date.today().isoformat()
    lines = [
        f"# driftctl and kubectl on one control plane ({today})",
        "",
        *machine(setting),
        "",
        "## Method",
        "",
        METHOD,
        "## Wall clock, seconds: median (min); CPU seconds of the tool's process: median",
        "",
        "| N | step | driftctl | kubectl | ratio | driftctl CPU | kubectl CPU | ratio |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
        *time_rows(results),
        "",
        "## Peak RSS (MiB) and API requests",
        "",
        "| N | step | driftctl MiB | kubectl MiB | ratio | driftctl requests "
        "| kubectl requests | ratio |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
        *cost_rows(results),
        "",
        "## Requests by kind (first repetition)",
        "",
        "| N | step | driftctl | kubectl |",
        "|---:|---|---|---|",
        *kind_rows(results),
        "",
        "kubectl steps: "
        + "; ".join(f"{step}: `kubectl {KUBECTL_STEP[step]}`" for step in STEPS)
        + ".",
        "",
    ]
    return "\n".join(lines)
