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
from pathlib import Path

from tests.controlplane import launcher
from tests.support.console import ELLIPSIS, Step, console_steps, matches, outputs, run_session
from tests.support.paths import ROOT

README = ROOT / "README.md"
START, END = "--8<-- [start:quickstart]", "--8<-- [end:quickstart]"
REPOSITORY_URL = "<repository URL>"
INSTALLS = ("pipx install", "pip install", "python3 -m pip install")
_RETRY = "note: retrying in "


def installs(step: Step) -> bool:
    """Whether the step is the install line (not run here: see the module docstring)."""
    return step.command.startswith(INSTALLS)


def quickstart(readme: str) -> list[Step]:
    """The console block of the README's quickstart section, as steps."""
    return console_steps(readme.split(START, 1)[1].split(END, 1)[0])


def normalized(lines: Sequence[str], clone: str) -> list[str]:
    """Lines with the clone's folder and commit SHAs (12 or 40 hex digits) put aside."""
    out = []
    for line in lines:
        placed = re.sub(r"[^\s(]*/driftctl(?=#)", "<clone>", line.replace(clone, "<clone>"))
        out.append(re.sub(r"\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b", "<sha>", placed))
    return out


def commands_of(steps: Sequence[Step]) -> list[str]:
    """Each step's command as run here: the clone from this checkout, the install line a
    no-op (checked by test_the_install_line_gives_a_driftctl_command)."""
    return [
        "true" if installs(step) else step.command.replace(REPOSITORY_URL, str(ROOT))
        for step in steps
    ]


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
    session = run_session(commands_of(steps), plane, home, cwd=home, timeout=300)
    ran = outputs(session.stdout)
    clone = str(home / "driftctl")

    assert sorted(ran) == list(range(len(steps))), session.stdout
    for index, step in enumerate(steps):
        code, lines = ran[index]
        assert code == step.exit_code, f"$ {step.command}\n" + "\n".join(lines)
        if not installs(step) and step.printed != (ELLIPSIS,):
            printed = [line for line in lines if not line.startswith(_RETRY)]
            expected, actual = normalized(step.printed, clone), normalized(printed, clone)
            assert matches(expected, actual), f"$ {step.command}\n" + "\n".join(lines)
