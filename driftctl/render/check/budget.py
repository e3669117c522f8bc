"""The check report's Markdown within its budget, `max_bytes` (UTF-8).

The summary, every prune, replacement, blocked object, untrusted commit and validation
problem are always kept (blocks that are not `optional`); the details of the other objects
are cut from the middle, whole blocks only (never inside a code block), and a note says
how many were cut. Only the kept part alone can exceed the budget.

Pure. Must not know what a block says: render.check.markdown makes the blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftctl.render.check.words import plural


@dataclass(frozen=True)
class Block:
    """One `<details>` block: its lines, and whether the budget may cut it."""

    lines: tuple[str, ...]
    optional: bool

    @property
    def size(self) -> int:
        return sum(len(line.encode()) + 1 for line in self.lines)


def fitted(top: list[str], blocks: list[Block], max_bytes: int) -> str:
    """The report within `max_bytes`: optional blocks cut from the middle, with a note."""
    kept_size = sum(len(line.encode()) + 1 for line in top)
    kept_size += sum(block.size for block in blocks if not block.optional)
    optional = [block for block in blocks if block.optional]
    if kept_size + sum(block.size for block in optional) <= max_bytes:
        return _joined(top, blocks)
    room = max_bytes - kept_size - len(_cut_note(len(optional), max_bytes).encode()) - 1
    front, back = _ends(optional, room)
    note = _cut_note(len(optional) - front - back, max_bytes)
    mandatory = [block for block in blocks if not block.optional]
    cut = [*optional[:front], Block((note, ""), False), *optional[len(optional) - back :]]
    return _joined(top, [*mandatory, *cut])


def _ends(blocks: list[Block], room: int) -> tuple[int, int]:
    """How many blocks to keep from the front and from the back, alternately, within room."""
    front = back = used = 0
    while front + back < len(blocks):
        index = front if front <= back else len(blocks) - 1 - back
        size = blocks[index].size
        if used + size > room:
            break
        used += size
        if front <= back:
            front += 1
        else:
            back += 1
    return front, back


def _cut_note(count: int, max_bytes: int) -> str:
    return (
        f"> :scissors: The details of {plural(count, 'more object')} were cut here to keep this "
        f"report within {max_bytes:,} bytes; `driftctl check -o json` lists every object."
    )


def _joined(top: list[str], blocks: list[Block]) -> str:
    lines = [*top, *(line for block in blocks for line in block.lines)]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"
