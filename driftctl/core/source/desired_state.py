"""The desired state read from Git: which commit, which WebApps, what was wrong with it.

Plain data the pipeline returns and renderers read, no behaviour beyond naming things. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftctl.core.source.model import WebApp
from driftctl.core.source.tree import Snapshot, is_manifest
from driftctl.errors import Problem


@dataclass(frozen=True)
class Revision:
    """Where a desired state was read: commit, whether the working tree differed, source."""

    revision: str | None
    dirty: bool
    source: str  # "<url without credentials>#<path>"
    label: str  # the SHA, `<sha>-dirty` or `uncommitted`: what a run records
    files: int  # manifest files read
    tag: str | None = None  # the annotated tag object the ref named, if it named one
    # The fingerprint of the trusted key that signed the commit, once --verify checked it.
    verified_by: str | None = None

    @classmethod
    def of(cls, snapshot: Snapshot) -> Revision:
        files = sum(1 for entry in snapshot.entries if is_manifest(entry.path))
        return cls(
            snapshot.revision, snapshot.dirty, snapshot.source, snapshot.label, files, snapshot.tag
        )

    @property
    def verified(self) -> tuple[str, str] | None:
        """The commit and the fingerprint of the key that signed it, once --verify checked it."""
        if self.revision is None or self.verified_by is None:
            return None
        return self.revision, self.verified_by


@dataclass(frozen=True)
class DesiredState:
    """A validated desired state: the WebApps, warnings, and where they were read."""

    webapps: tuple[WebApp, ...]
    warnings: tuple[Problem, ...]
    revision: Revision


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
