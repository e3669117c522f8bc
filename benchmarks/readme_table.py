"""The README's Performance section, made from the latest recorded bench_cluster results.

`python -m benchmarks.readme_table` rewrites the part of README.md between the two marker
lines from the newest benchmarks/results/*.json; tests/tooling/test_readme_shows_the_
latest_benchmark.py fails when the README and that file disagree. Nobody types those figures.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from benchmarks import cluster_report as report

README = report.ROOT / "README.md"
RESULTS = report.ROOT / "benchmarks" / "results"
BEGIN = "<!-- performance table: made by `python -m benchmarks.readme_table` -->"
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
        f"{data['load_average']['end'][0]:.1f} at the end: other engineers' tests share the "
        "machine). Ratios are driftctl/kubectl of runs made minutes apart, median (range).",
        "",
        *report.ratio_table(data),
        "",
        *report.target_table(data),
        "",
        END,
    ]
    return "\n".join(lines)


def rendered(readme: str, data: dict[str, Any], source: str) -> str:
    """`readme` with its Performance section made from `data`."""
    head, found, rest = readme.partition(BEGIN)
    if not found or END not in rest:
        raise SystemExit(f"README.md has no section between {BEGIN!r} and {END!r}")
    return head + section(data, source) + rest.split(END, 1)[1]


def main() -> None:
    path = latest()
    data = json.loads(path.read_text())
    README.write_text(rendered(README.read_text(), data, str(path.relative_to(report.ROOT))))
    print(f"README.md Performance section made from {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
