"""The local tutorial (docs/get-started/tutorial.md), run as written against a fresh control
plane, as a newcomer's shell would run it (issue 34: it could not be followed: a
`kubectl scale` without `-n`, a commit never shown, a removal with no command, outputs
of another folder and another run).

Every ```console block of the page is one session: its commands run in order in one bash
(tests/support/console.py), from the folder of this checkout (the page starts in a clone),
with kubectl of the test control plane and this virtual environment's `driftctl` on the
PATH, an admin kubeconfig in KUBECONFIG, and a HOME of their own. The control plane is this
test's own, without the WebApp CRD (the page installs it). Each command's exit code is the
page's, and its output is the page's line by line, but for what differs from run to run:
the HOME (the page's is /home/you), commit SHAs, times, ages, column widths, and the notes
of retried requests (right after the CRD is installed the API server may answer 429).

The page's other block, the shell lines that start the test control plane, is checked
against the launcher: the folder of the binaries it puts on the PATH is where kubectl is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from tests.controlplane import launcher
from tests.support.console import ELLIPSIS, console_steps, matches, outputs, run_session
from tests.support.paths import ROOT

TUTORIAL = ROOT / "docs" / "get-started" / "tutorial.md"
HOME = "/home/you"  # the page's HOME
_RETRY = "note: retrying in "
_SHA = re.compile(r"\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b")
_TIME = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b")
_AGE = re.compile(r"^\d+(ms|s|m|h|d)(\d+(s|m|h))?$")


def normalized(lines: Sequence[str], home: str) -> list[str]:
    """Lines with what differs from run to run put aside: the HOME, SHAs, times, ages
    (a column of `kubectl get`), and so the widths of the columns."""
    out = []
    for line in lines:
        placed = _TIME.sub("<time>", _SHA.sub("<sha>", line.replace(home, HOME)))
        out.append(" ".join("<age>" if _AGE.match(word) else word for word in placed.split()))
    return out


def test_the_tutorial_is_a_session_of_the_steps_it_promises() -> None:
    commands = [step.command for step in console_steps(TUTORIAL.read_text())]

    assert commands[0].startswith("driftctl crd | kubectl apply")
    for verb in ("validate", "status", "plan", "apply"):
        assert any(command.startswith(f"driftctl {verb} ") for command in commands), verb
    assert "kubectl scale deployment/blog -n demo --replicas=4" in commands
    assert sum("git commit" in command for command in commands) == 3


def test_its_control_plane_lines_put_the_launchers_kubectl_on_the_path(
    plane: launcher.ControlPlane,
) -> None:
    text = TUTORIAL.read_text()
    [lines] = re.findall(r"```sh\n(.*?)```", text, re.S)

    assert "python -m tests.controlplane start --dir /tmp/cp" in lines
    [path] = re.findall(r'PATH="\$HOME/([^:]+):\$PATH"', lines)
    assert Path.home() / path == plane.bin_dir
    assert (plane.bin_dir / "kubectl").exists()


def test_the_tutorial_runs_as_written(plane: launcher.ControlPlane, tmp_path: Path) -> None:
    steps = console_steps(TUTORIAL.read_text())
    home = tmp_path / "home"
    home.mkdir()
    commands = [step.command for step in steps]
    session = run_session(commands, plane, home, cwd=ROOT, timeout=600)
    ran = outputs(session.stdout)

    assert len(steps) > 20  # the page's every console block
    assert sorted(ran) == list(range(len(steps))), session.stdout
    for index, step in enumerate(steps):
        code, lines = ran[index]
        shown = f"$ {step.command}\n" + "\n".join(lines)
        assert code == step.exit_code, shown
        printed = [line for line in lines if not line.startswith(_RETRY)]
        expected = [ELLIPSIS if line == ELLIPSIS else line for line in step.printed]
        assert matches(normalized(expected, str(home)), normalized(printed, str(home))), shown
