"""Benchmark (not a test): `validate` of 10,000 WebApps across 1,000 files in a real repository.

Times the whole command path (git, loading, validation) in the working-tree mode and in the
--ref mode (read from Git objects). Run: `.venv/bin/python -m benchmarks.bench_validate`.
`--files 10000 --per-file 1 --keep DIR` makes the repository (10,000 files of one WebApp
each, packed) in DIR and times nothing: for timing `driftctl validate --repo DIR/repo --ref
main --path apps` as a whole process (docs/development/benchmarks.md, the Git shell).
"""

from __future__ import annotations

import argparse
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


def make_repository(root: Path, files: int = FILES, per_file: int = PER_FILE) -> Repo:
    repo = Repo(root / "repo")
    texts = {
        f"apps/team-{index // 100:02d}/file-{index:05d}.yaml": "---\n".join(
            webapp(f"app-{index:05d}-{item}", replicas=item) for item in range(per_file)
        )
        for index in range(files)
    }
    repo.write(texts).commit(f"{files * per_file} WebApps")
    return repo


def timed(request: Source) -> tuple[float, int]:
    start = time.perf_counter()
    report = pipeline.validate_source(request, os.environ)
    elapsed = time.perf_counter() - start
    assert report.valid, report.problems[:3]
    return elapsed, len(report.webapps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--per-file", type=int, default=PER_FILE)
    parser.add_argument("--keep", type=Path, help="make the repository in this folder, and stop")
    options = parser.parse_args()
    if options.keep is not None:
        repo = make_repository(options.keep, options.files, options.per_file)
        while (repo.path / ".git" / "gc.pid").exists():  # the commit's own gc, detached
            time.sleep(0.5)
        repo.git("gc", "--quiet")  # packed, as a fetched repository is
        print(repo.path)
        return
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
