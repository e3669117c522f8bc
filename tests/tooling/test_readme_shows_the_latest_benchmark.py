"""The Performance table of the documentation (docs/development/benchmarks.md) is the
latest recorded benchmark, figure for figure."""

from __future__ import annotations

import json

from benchmarks import cluster_report, performance_table


def test_the_performance_section_is_made_from_the_newest_results() -> None:
    path = performance_table.latest()
    page = performance_table.PAGE.read_text()
    data = json.loads(path.read_text())
    source = str(path.relative_to(cluster_report.ROOT))

    assert performance_table.rendered(page, data, source) == page, (
        f"{performance_table.PAGE} differs from the latest benchmark: "
        "run python -m benchmarks.performance_table"
    )
