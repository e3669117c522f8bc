"""Benchmark helper: runs one command from a small process and reports that command's own
wall time, CPU and peak RSS.

Linux keeps a process's peak RSS across exec(2): a tool started straight from the
benchmark (a Python process of some 90 MiB, its fleet and results in memory) reports at
least the benchmark's peak, whatever the tool used. Started from this helper instead
(Python without site, a few MiB), the tool's peak RSS is its own from that level up.

Run: `python -S benchmarks/spawn.py REPORT -- ARGV...`; the command's output goes where
this process's goes, and REPORT gets one JSON object: seconds, cpu_seconds, rss_kib, code.
Only the standard library, so that `-S` keeps this process small.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main(arguments: list[str]) -> int:
    if len(arguments) < 3 or arguments[1] != "--":
        print("usage: spawn.py REPORT -- ARGV...", file=sys.stderr)
        return 2
    report, argv = arguments[0], arguments[2:]
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as failed:  # the shell's way: say why, exit 127
            print(f"spawn.py: cannot run {argv[0]}: {failed.strerror}", file=sys.stderr)
        finally:
            os._exit(127)
    _pid, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - started
    with open(report, "w", encoding="utf-8") as out:
        json.dump(
            {
                "seconds": seconds,
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
                "rss_kib": usage.ru_maxrss,
                "code": os.waitstatus_to_exitcode(status),
            },
            out,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
