"""Who hears a run as it goes: one listener, handed to a command's flow whole.

A flow reports through it and never prints: retries as they happen (`notice`), warnings
(`warn`), each object's outcome, each status written and how far it is (`progress`), the
plan before it is carried out (`planned`), and, where a person may stop it, the question
(`confirm`: None, nobody is asked). The command line makes one from its log (cli.logs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from driftctl.core.planning.actions import Plan
from driftctl.shell.apply import Progress

Notice = Callable[[str], None]


def _ignore(_: object) -> None:
    """A report nobody listens to."""


@dataclass(frozen=True)
class Listener:
    """Where a run reports (module docstring)."""

    notice: Notice = _ignore
    warn: Notice = _ignore
    progress: Progress = field(default_factory=Progress)
    planned: Callable[[Plan], None] = _ignore
    confirm: Callable[[Plan], bool] | None = None


NOBODY = Listener()
