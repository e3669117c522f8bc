"""How far back `driftctl history` looks: `HistoryRange` (which entries, by age). Which
WebApps it shows is the Selection (NAME..., -l); where the history is kept, the Lock's
namespace. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftctl.settings.declare import Group, setting
from driftctl.settings.spans import Seconds


@dataclass(frozen=True, kw_only=True)
class HistoryRange:
    """Which entries `history` shows, by age (None: all the instance keeps)."""

    GROUP: ClassVar = Group(None, frozenset({"history"}))

    since: float | None = setting(
        "since",
        Seconds(),
        help="Only entries newer than this (5m, 2h, 7d); default: all the history kept.",
    )


ALL_OF_IT = HistoryRange()
