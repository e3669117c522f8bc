"""The desired state read from Git: which commit, which WebApps, what was wrong with it.

Plain data the pipeline returns and renderers read, no behaviour beyond naming things. Pure.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from driftctl.core.source.model import Place, WebApp
from driftctl.core.source.tree import Snapshot, is_manifest
from driftctl.errors import Problem, UsageError


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
    single_file: bool = False  # --path named one file, not a folder

    @classmethod
    def of(cls, snapshot: Snapshot) -> Revision:
        files = sum(1 for entry in snapshot.entries if is_manifest(entry.path))
        return cls(
            snapshot.revision,
            snapshot.dirty,
            snapshot.source,
            snapshot.label,
            files,
            snapshot.tag,
            single_file=snapshot.single_file,
        )

    @property
    def verified(self) -> tuple[str, str] | None:
        """The commit and the fingerprint of the key that signed it, once --verify checked it."""
        if self.revision is None or self.verified_by is None:
            return None
        return self.revision, self.verified_by

    @property
    def committed(self) -> bool:
        """Whether this is one commit, as Git has it (not a working tree with changes)."""
        return self.revision is not None and not self.dirty

    def uncommitted(self) -> str | None:
        """What makes this desired state not a commit, for `apply` to refuse it without
        --allow-dirty (changes under --path in the working tree, or no commit yet); None
        when it is one."""
        if self.committed:
            return None
        repository, _hash, folder = self.source.rpartition("#")
        if self.revision is None:
            return f"{repository} has no commit yet"
        return (
            f"the working tree of {repository} has changes under {folder or 'its root'} that "
            f"are not committed ({self.revision[:12]}-dirty)"
        )

    def single_file_problem(self) -> str | None:
        """Why a run that prunes refuses this desired state: --path named one file, and every
        WebApp the other files declare would be pruned; None for a folder."""
        if not self.single_file:
            return None
        folder = self.source.rpartition("#")[2]
        return (
            f"--path {folder} is a file: a run makes the cluster equal to a whole folder, and "
            "would prune every WebApp the other files declare"
        )


@dataclass(frozen=True)
class DesiredState:
    """A validated desired state: the WebApps, warnings, and where they were read."""

    webapps: tuple[WebApp, ...]
    warnings: tuple[Problem, ...]
    revision: Revision

    @functools.cached_property
    def by_place(self) -> Mapping[Place, WebApp]:
        """The WebApps by (namespace, name): one WebApp looked up, not all walked (watch)."""
        return {app.place: app for app in self.webapps}

    def of_a_whole_folder(self) -> DesiredState:
        """This desired state, or UsageError when --path named a file: a run that prunes
        needs the whole folder (a selection of WebApps names the few to act on)."""
        problem = self.revision.single_file_problem()
        if problem is None:
            return self
        folder = str(PurePosixPath(self.revision.source.rpartition("#")[2]).parent)
        names = " ".join(app.name for app in self.webapps) or "NAME"
        shown = "" if folder == "." else f" {folder}"
        raise UsageError(
            problem, hint=f"give its folder, and name the WebApps to act on: --path{shown} {names}"
        )


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
