"""One error tree for everything driftctl refuses or fails at, and the exit-code table.

Each error says what went wrong, where (file:line, object or step) and, when there is one,
a hint. The command line maps an error to its exit code here and nowhere else; library
exceptions are translated into this tree at the module that talks to the library.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass


class ExitCode(enum.IntEnum):
    """Process exit codes (DESIGN.md section 5)."""

    OK = 0
    CHANGES = 1  # plan/diff: changes found; check: found what --fail-on names
    USAGE = 2
    # Invalid desired state or saved plan, or a commit --verify refused (check: invalid head);
    # nothing written.
    INVALID_INPUT = 3
    ENVIRONMENT = 4  # git or cluster unreachable, authentication or permission refused
    PARTIAL_FAILURE = 5
    LOCKED = 6
    NOT_ROLLED_OUT = 7  # apply --wait: applied, but a rollout stalled or did not finish in time
    INTERRUPTED = 130


class DriftctlError(Exception):
    """Base of every error driftctl reports to a person."""

    exit_code: ExitCode = ExitCode.ENVIRONMENT

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if self.hint is None else f"{self.message}\nhint: {self.hint}"


class UsageError(DriftctlError):
    """Flags or arguments that cannot work together."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the desired state, at a place in a file."""

    file: str
    line: int
    column: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.reason}"


class InvalidSettings(UsageError):
    """A `--config` file that cannot be used; every problem is listed, sorted by place."""

    def __init__(self, problems: Sequence[Problem], *, file: str) -> None:
        self.problems = sorted(problems)
        count = len(self.problems)
        super().__init__(f"{file}: invalid settings ({count} problem{'s' if count > 1 else ''})")


class InvalidDesiredState(DriftctlError):
    """The desired state cannot be used; every problem is listed, sorted by place."""

    exit_code = ExitCode.INVALID_INPUT

    def __init__(self, problems: Sequence[Problem], *, side: str | None = None) -> None:
        self.problems = sorted(problems)
        self.side = side
        count = len(self.problems)
        prefix = f"{side}: " if side else ""
        noun = "problem" if count == 1 else "problems"
        super().__init__(f"{prefix}invalid desired state ({count} {noun})")


class UntrustedRevision(DriftctlError):
    """A commit `--verify` refuses: unsigned, signed by a key not trusted, expired or revoked,
    or not a descendant of the last revision applied. One line names the commit, its signer
    (or "unsigned") and the reason; nothing is applied."""

    exit_code = ExitCode.INVALID_INPUT


class SourceError(DriftctlError):
    """Git could not give the desired state: missing repository or ref, refused URL."""

    exit_code = ExitCode.ENVIRONMENT


class ClusterError(DriftctlError):
    """The cluster could not be reached or refused a request driftctl needs."""

    exit_code = ExitCode.ENVIRONMENT


class LockHeld(DriftctlError):
    """Another run holds this instance's lock."""

    exit_code = ExitCode.LOCKED


class Declined(DriftctlError):
    """A person answered no when apply asked: nothing was applied, the cluster still differs
    from Git (plan's exit code for that)."""

    exit_code = ExitCode.CHANGES
