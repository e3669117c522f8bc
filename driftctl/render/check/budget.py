"""The check report's Markdown within its budget, `max_bytes` (UTF-8).

The summary, every prune, replacement, blocked object, untrusted commit and validation
problem are always kept (blocks that are not `optional`); the details of the other objects
are cut from the middle, whole blocks only (never inside a code block), and a note says
how many were cut. Only the kept part alone can exceed the budget.

A report across targets has a part per target (`Part`): what every part must keep comes
first, then the room left is shared fairly (`shares`: each part gets an equal share; what
a small part leaves unused goes to the others), and each part is cut within its share.

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


@dataclass(frozen=True)
class Part:
    """One target's part of a report: its lines that are always kept, then its blocks."""

    top: tuple[str, ...]
    blocks: tuple[Block, ...]

    @property
    def kept_size(self) -> int:
        """What the budget never cuts: the top, the blocks that are not optional, and room
        for the note that says what was cut."""
        size = _size(self.top) + sum(b.size for b in self.blocks if not b.optional)
        return size + (self._note_size if self.wanted else 0)

    @property
    def wanted(self) -> int:
        """The size of its optional blocks: all it would like the room for."""
        return sum(block.size for block in self.blocks if block.optional)

    def within(self, room: int, max_bytes: int) -> list[str]:
        """Its lines, its optional blocks cut from the middle to fit `room`."""
        return [*self.top, *_lines(_cut(list(self.blocks), room, max_bytes))]

    @property
    def _note_size(self) -> int:
        optional = sum(1 for block in self.blocks if block.optional)
        return len(_cut_note(optional, 10**9).encode()) + 2


def fitted(top: list[str], blocks: list[Block], max_bytes: int) -> str:
    """The report within `max_bytes`: optional blocks cut from the middle, with a note."""
    kept_size = _size(top) + sum(block.size for block in blocks if not block.optional)
    optional = [block for block in blocks if block.optional]
    if kept_size + sum(block.size for block in optional) <= max_bytes:
        return _joined(top, blocks)
    room = max_bytes - kept_size - len(_cut_note(len(optional), max_bytes).encode()) - 1
    return _joined(top, _cut(blocks, room, max_bytes))


def fitted_parts(top: list[str], parts: list[Part], max_bytes: int) -> str:
    """A report of several parts within `max_bytes`: each part keeps what it must, and the
    room left is shared fairly among their optional blocks (`shares`)."""
    whole = _size(top) + sum(_size(part.top) + _size(_lines(list(part.blocks))) for part in parts)
    room = max_bytes - _size(top) - sum(part.kept_size for part in parts)
    wanted = [part.wanted for part in parts]
    given = wanted if whole <= max_bytes else shares(wanted, max(room, 0))
    lines = [
        line
        for part, share in zip(parts, given, strict=True)
        for line in part.within(share, max_bytes)
    ]
    return _joined([*top, *lines], [])


def shares(wanted: list[int], room: int) -> list[int]:
    """`room` shared among parts that want `wanted` each: an equal share each, a part that
    wants less than its share keeps only what it wants and the rest is shared among the
    others (max-min fairness)."""
    given = [0] * len(wanted)
    left = room
    waiting = sorted(range(len(wanted)), key=lambda index: wanted[index])
    while waiting:
        share = left // len(waiting)
        index = waiting.pop(0)
        given[index] = min(wanted[index], share)
        left -= given[index]
    return given


def _cut(blocks: list[Block], room: int, max_bytes: int) -> list[Block]:
    """The blocks that are not optional, then the optional ones within `room`: cut from
    the middle with a note, or all of them when they fit."""
    mandatory = [block for block in blocks if not block.optional]
    optional = [block for block in blocks if block.optional]
    if sum(block.size for block in optional) <= room:
        return blocks
    front, back = _ends(optional, room)
    note = _cut_note(len(optional) - front - back, max_bytes)
    cut = [*optional[:front], Block((note, ""), False), *optional[len(optional) - back :]]
    return [*mandatory, *cut]


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


def _size(lines: list[str] | tuple[str, ...]) -> int:
    return sum(len(line.encode()) + 1 for line in lines)


def _lines(blocks: list[Block]) -> list[str]:
    return [line for block in blocks for line in block.lines]


def _joined(top: list[str], blocks: list[Block]) -> str:
    lines = [*top, *_lines(blocks)]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"
