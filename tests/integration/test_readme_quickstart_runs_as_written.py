"""The README's quickstart, run as written against a fresh control plane.

The block between the README's quickstart markers is a console session: `$ COMMAND` lines,
each followed by what it printed, and `(exit N)` when it exited N. The commands run in
order in one bash (so `cd` carries over), as a newcomer's shell would run them: kubectl of
the test control plane and this virtual environment's `driftctl` on the PATH, an admin
kubeconfig in KUBECONFIG, a HOME of their own, and a control plane of this test's own
without the WebApp CRD (the quickstart installs it).

Two lines cannot run here as written, and are checked instead: `git clone <repository URL>`
clones this repository from its folder (there is no network), and the install line finds
`driftctl` on the PATH, installed into this virtual environment from the same checkout.
Every other command's output is compared line by line with the README's, commit SHAs and
the clone's folder aside, and the notes of retried requests too (right after the CRD is
installed, the API server may answer 429 while it initializes the new resource's storage:
when depends on timing, as the README says); a `...` line in the README stands for any
lines.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.controlplane import launcher
from tests.support.gitrepos import git_env
from tests.support.paths import ROOT

README = ROOT / "README.md"
START, END = "--8<-- [start:quickstart]", "--8<-- [end:quickstart]"
REPOSITORY_URL = "<repository URL>"
INSTALLS = ("pipx install", "pip install", "python3 -m pip install")
ELLIPSIS = "..."
_EXIT = re.compile(r"^\(exit (\d+)\)$")
_MARK = re.compile(r"^@@step (\d+) exit (\d+)$", re.M)
_RETRY = "note: retrying in "


@dataclass(frozen=True)
class Step:
    command: str
    printed: tuple[str, ...]
    exit_code: int

    @property
    def installs(self) -> bool:
        return self.command.startswith(INSTALLS)


def quickstart(readme: str) -> list[Step]:
    """The console block of the README's quickstart section, as steps."""
    section = readme.split(START, 1)[1].split(END, 1)[0]
    block = section.split("```console\n", 1)[1].split("\n```", 1)[0]
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
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


def normalized(lines: Sequence[str], clone: str) -> list[str]:
    """Lines with the clone's folder and commit SHAs (12 or 40 hex digits) put aside."""
    out = []
    for line in lines:
        placed = re.sub(r"[^\s(]*/driftctl(?=#)", "<clone>", line.replace(clone, "<clone>"))
        out.append(re.sub(r"\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b", "<sha>", placed))
    return out


def matches(expected: Sequence[str], actual: Sequence[str]) -> bool:
    """`actual` is `expected`, where an ELLIPSIS line stands for any lines (none included)."""
    if not expected:
        return not actual
    if expected[0] == ELLIPSIS:
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def script(steps: Sequence[Step]) -> str:
    """One bash script: each command as written, then a marker line with its exit code."""
    lines = []
    for index, step in enumerate(steps):
        command = step.command.replace(REPOSITORY_URL, str(ROOT))
        if step.installs:
            command = "true"  # checked by test_the_install_line_gives_a_driftctl_command
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


def test_the_quickstart_is_a_session_of_the_commands_it_promises() -> None:
    commands = [step.command for step in quickstart(README.read_text())]

    assert commands[0].startswith(f"git clone {REPOSITORY_URL} driftctl")
    assert any(step.startswith(INSTALLS) for step in commands)
    assert any(step.startswith("driftctl crd | kubectl apply") for step in commands)
    for verb in ("validate", "plan", "apply"):
        assert any(step.startswith(f"driftctl {verb} ") for step in commands), verb


def test_the_install_line_gives_a_driftctl_command() -> None:
    venv_bin = Path(sys.executable).parent
    found = shutil.which("driftctl", path=f"{venv_bin}:/usr/bin:/bin")

    assert found == str(venv_bin / "driftctl")
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("driftctl, version ")


def test_the_quickstart_runs_as_written(plane: launcher.ControlPlane, tmp_path: Path) -> None:
    steps = quickstart(README.read_text())
    home = tmp_path / "home"
    home.mkdir()
    env = git_env()
    env.update(
        PATH=f"{Path(sys.executable).parent}:{plane.bin_dir}:/usr/bin:/bin",
        KUBECONFIG=str(plane.kubeconfig),
        HOME=str(home),
        PYTHONUNBUFFERED="1",  # stdout and stderr interleaved as on a terminal
    )
    session = subprocess.run(
        ["bash", "-c", script(steps)],
        cwd=home,
        env={k: v for k, v in env.items() if not k.startswith("DRIFTCTL_")},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )
    ran = outputs(session.stdout)
    clone = str(home / "driftctl")

    assert sorted(ran) == list(range(len(steps))), session.stdout
    for index, step in enumerate(steps):
        code, lines = ran[index]
        assert code == step.exit_code, f"$ {step.command}\n" + "\n".join(lines)
        if not step.installs and step.printed != (ELLIPSIS,):
            printed = [line for line in lines if not line.startswith(_RETRY)]
            expected, actual = normalized(step.printed, clone), normalized(printed, clone)
            assert matches(expected, actual), f"$ {step.command}\n" + "\n".join(lines)
