"""Background processes of a control plane or node: started with a log, stopped by pid.

Each process runs in a session of its own, so a stop signals its whole process group.
A pid is only ever signalled after checking that it is still one of ours (its command
line names the state folder), never by a process name.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

STOP_TIMEOUT = 15.0


def spawn(
    name: str, argv: list[str], folder: Path, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start `argv` in the background, its output appended to `folder/<name>.log`."""
    log = (folder / f"{name}.log").open("ab")
    return subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=None if env is None else {**os.environ, **env},
    )


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def command_line(pid: int) -> list[str]:
    """The argv of a running process, [] when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")[:-1]


def started_for(pid: int, folder: Path) -> bool:
    """Guard against a recycled pid: the process must be one started for this folder."""
    inside = f"{folder}/"
    return any(inside in argument for argument in command_line(pid))


def terminate(pid: int) -> None:
    """SIGTERM the process group of `pid`, SIGKILL it after STOP_TIMEOUT, reap if ours."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT
    while alive(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.05)
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    _reap(pid)


def kill_now(pids: list[int]) -> None:
    """SIGKILL each pid and wait (briefly) until all are gone."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + STOP_TIMEOUT
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        for pid in pids:
            _reap(pid)
        time.sleep(0.05)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # not our child: init reaps it
        os.waitpid(pid, os.WNOHANG)


def all_pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def descendants(roots: list[int]) -> list[int]:
    """Every process below `roots` (children, their children, ...), roots excluded."""
    children: dict[int, list[int]] = {}
    for pid in all_pids():
        parent = parent_of(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found: list[int] = []
    pending = list(roots)
    while pending:
        below = children.get(pending.pop(), [])
        found.extend(below)
        pending.extend(below)
    return found
