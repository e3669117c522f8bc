"""The benchmark reports a tool's own peak RSS and CPU, not its own process's: Linux keeps a
process's peak RSS across exec(2), so a tool started straight from a large benchmark process
reports at least that process's peak. Both are run here from a process holding 200 MiB."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks import bench_cluster

MIB = 1024 * 1024
TOOL = "x = bytearray(40 * 1024 * 1024)\nfor i in range(0, len(x), 4096): x[i] = 1"


def test_a_tool_started_from_the_spawner_reports_its_own_peak(tmp_path: Path) -> None:
    held = bytearray(200 * MIB)
    for at in range(0, len(held), 4096):
        held[at] = 1
    argv = [sys.executable, "-c", TOOL]

    straight = subprocess.Popen(argv)
    _pid, _status, usage = os.wait4(straight.pid, 0)
    spawned = bench_cluster.run_process(argv, tmp_path / "log", dict(os.environ))

    assert usage.ru_maxrss * 1024 > 200 * MIB, "the trap: the benchmark's peak, carried"
    assert 40 * MIB < spawned.rss_kib * 1024 < 100 * MIB, spawned
    assert spawned.code == 0
    assert spawned.cpu_seconds > 0
    del held
