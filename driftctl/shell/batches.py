"""Handing many small pieces of work to a thread pool, a few ahead, answered in order.

An apply runs one chain of steps per WebApp (shell.apply). At 10,000 WebApps most chains
send nothing (unchanged, the status as it was): handing such a chain to the pool costs more
than working it out (a pool's threads take turns with the one that reads the answers), so
the caller settles it where it is (`settle`) and only a chain that sends goes to the pool.
Handing every chain at once held 10,000 futures and their answers to the end: at most
`ahead` go to the pool before their answers are taken.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")


class _Settled(Generic[_R]):
    """An answer worked out without the pool, kept until those before it are taken."""

    __slots__ = ("value",)

    def __init__(self, value: _R) -> None:
        self.value = value

    def result(self) -> _R:
        return self.value


def _unsettled(item: object) -> None:
    return None


def in_order(
    pool: ThreadPoolExecutor,
    work: Callable[[_T], _R],
    items: Sequence[_T],
    *,
    ahead: int,
    settle: Callable[[_T], _R | None] = _unsettled,
) -> Iterator[_R]:
    """`pool.map(work, items)`, but an item `settle` answers (not None) is answered here,
    not in the pool; and at most `ahead` items are in the pool before their answers are
    taken. An answer ready is given at once: the head's, and each one after it ready too."""
    waiting: collections.deque[Future[_R] | _Settled[_R]] = collections.deque()
    in_pool = 0
    for item in items:
        settled = settle(item)
        if settled is not None and not waiting:
            yield settled
            continue
        if settled is None:
            waiting.append(pool.submit(work, item))
            in_pool += 1
        else:
            waiting.append(_Settled(settled))
        while waiting and (in_pool >= ahead or _ready(waiting[0])):
            head = waiting.popleft()
            in_pool -= isinstance(head, Future)
            yield head.result()
    while waiting:
        yield waiting.popleft().result()


def _ready(answer: Future[_R] | _Settled[_R]) -> bool:
    return isinstance(answer, _Settled) or answer.done()
