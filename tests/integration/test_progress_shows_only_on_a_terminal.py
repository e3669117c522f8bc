"""Progress is drawn on stderr when it is a terminal, and never in a pipe or JSON output.

The terminal is a real pseudo-terminal (os.openpty): driftctl's stderr is its other end,
as in a person's shell, and what it drew is read back from the master side.
"""

from __future__ import annotations

import os
import subprocess
import threading

from tests.support.harness import Harness, driftctl_env
from tests.support.paths import ROOT

N = 30
ERASE_LINE = "\r\x1b[K"


def on_a_terminal(harness: Harness, *args: str) -> tuple[int, str, str]:
    """Run driftctl with stderr on a pseudo-terminal: (exit code, stdout, what the tty got)."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        harness.argv(*args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=driftctl_env(),
        text=True,
    )
    os.close(slave)
    drawn: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(master, drawn))
    reader.start()
    out, _ = process.communicate(timeout=300)
    reader.join(timeout=30)
    os.close(master)
    return process.returncode, out, b"".join(drawn).decode()


def all_on_a_terminal(harness: Harness, *args: str) -> tuple[int, str]:
    """Run driftctl with stdout and stderr on one pseudo-terminal, as in a person's shell:
    (exit code, everything the terminal got, in order)."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        harness.argv(*args), cwd=ROOT, stdout=slave, stderr=slave, env=driftctl_env()
    )
    os.close(slave)
    drawn: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(master, drawn))
    reader.start()
    process.wait(timeout=300)
    reader.join(timeout=30)
    os.close(master)
    return process.returncode, b"".join(drawn).decode()


def _read_all(master: int, into: list[bytes]) -> None:
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other end is closed, the process is gone
            return
        if not chunk:
            return
        into.append(chunk)


def declare(harness: Harness) -> None:
    harness.declare({f"app-{i:02d}": ("nginx:1.27", 1) for i in range(N)})


def test_apply_on_a_terminal_shows_objects_done_of_total_phase_and_rate(
    harness: Harness,
) -> None:
    declare(harness)

    code, out, drawn = on_a_terminal(harness, "apply")

    assert code == 0, drawn
    assert f"applying: {2 * N}/{2 * N} objects (100%)" in drawn
    assert "/s" in drawn
    assert drawn.endswith(ERASE_LINE)  # the line is erased at the end
    assert "applying:" not in out  # stdout keeps its lines; progress went to the terminal
    assert ERASE_LINE not in out
    assert out.splitlines()[-1].startswith(f"Apply: {2 * N} created")


def test_plan_on_a_terminal_shows_its_dry_runs(harness: Harness) -> None:
    declare(harness)

    code, _, drawn = on_a_terminal(harness, "plan")

    assert code == 1, drawn
    assert f"dry-run: {N}/{N} objects (100%)" in drawn  # the WebApps; Deployments wait for uids


def test_plan_on_a_terminal_erases_its_progress_line_before_the_report(
    harness: Harness,
) -> None:
    declare(harness)

    code, screen = all_on_a_terminal(harness, "plan")

    assert code == 1, screen
    report = screen.index(f"+ WebApp/{harness.namespace}/app-00: create")
    assert screen[:report].endswith(ERASE_LINE), screen[report - 80 : report + 80]
    assert screen.rstrip().endswith(
        f"Plan: {2 * N} to create, 0 to update, 0 to prune, 0 unchanged"
    )


def test_no_progress_in_a_pipe(harness: Harness) -> None:
    declare(harness)

    applied = harness.driftctl("apply")

    assert applied.code == 0, applied.err
    assert applied.err == ""
    assert "applying:" not in applied.out


def test_no_progress_with_json_output_even_on_a_terminal(harness: Harness) -> None:
    declare(harness)

    code, out, drawn = on_a_terminal(harness, "apply", "-o", "json")

    assert code == 0, drawn
    assert drawn == ""
    assert out.startswith("{")
