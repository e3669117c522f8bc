"""The FileReader a kustomization is rendered through: single paths of one commit's tree, or
of the working tree, read only when the core asks for them.

- `CommitFiles`: the commit's trees, each folder's listing read once (from the object
  database GitPython keeps open) and kept for the rendering; the blobs asked for in one
  call are read in one batch of `git cat-file --batch` (git_source's `blobs`).
- `WorktreeFiles`: the working tree, each step of a path looked at with lstat, so a
  symlink on the way is told, never followed.

Either answers a symlink or submodule met on the way to a path as what it is and reads
nothing behind it; a file over the core's size bound is answered without its bytes. It
decides nothing: which paths to ask for, and what is refused, is the core's (core.source
.kustomize).
"""

from __future__ import annotations

import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from git import Commit, Repo
from git.objects.fun import tree_entries_from_data

from driftctl.core.source.tree import MAX_FILE_BYTES, TreeEntry, TreeEntryKind
from driftctl.errors import SourceError

_TREE = 0o040000
_SYMLINK = 0o120000
_SUBMODULE = 0o160000

_KINDS = {
    _SYMLINK: TreeEntryKind.SYMLINK,
    _SUBMODULE: TreeEntryKind.SUBMODULE,
    0: TreeEntryKind.MISSING,  # not in its folder's listing
}
Blobs = Callable[[Repo, list[tuple[str, bytes]]], list[TreeEntry]]


class CommitFiles:
    """Paths of one commit's tree (module docstring)."""

    def __init__(self, repo: Repo, sha: str, blobs: Blobs) -> None:
        self.repo = repo
        self.blobs = blobs
        self.root = Commit(repo, bytes.fromhex(sha)).tree.binsha
        self.listings: dict[str, dict[str, tuple[bytes, int]]] = {}

    def read(self, paths: Sequence[str]) -> Sequence[TreeEntry]:
        found: list[TreeEntry | None] = []
        wanted: list[tuple[str, bytes]] = []
        for path in paths:
            entry, blob = self._entry(path)
            found.append(entry)
            if blob is not None:
                wanted.append((path, blob))
        read = iter(self.blobs(self.repo, wanted))
        return [entry if entry is not None else next(read) for entry in found]

    def _entry(self, path: str) -> tuple[TreeEntry | None, bytes | None]:
        """The entry of `path`, or (None, its blob) for a file to read."""
        parts = path.split("/") if path else []
        folder = ""
        for index, part in enumerate(parts):
            listing = self._listing(folder)
            here = "/".join(parts[: index + 1])
            binsha, mode = (listing or {}).get(part, (b"", 0))
            last = index == len(parts) - 1
            kind = _KINDS.get(mode, TreeEntryKind.FILE if last else TreeEntryKind.MISSING)
            if mode == _TREE:
                folder = here
            elif kind is TreeEntryKind.FILE:
                return None, binsha
            else:
                return TreeEntry(here if mode else path, kind), None
        return TreeEntry(path, TreeEntryKind.FOLDER), None

    def _listing(self, folder: str) -> dict[str, tuple[bytes, int]] | None:
        if folder in self.listings:
            return self.listings[folder]
        if not folder:
            binsha = self.root
        else:
            parent, _, name = folder.rpartition("/")
            above = self._listing(parent)
            if above is None or name not in above or above[name][1] != _TREE:
                return None
            binsha = above[name][0]
        data = self.repo.odb.stream(binsha).read()
        listing = {name: (sha, mode) for sha, mode, name in tree_entries_from_data(data)}
        self.listings[folder] = listing
        return listing


class WorktreeFiles:
    """Paths of the working tree at `top` (module docstring)."""

    def __init__(self, top: Path) -> None:
        self.top = top

    def read(self, paths: Sequence[str]) -> Sequence[TreeEntry]:
        return [self._entry(path) for path in paths]

    def _entry(self, path: str) -> TreeEntry:
        parts = path.split("/") if path else []
        here = self.top
        for index, part in enumerate(parts):
            here = here / part
            shown = "/".join(parts[: index + 1])
            try:
                info = here.lstat()
            except (FileNotFoundError, NotADirectoryError):
                return TreeEntry(path, TreeEntryKind.MISSING)
            if stat.S_ISLNK(info.st_mode):
                return TreeEntry(shown, TreeEntryKind.SYMLINK)
            if stat.S_ISDIR(info.st_mode) and (here / ".git").exists():
                return TreeEntry(shown, TreeEntryKind.SUBMODULE)
            if not stat.S_ISDIR(info.st_mode):
                if index < len(parts) - 1 or not stat.S_ISREG(info.st_mode):
                    return TreeEntry(path, TreeEntryKind.MISSING)
                return self._file(path, here, info.st_size)
        return TreeEntry(path, TreeEntryKind.FOLDER)

    def _file(self, path: str, where: Path, size: int) -> TreeEntry:
        if size > MAX_FILE_BYTES:
            return TreeEntry(path, TreeEntryKind.FILE, size)
        try:
            data = where.read_bytes()
        except OSError as error:
            raise SourceError(f"cannot read {path}: {error.strerror}") from None
        return TreeEntry(path, TreeEntryKind.FILE, len(data), data)
