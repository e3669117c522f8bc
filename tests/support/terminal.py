"""driftctl on a real pseudo-terminal (os.openpty), as in a person's shell: stdin, stdout and
stderr are its other end, what it drew is read back from the master side, and an answer is
typed once its question is on the screen."""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Mapping, Sequence

from tests.support.harness import driftctl_env
from tests.support.paths import ROOT


def answered(
    argv: Sequence[str],
    question: str,
    answer: str | None,
    *,
    seconds: float = 120,
    extra_env: Mapping[str, str] | None = None,
) -> tuple[int, str]:
    """Run `argv` on a terminal, typing `answer` once `question` is on it (None: never
    typing): (exit code, everything the terminal showed). `extra_env`: added to driftctl's
    clean environment."""
    master, slave = os.openpty()
    env = {**driftctl_env(), **(extra_env or {})}
    process = subprocess.Popen(
        list(argv), cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave
    )
    os.close(slave)
    screen = ""
    deadline = time.monotonic() + seconds
    while process.poll() is None and time.monotonic() < deadline:
        screen += _read(master)
        if answer is not None and question in screen:
            os.write(master, f"{answer}\n".encode())
            answer = None
    screen += _read(master)
    os.close(master)
    return process.wait(30), screen


def _read(master: int) -> str:
    ready, _, _ = select.select([master], [], [], 0.1)
    if not ready:
        return ""
    try:
        return os.read(master, 65536).decode(errors="replace")
    except OSError:  # EIO: the other end is closed
        return ""
