"""Runs the driftctl command line in this process, through the same main() users run."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from driftctl.cli import main


@dataclass(frozen=True)
class Ran:
    """Exit code and what was printed."""

    code: int
    out: str
    err: str


def run_driftctl(
    args: Sequence[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Ran:
    """`driftctl ARGS` with its exit code, stdout and stderr."""
    monkeypatch.setattr("sys.argv", ["driftctl", *args])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main()
    captured = capsys.readouterr()
    code = exited.value.code
    return Ran(code if isinstance(code, int) else 1, captured.out, captured.err)


def driftctl_alone(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *also: str
) -> Callable[..., Ran]:
    """`run(*args, **env)`: driftctl with no DRIFTCTL_* variable but those in `env` (none of
    the machine's, nor of an earlier run), and none of the variables named in `also`."""
    for name in also:
        monkeypatch.delenv(name, raising=False)

    def run(*args: str, **env: str) -> Ran:
        for name in [name for name in os.environ if name.startswith("DRIFTCTL_")]:
            monkeypatch.delenv(name)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return run_driftctl(args, capsys, monkeypatch)

    return run
