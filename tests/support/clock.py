"""Time under a test's control: a monotonic clock that only moves when the code under test
sleeps, so that retries and backoffs are run without waiting and their waits are read."""

from __future__ import annotations


class FakeTime:
    """A monotonic clock (`clock`) that only moves when `sleep` is called; `sleeps` lists
    every wait asked for."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
