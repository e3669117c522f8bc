"""The uncompressed tar of a small root file system, entry by entry, with fixed metadata.

Every entry is owned by root with mtime 0 unless told otherwise, so the same entries give
the same bytes. For a whole distribution tree use mmdebstrap's tar instead (driftctl_image).
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def writing_layer(path: Path) -> Iterator[LayerTar]:
    """A layer tar at `path`, complete when the `with` block ends."""
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as archive:
        yield LayerTar(archive)


class LayerTar:
    """A layer being written (see writing_layer)."""

    def __init__(self, archive: tarfile.TarFile) -> None:
        self._archive = archive

    def _info(self, name: str, kind: bytes, mode: int) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name.lstrip("/"))
        info.type, info.mode, info.mtime = kind, mode, 0
        return info

    def directory(self, name: str, mode: int = 0o755, owner: int = 0) -> None:
        info = self._info(name, tarfile.DIRTYPE, mode)
        info.uid = info.gid = owner
        self._archive.addfile(info)

    def file(self, name: str, data: bytes, mode: int = 0o644) -> None:
        info = self._info(name, tarfile.REGTYPE, mode)
        info.size = len(data)
        self._archive.addfile(info, io.BytesIO(data))

    def symlink(self, name: str, target: str) -> None:
        info = self._info(name, tarfile.SYMTYPE, 0o777)
        info.linkname = target
        self._archive.addfile(info)
