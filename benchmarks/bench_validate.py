"""Benchmark (not a test): `validate` of 10,000 WebApps across 1,000 files in a real repository.

Times the whole command path (git, loading, validation) in the working-tree mode and in the
--ref mode (read from Git objects). Run: `.venv/bin/python -m benchmarks.bench_validate`.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from driftctl.pipeline import offline as pipeline
from driftctl.settings import Source
from tests.support.builders import webapp
from tests.support.gitrepos import Repo

FILES = 1_000
PER_FILE = 10
ROUNDS = 3


def make_repository(root: Path) -> Repo:
    repo = Repo(root / "repo")
    files = {
        f"apps/team-{index // 100:02d}/file-{index:04d}.yaml": "---\n".join(
            webapp(f"app-{index:04d}-{item}", replicas=item) for item in range(PER_FILE)
        )
        for index in range(FILES)
    }
    repo.write(files).commit("10,000 WebApps")
    return repo


def timed(request: Source) -> tuple[float, int]:
    start = time.perf_counter()
    report = pipeline.validate_source(request, os.environ)
    elapsed = time.perf_counter() - start
    assert report.valid, report.problems[:3]
    return elapsed, len(report.webapps)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        repo = make_repository(Path(folder))
        for mode, ref in (("working tree", None), ("--ref main", "main")):
            request = Source(repo=str(repo.path), ref=ref, path="apps")
            runs = [timed(request) for _ in range(ROUNDS)]
            count = runs[0][1]
            seconds = [elapsed for elapsed, _count in runs]
            print(
                f"{mode:>12}: {count} WebApps in {FILES} files: "
                f"median {statistics.median(seconds):.2f} s, best {min(seconds):.2f} s"
            )


if __name__ == "__main__":
    main()
