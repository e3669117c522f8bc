"""The README's Performance table is the latest recorded benchmark, figure for figure."""

from __future__ import annotations

import json

from benchmarks import cluster_report, readme_table


def test_the_readme_performance_section_is_made_from_the_newest_results() -> None:
    path = readme_table.latest()
    readme = readme_table.README.read_text()
    data = json.loads(path.read_text())
    source = str(path.relative_to(cluster_report.ROOT))

    assert readme_table.rendered(readme, data, source) == readme, (
        "README.md differs from the latest benchmark: run python -m benchmarks.readme_table"
    )
