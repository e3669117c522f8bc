"""The ring that keeps an instance's run records: a head and `SLOTS` sealed segments,
each one ConfigMap of at most `SEGMENT_BYTES` of records.

Pure: the shell reads and writes the ConfigMaps (shell.history_store). The head,
`driftctl-<instance>-history`, takes each new record (one line per part: core.history.record)
and counts the segments sealed so far (`seq`); when a record no longer fits, the head's
lines are sealed into the slot `seq % SLOTS` (`driftctl-<instance>-history-<slot>`),
overwriting the oldest segment, and the head starts again. So what an instance keeps is
bounded, `SLOTS + 1` ConfigMaps of at most `SEGMENT_BYTES` each, whatever the number of
runs, and the oldest records go first. A record costs two requests (the head read, then
written with its resourceVersion), two more when it seals a segment; a run that wrote
nothing records nothing.

Reading is the reverse: the sealed segments by their `seq`, oldest first, then the head;
a slot whose `seq` the head has not counted yet (a sealing whose head write lost a race)
is left out: the head still holds its lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from driftctl import conventions as c

SEGMENT_BYTES = 256 * 1024  # of records per ConfigMap (the API server's limit is 1 MiB)
SLOTS = 8  # sealed segments kept besides the head: 9 ConfigMaps of 256 KiB at most
RUNS_KEY = "runs"  # the data key holding the lines
SEQ_KEY = "seq"  # the head: segments sealed so far; a slot: which one it holds


def head_name(instance: str) -> str:
    return c.history_name(instance)


def slot_name(instance: str, slot: int) -> str:
    return f"{c.history_name(instance)}-{slot}"


@dataclass(frozen=True)
class Segment:
    """The lines of one ConfigMap of the ring and its `seq` (module docstring)."""

    seq: int = 0
    lines: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return sum(len(line.encode()) + 1 for line in self.lines)

    def data(self) -> dict[str, str]:
        """The ConfigMap's data."""
        return {RUNS_KEY: "\n".join(self.lines), SEQ_KEY: str(self.seq)}

    @classmethod
    def of_data(cls, data: Mapping[str, str] | None) -> Segment:
        """A ConfigMap's data as a segment (empty when there is none, or it is damaged)."""
        data = data or {}
        try:
            seq = int(data.get(SEQ_KEY) or 0)
        except ValueError:
            seq = 0
        text = data.get(RUNS_KEY) or ""
        return cls(seq, tuple(line for line in text.split("\n") if line))


@dataclass(frozen=True)
class Sealed:
    """A segment sealed into its slot."""

    slot: int
    segment: Segment


def appended(head: Segment, lines: Sequence[str]) -> tuple[Segment, list[Sealed]]:
    """The head with `lines` added, and the segments sealed on the way, in order (each
    goes to its slot before the head is written)."""
    sealed: list[Sealed] = []
    current = list(head.lines)
    size, seq = head.size, head.seq
    for line in lines:
        cost = len(line.encode()) + 1
        if current and size + cost > SEGMENT_BYTES:
            sealed.append(Sealed(seq % SLOTS, Segment(seq, tuple(current))))
            current, size, seq = [], 0, seq + 1
        current.append(line)
        size += cost
    return Segment(seq, tuple(current)), sealed


def in_order(head: Segment, slots: Iterable[Segment]) -> list[str]:
    """Every line the ring keeps, oldest first (module docstring)."""
    kept = sorted(
        (each for each in slots if head.seq - SLOTS <= each.seq < head.seq and each.lines),
        key=lambda each: each.seq,
    )
    return [line for each in [*kept, head] for line in each.lines]
