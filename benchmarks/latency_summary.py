"""driftctl/kubectl ratios with a round trip to the API server, beside those on loopback.

`python -m benchmarks.latency_summary` reads the newest loopback results
(benchmarks/results/<date>.json) and the newest result of each round trip
(benchmarks/results/latency/<date>-rtt<ms>ms.json, made by `bench_cluster --latency-ms`),
and writes benchmarks/results/latency/summary.md: per scenario and size both runs have, the
median driftctl/kubectl ratio at each round trip. Nobody types those figures.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from benchmarks import cluster_report as report

RESULTS = report.ROOT / "benchmarks" / "results"
LATENCY = RESULTS / "latency"
_RTT = re.compile(r"-rtt([0-9.]+)ms\.json$")


def newest_by_round_trip() -> dict[float, Path]:
    """The newest result file of each round trip: 0 for loopback."""
    found: dict[float, Path] = {}
    loopback = sorted(RESULTS.glob("*.json"))
    if loopback:
        found[0.0] = loopback[-1]
    for path in sorted(LATENCY.glob("*-rtt*ms.json")):
        match = _RTT.search(path.name)
        if match:
            found[float(match.group(1))] = path
    return dict(sorted(found.items()))


def summary(runs: dict[float, dict[str, Any]], sources: dict[float, Path]) -> str:
    ratios: dict[tuple[int, str], dict[float, str]] = {}
    for rtt, data in runs.items():
        for row in report.rows(data):
            ratios.setdefault((row.size, row.step), {})[rtt] = row.ratio.text(3)
    shared = {key: by for key, by in ratios.items() if len(by) == len(runs)}
    heads = ["loopback" if rtt == 0 else f"{rtt:g} ms round trip" for rtt in runs]
    lines = [
        "# driftctl/kubectl with a round trip to the API server",
        "",
        "Made by `python -m benchmarks.latency_summary` from "
        + ", ".join(f"`{path.relative_to(report.ROOT)}`" for path in sources.values())
        + ". Each ratio is driftctl's median seconds over kubectl's, of runs made minutes "
        "apart on one control plane (range over repetitions); the round trip is added to "
        "every exchange of both tools by a relay on loopback (benchmarks/latency.py). "
        "Load averages are in each file.",
        "",
        "| scenario | N | driftctl | kubectl | " + " | ".join(heads) + " |",
        "|---|---:|---|---|" + "---:|" * len(heads),
    ]
    for (size, step), by in sorted(
        shared.items(), key=lambda item: (item[0][0], report.STEPS.index(item[0][1]))
    ):
        scenario, ours, theirs = report.SCENARIOS[step]
        cells = " | ".join(by[rtt] for rtt in runs)
        lines.append(f"| {scenario} | {size:,} | `{ours}` | `{theirs}` | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    sources = newest_by_round_trip()
    runs = {rtt: json.loads(path.read_text()) for rtt, path in sources.items()}
    LATENCY.mkdir(parents=True, exist_ok=True)
    (LATENCY / "summary.md").write_text(summary(runs, sources))
    print(f"written {LATENCY.relative_to(report.ROOT)}/summary.md", file=sys.stderr)


if __name__ == "__main__":
    main()
