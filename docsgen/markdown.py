"""Writing Markdown for the site: tables, code blocks, and text that must stay plain.

Text from the code (a command's help, a schema's description) is written for a terminal:
`*.yaml` or `<instance>` there must not become emphasis or HTML on a page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SPECIAL = re.compile(r"([\\*_\[\]|#])")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def plain(text: str) -> str:
    """`text` shown as written: Markdown's specials escaped, except inside `code spans`."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unclosed backtick: nothing is code
        return _escaped(text)
    return "`".join(part if index % 2 else _escaped(part) for index, part in enumerate(parts))


def _escaped(text: str) -> str:
    """Python-Markdown's specials escaped; <, > and & as entities (it cannot escape <)."""
    text = "".join(_ENTITIES.get(each, each) for each in text)
    return _SPECIAL.sub(r"\\\1", text)


def code(text: str) -> str:
    """An inline code span. In a table cell it may hold a pipe: Python-Markdown's tables do
    not split a row inside a code span."""
    if "`" in text:
        return f"`` {text} ``"
    return f"`{text}`"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A pipe table; each cell is already Markdown, on one line."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("\n", " ") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def fenced(text: str, language: str = "text") -> str:
    """A fenced code block holding `text` exactly."""
    fence = "````" if "```" in text else "```"
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"
