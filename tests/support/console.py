"""Console sessions written in the documentation, run as written: parsed from ```console
blocks (`$ COMMAND` lines, each followed by what it printed, and `(exit N)` when it exited
N), run in order in one bash (so `cd` carries over), each command's output and exit code
read back from the session's.

A `...` line of the page stands for any lines. Comparisons go through a page's own
normalization (what differs from run to run: commit SHAs, times, ages).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.controlplane import launcher
from tests.support.gitrepos import git_env

ELLIPSIS = "..."
_EXIT = re.compile(r"^\(exit (\d+)\)$")
_MARK = re.compile(r"^@@step (\d+) exit (\d+)$", re.M)


@dataclass(frozen=True)
class Step:
    command: str
    printed: tuple[str, ...]
    exit_code: int


def console_steps(markdown: str) -> list[Step]:
    """Every ```console block of a page, in order, as one session's steps."""
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"^```console\n(.*?)^```$", markdown, re.M | re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
    return [_step(command, printed) for command, printed in steps]


def _step(command: str, printed: list[str]) -> Step:
    code = 0
    printed = _trimmed(printed)
    if printed and (found := _EXIT.match(printed[-1])):
        code, printed = int(found[1]), _trimmed(printed[:-1])
    return Step(command, tuple(printed), code)


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def script(commands: Sequence[str]) -> str:
    """One bash script: each command as written, then a marker line with its exit code."""
    lines = []
    for index, command in enumerate(commands):
        lines += [command, f"printf '\\n@@step {index} exit %s\\n' $?"]
    return "\n".join(lines) + "\n"


def outputs(printed: str) -> dict[int, tuple[int, list[str]]]:
    """Each step's exit code and lines, from the whole session's output."""
    found: dict[int, tuple[int, list[str]]] = {}
    start = 0
    for mark in _MARK.finditer(printed):
        lines = printed[start : mark.start()].strip("\n").splitlines()
        found[int(mark[1])] = (int(mark[2]), lines)
        start = mark.end()
    return found


def matches(expected: Sequence[str], actual: Sequence[str]) -> bool:
    """`actual` is `expected`, where an ELLIPSIS line stands for any lines (none included)."""
    if not expected:
        return not actual
    if expected[0] == ELLIPSIS:
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def run_session(
    commands: Sequence[str], plane: launcher.ControlPlane, home: Path, *, cwd: Path, timeout: int
) -> subprocess.CompletedProcess[str]:
    """The commands in one bash, as a newcomer's shell runs them: kubectl of the test control
    plane and this virtual environment's `driftctl` on the PATH, an admin kubeconfig in
    KUBECONFIG, `home` as HOME, no DRIFTCTL_ variable; stdout and stderr interleaved."""
    env = git_env()
    env.update(
        PATH=f"{Path(sys.executable).parent}:{plane.bin_dir}:/usr/bin:/bin",
        KUBECONFIG=str(plane.kubeconfig),
        HOME=str(home),
        PYTHONUNBUFFERED="1",  # stdout and stderr interleaved as on a terminal
    )
    return subprocess.run(
        ["bash", "-c", script(commands)],
        cwd=cwd,
        env={k: v for k, v in env.items() if not k.startswith("DRIFTCTL_")},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        check=False,
    )
