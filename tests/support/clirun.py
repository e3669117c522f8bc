"""Runs the driftctl command line in this process, through the same main() users run."""

from __future__ import annotations

from collections.abc import Sequence
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
