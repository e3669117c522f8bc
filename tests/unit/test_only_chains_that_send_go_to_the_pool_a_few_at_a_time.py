"""An apply's chains go to its thread pool a few ahead (shell.batches): 10,000 unchanged
WebApps made 10,000 futures at once, and their answers stayed held to the end. A chain that
sends nothing is settled by the caller and never given to the pool; its answer still comes
at its place."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from driftctl.shell.batches import in_order


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


def test_what_settle_answers_never_reaches_the_pool_and_comes_at_its_place() -> None:
    def work(n: int) -> str:
        time.sleep(0.001 * (n % 3))  # answers ready out of order
        return f"pool {n}"

    def settle(n: int) -> str | None:
        return f"here {n}" if n % 4 else None

    with CountingPool() as pool:
        answers = list(in_order(pool, work, list(range(200)), ahead=4, settle=settle))
    assert answers == [f"here {n}" if n % 4 else f"pool {n}" for n in range(200)]
    assert pool.given == 50


def test_the_pool_is_never_given_more_than_ahead_while_settled_answers_wait() -> None:
    def settle(n: int) -> int | None:
        return -n if n % 2 else None

    with CountingPool() as pool:
        answers = in_order(pool, lambda n: n, list(range(100)), ahead=3, settle=settle)
        for taken, answer in enumerate(answers):
            assert pool.given - (taken + 1) // 2 <= 3
            assert answer == (-taken if taken % 2 else taken)
    assert pool.given == 50
