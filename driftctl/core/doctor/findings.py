"""What one check of `driftctl doctor` found: a verdict, a line, and a hint naming the fix
(a command to run) when the verdict is not `ok`; and the exit code of them all.

Pure. Exit 0 when every check passed, 1 with warnings only (it runs, something is worth a
look), 4 when a check failed (a run fails, or something it must do cannot be done).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from driftctl.errors import ExitCode


class Verdict(enum.StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class Finding:
    """One line of doctor: the check (`cluster`, `crd`, `permissions`...), its verdict, what
    it found and, for a warning or a failure, the fix."""

    check: str
    verdict: Verdict
    line: str
    hint: str | None = None


def ok(check: str, line: str) -> Finding:
    return Finding(check, Verdict.OK, line)


def warn(check: str, line: str, hint: str | None) -> Finding:
    return Finding(check, Verdict.WARN, line, hint)


def fail(check: str, line: str, hint: str | None) -> Finding:
    return Finding(check, Verdict.FAIL, line, hint)


def exit_code(findings: Iterable[Finding]) -> ExitCode:
    """0 when all passed, 1 with warnings only, 4 when one failed (module docstring)."""
    verdicts = {finding.verdict for finding in findings}
    if Verdict.FAIL in verdicts:
        return ExitCode.ENVIRONMENT
    return ExitCode.CHANGES if Verdict.WARN in verdicts else ExitCode.OK


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    """How many findings of each verdict, worst first."""
    return {
        str(verdict): sum(1 for each in findings if each.verdict is verdict)
        for verdict in (Verdict.FAIL, Verdict.WARN, Verdict.OK)
    }
