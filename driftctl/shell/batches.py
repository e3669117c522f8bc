"""Handing many small pieces of work to a thread pool: in batches, a few ahead, in order.

An apply runs one chain of steps per WebApp (shell.apply). At 10,000 WebApps most chains
send nothing (unchanged, the status as it was), so handing each to the pool on its own cost
more than running it, and handing them all at once held 10,000 futures and their answers
to the end. Here they go in batches, a few batches ahead of the one being read.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

BATCH_MOST = 32


def batch_size(chains: int, concurrency: int) -> int:
    """How many chains one task of the pool runs in turn: most WebApps of a large run need
    no request (unchanged, status as it was), and a task each cost more to hand over than
    to run (10,000 of them, a third of a second); but each worker keeps several batches to
    take, so chains that do write still go `concurrency` at a time."""
    return max(1, min(BATCH_MOST, chains // (4 * concurrency)))


_T = TypeVar("_T")
_R = TypeVar("_R")


def in_order(
    pool: ThreadPoolExecutor, work: Callable[[_T], _R], items: Sequence[_T], *, ahead: int
) -> Iterator[_R]:
    """`pool.map(work, items)`, with at most `ahead` items given to the pool before their
    answers are taken: 10,000 unchanged WebApps made 10,000 futures at once, and their
    answers stayed held until the last was read (16 MiB of a no-drift apply's peak)."""
    started: collections.deque[Future[_R]] = collections.deque()
    for item in items:
        started.append(pool.submit(work, item))
        if len(started) >= ahead:
            yield started.popleft().result()
    while started:
        yield started.popleft().result()
