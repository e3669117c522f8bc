"""The Performance table of the documentation, made from the latest bench_cluster results.

`python -m benchmarks.performance_table` rewrites the part of docs/development/benchmarks.md
between the two marker lines from the newest benchmarks/results/*.json; tests/tooling/test_
readme_shows_the_latest_benchmark.py fails when the page and that file disagree. Nobody
types those figures.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from benchmarks import cluster_report as report

PAGE = report.ROOT / "docs" / "development" / "benchmarks.md"
RESULTS = report.ROOT / "benchmarks" / "results"
BEGIN = "<!-- performance table: made by `python -m benchmarks.performance_table` -->"
END = "<!-- end of performance table -->"


def latest() -> Path:
    """The newest results file (they are named by date)."""
    found = sorted(RESULTS.glob("*.json"))
    if not found:
        raise SystemExit("no benchmarks/results/*.json: run python -m benchmarks.bench_cluster")
    return found[-1]


def section(data: dict[str, Any], source: str) -> str:
    m = data["machine"]
    lines = [
        BEGIN,
        "",
        f"Recorded {data['date']} on {m['cores']} cores ({m['cpu']}, {m['memory_gib']:g} GiB), "
        f"commit {data['commit']}, in `{source}` (load average "
        f"{data['load_average']['start'][0]:.1f} at the start, "
        f"{data['load_average']['end'][0]:.1f} at the end; the control plane runs on the same "
        "cores). Ratios are driftctl/kubectl of runs made minutes apart, median (range).",
        "",
        *report.ratio_table(data),
        "",
        *report.target_table(data),
        "",
        END,
    ]
    return "\n".join(lines)


def rendered(page: str, data: dict[str, Any], source: str) -> str:
    """`page` with its Performance section made from `data`."""
    head, found, rest = page.partition(BEGIN)
    if not found or END not in rest:
        raise SystemExit(f"{PAGE.name} has no section between {BEGIN!r} and {END!r}")
    return head + section(data, source) + rest.split(END, 1)[1]


def main() -> None:
    path = latest()
    data = json.loads(path.read_text())
    PAGE.write_text(rendered(PAGE.read_text(), data, str(path.relative_to(report.ROOT))))
    print(f"{PAGE.relative_to(report.ROOT)}: Performance made from {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
