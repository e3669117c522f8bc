"""Built image tarballs kept outside the checkout, keyed by everything they are built from.

A tarball's file name carries a digest of its inputs (source files, recipe, versions), so
a second build of the same inputs costs a stat, and changed inputs never meet a stale
image. When a new one is written, tarballs of the same image that nobody used for a day
are removed. Not the others: several checkouts (worktrees) on one machine share this
cache, each with its own sources, and removing every other tarball made each checkout
delete the one another had just built, sometimes between its build and its import.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

Input = str | bytes | Path
UNUSED_SECONDS = 24 * 3600  # a tarball nobody asked for this long is removed


def cache_root() -> Path:
    """The same root as tests/controlplane/build.sh: $DRIFTCTL_CACHE or ~/.cache/driftctl."""
    explicit = os.environ.get("DRIFTCTL_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "driftctl"


def images_dir() -> Path:
    return cache_root() / "images"


def digest_of(inputs: Iterable[Input]) -> str:
    """A digest of strings, bytes and the contents (and names) of files."""
    digest = hashlib.sha256()
    for item in inputs:
        if isinstance(item, Path):
            digest.update(f"file {item.name}\0".encode())
            digest.update(item.read_bytes())
        else:
            digest.update(item.encode() if isinstance(item, str) else item)
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def _stem(image_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "_", image_name)


def cached_image(
    image_name: str, inputs: Iterable[Input], build: Callable[[Path], None]
) -> tuple[Path, bool]:
    """The tarball of `image_name` for these inputs, built by `build(path)` when missing.

    Returns the path and whether it was built now.
    """
    folder = images_dir()
    stem = _stem(image_name)
    path = folder / f"{stem}-{digest_of(inputs)}.tar"
    if path.exists():
        path.touch()  # in use: its modification time says when it was last asked for
        return path, False
    folder.mkdir(parents=True, exist_ok=True)
    build(path)
    remove_unused(folder, stem, keep=path)
    return path, True


def remove_unused(folder: Path, stem: str, keep: Path, now: float | None = None) -> None:
    """Remove the tarballs of one image that nobody asked for in UNUSED_SECONDS."""
    cutoff = (time.time() if now is None else now) - UNUSED_SECONDS
    for other in folder.glob(f"{stem}-*.tar"):
        if other != keep and other.stat().st_mtime < cutoff:
            other.unlink(missing_ok=True)
