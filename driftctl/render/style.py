"""How every report names objects and colours text.

Objects are always written `Kind/namespace/name` (conventions.object_ref). Colour is
decided by the caller (a terminal without NO_COLOR) and passed in; rendering never looks
at the environment.
"""

from __future__ import annotations

from dataclasses import dataclass

_CODES = {
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "cyan": "36",
    "bold": "1",
    "dim": "2",
}


@dataclass(frozen=True)
class Style:
    """Wraps text in ANSI colours when enabled, and leaves it alone otherwise."""

    colour: bool = False

    def paint(self, text: str, colour: str) -> str:
        """`text` in `colour` (red, green, yellow, blue, cyan, bold, dim)."""
        if not self.colour:
            return text
        return f"\033[{_CODES[colour]}m{text}\033[0m"
