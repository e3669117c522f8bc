"""An apply's chains go to its thread pool in batches, a few ahead (shell.batches): 10,000
unchanged WebApps made 10,000 futures at once, and their answers stayed held to the end."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from driftctl.shell.batches import batch_size, in_order


class CountingPool(ThreadPoolExecutor):
    """A real pool that counts what it was given."""

    def __init__(self) -> None:
        super().__init__(max_workers=3)
        self.given = 0
        self.lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self.lock:
            self.given += 1
        return super().submit(fn, *args, **kwargs)


def test_answers_come_in_the_items_order_and_the_pool_is_never_given_more_than_ahead() -> None:
    with CountingPool() as pool:
        answers = []
        for taken, answer in enumerate(in_order(pool, lambda n: n * n, list(range(200)), ahead=8)):
            assert pool.given - taken <= 8
            answers.append(answer)
    assert answers == [n * n for n in range(200)]
    assert pool.given == 200


def test_a_failure_reaches_the_reader_at_its_place() -> None:
    def work(n: int) -> int:
        if n == 5:
            raise ValueError("five")
        return n

    seen: list[int] = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = in_order(pool, work, list(range(10)), ahead=3)
        seen.extend(next(answers) for _ in range(5))
        with pytest.raises(ValueError, match="five"):
            next(answers)
    assert seen == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("chains", "concurrency", "size"),
    [(1, 4, 1), (8, 4, 1), (16, 4, 1), (100, 4, 6), (10_000, 4, 32), (10_000, 1, 32), (40, 10, 1)],
)
def test_a_batch_is_one_chain_until_every_worker_has_several_to_take(
    chains: int, concurrency: int, size: int
) -> None:
    assert batch_size(chains, concurrency) == size
    batches = -(-chains // size)
    assert batches >= min(chains, 4 * concurrency)  # writes still go `concurrency` at a time
