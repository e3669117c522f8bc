"""The only module that reads and writes saved-plan files.

Writing goes through a temporary file in the same folder, renamed into place, so a reader
never sees half a plan. Reading refuses a missing, unreadable, oversized or non-UTF-8 file
with the file named (exit 3). What the text means is core.planning.saved_plan's business.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from driftctl.core.planning.saved_plan import MAX_BYTES, SavedPlanError
from driftctl.errors import UsageError


def write_plan_file(path: Path, text: str) -> None:
    """Write `text` to `path` atomically."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as error:
        raise UsageError(f"--out {path}: cannot write it: {error.strerror}") from None


def read_plan_file(path: Path) -> str:
    """The text of a saved plan."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SavedPlanError(
                str(path), f"{size} bytes is more than a plan can be ({MAX_BYTES})"
            )
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise SavedPlanError(str(path), "no such file") from None
    except UnicodeDecodeError:
        raise SavedPlanError(str(path), "not UTF-8 text") from None
    except OSError as error:
        raise SavedPlanError(str(path), f"cannot read it: {error.strerror}") from None
