"""What the tests hold of any Markdown driftctl writes (the check report): it is well formed."""

from __future__ import annotations

import re


def well_formed(markdown: str) -> bool:
    """Every code fence closed, every <details> closed, in order."""
    depth, fence = 0, ""
    for line in markdown.splitlines():
        if fence:
            fence = "" if line == fence else fence
            continue
        if re.fullmatch(r"`{3,}\w*", line):
            fence = line.rstrip("abcdefghijklmnopqrstuvwxyz")
        depth += line == "<details>"
        depth -= line == "</details>"
        if depth < 0:
            return False
    return depth == 0 and not fence
