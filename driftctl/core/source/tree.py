"""What a Git source hands to the core: the entries of one folder at one commit.

The shell lists entries (files, symlinks, submodules) and reads the bytes of the files the
core asks for; the core decides which names are manifests, what the size bound is and
what is refused. Nothing here reads a disk or runs git.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Protocol

from driftctl.errors import UsageError

if TYPE_CHECKING:
    from driftctl.core.source.documents import Loaded

MAX_FILE_BYTES = 1024 * 1024  # a WebApp is a few hundred bytes; 1 MiB is plenty and bounds memory
MANIFEST_SUFFIXES = (".yaml", ".yml")
# The names kustomize reads a kustomization from, in its order; one at --path renders it.
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


class TreeEntryKind(enum.Enum):
    """What a path in the tree is; only regular files are ever read."""

    FILE = "file"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"
    FOLDER = "folder"  # only a FileReader answers these two: a tree, and nothing at all
    MISSING = "missing"


@dataclass(frozen=True)
class TreeEntry:
    """One path under --path: its kind, its size, and its bytes when the core asked for them."""

    path: str  # relative to the repository root, '/'-separated
    kind: TreeEntryKind
    size: int = 0
    data: bytes | None = None  # None: not read (not a manifest, or over the size bound)


class FileReader(Protocol):
    """What a kustomization is rendered through: the shell's reading of one commit's tree
    (or the working tree), asked for exactly the paths the kustomizations list."""

    def read(self, paths: Sequence[str]) -> Sequence[TreeEntry]:
        """An entry for each repository-relative path, in order: a FILE with its bytes
        (none over MAX_FILE_BYTES), a FOLDER, MISSING, or the SYMLINK or SUBMODULE met on
        the way to it (its path then the link's own), never following a link."""
        ...


@dataclass(frozen=True)
class Snapshot:
    """The folder of the desired state at one commit, and where it was read from."""

    entries: tuple[TreeEntry, ...]
    revision: str | None  # the commit SHA; None in a repository without commits yet
    dirty: bool  # the working tree differs from that commit under --path
    source: str  # "<url without credentials>#<path>", never with credentials
    tag: str | None = None  # the annotated tag object the ref named, if it named one
    single_file: bool = False  # --path names one file, not a folder
    # The WebApps a kustomization at --path rendered (core.source.kustomize); `entries` are
    # then the files it read. None: a plain folder, its manifests loaded as they are.
    rendered: Loaded | None = None

    @property
    def label(self) -> str:
        """The revision as recorded for a run: the SHA, `<sha>-dirty`, or `uncommitted`."""
        if self.revision is None:
            return "uncommitted"
        return f"{self.revision}-dirty" if self.dirty else self.revision


def is_hidden(path: str) -> bool:
    """Paths under a dot-folder (.github, .git) or dot-files are never desired state."""
    # PurePosixPath(path).parts' rule, without a path object for each of 10,000 files.
    return any(part.startswith(".") for part in path.split("/") if part not in ("", "."))


def is_manifest(path: str) -> bool:
    """A file the desired state is read from: `*.yaml` or `*.yml`, not hidden (and a
    `Kustomization`, which is read to be refused below --path)."""
    manifest = path.endswith(MANIFEST_SUFFIXES) or path.rpartition("/")[2] == "Kustomization"
    return manifest and not is_hidden(path)


def should_read(path: str, size: int) -> bool:
    """Whether the shell reads a file's bytes: a manifest within the size bound."""
    return is_manifest(path) and size <= MAX_FILE_BYTES


def folder_path(path: str) -> str:
    """--path as a clean relative folder ('' for the root), or UsageError when it escapes."""
    parts = [part for part in PurePosixPath(path.replace("\\", "/")).parts if part not in ("", ".")]
    if path.startswith("/") or ".." in parts:
        raise UsageError(
            f"--path {path!r} must be a folder inside the repository, like deploy/prod"
        )
    return "/".join(parts)


def joined(prefix: str, path: str) -> str:
    """Two relative folders joined, either possibly the root ('')."""
    return "/".join(part for part in (prefix, path) if part)
