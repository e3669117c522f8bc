"""A process as /proc shows it: its open file descriptors and its child processes, for the
tests that hold what a Git read leaves behind (nothing)."""

from __future__ import annotations

import os
from pathlib import Path


def open_files(pid: int) -> int:
    """How many file descriptors the process holds open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def open_targets(pid: int) -> list[str]:
    """What each open file descriptor of the process is: a path, `pipe:[…]`, `socket:[…]`."""
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue  # closed while listed
    return sorted(targets)


def children(pid: int) -> int:
    """How many processes have `pid` as their parent (a helper left running, or unreaped)."""
    count = 0
    for other in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{other}/stat").read_text()
        except OSError:
            continue  # ended while listed
        if stat.rsplit(")", 1)[1].split()[1] == str(pid):
            count += 1
    return count
