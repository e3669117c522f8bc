"""The results of reading desired states: values the pipeline returns and renderers read.

Plain data, no behaviour beyond naming things: which commit was read, which WebApps it
declares, what was wrong with it, what changed between two commits. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftctl.core.desired import Stamp
from driftctl.core.desired_diff import DesiredDiff
from driftctl.core.model import WebApp
from driftctl.core.tree import Snapshot, is_manifest
from driftctl.errors import Problem


@dataclass(frozen=True)
class Revision:
    """Where a desired state was read: commit, whether the working tree differed, source."""

    revision: str | None
    dirty: bool
    source: str  # "<url without credentials>#<path>"
    label: str  # the SHA, `<sha>-dirty` or `uncommitted`: what a run records
    files: int  # manifest files read

    @classmethod
    def of(cls, snapshot: Snapshot) -> Revision:
        files = sum(1 for entry in snapshot.entries if is_manifest(entry.path))
        return cls(snapshot.revision, snapshot.dirty, snapshot.source, snapshot.label, files)


@dataclass(frozen=True)
class Desired:
    """A validated desired state: the WebApps, warnings, and where they were read."""

    webapps: tuple[WebApp, ...]
    warnings: tuple[Problem, ...]
    revision: Revision

    def stamp(self, instance: str) -> Stamp:
        """What a run writes on every object it applies from this desired state."""
        return Stamp(instance, self.revision.label, self.revision.source)


@dataclass(frozen=True)
class ValidationReport:
    """What `validate` found: the desired state, or every problem; warnings either way."""

    revision: Revision
    webapps: tuple[WebApp, ...]
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        """Whether the desired state can be used."""
        return not self.problems


@dataclass(frozen=True)
class DiffReport:
    """What `diff` found between two commits' desired states."""

    base_ref: str
    head_ref: str
    base: Desired
    head: Desired
    diff: DesiredDiff
