"""The watch's work queue (core.watch.queue): changes before a reconcile starts are one
reconcile; a WebApp in progress is never handed to a second worker; a change meanwhile
makes it wait for the first to finish; timed retries come back when due; a pause holds
everything for a full pass."""

from __future__ import annotations

from driftctl.core.watch.queue import WorkQueue

SHOP, BLOG = ("web", "shop"), ("web", "blog")


def test_changes_before_the_reconcile_starts_are_coalesced() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    for _ in range(5):
        queue.add(SHOP)
    queue.add(BLOG)
    assert queue.depth == 2
    assert [queue.take(), queue.take(), queue.take()] == [SHOP, BLOG, None]


def test_a_webapp_in_progress_is_not_handed_out_again_until_done() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add(SHOP)
    assert queue.take() == SHOP
    queue.add(SHOP)  # changed while a worker reconciles it
    queue.add(SHOP)
    assert queue.take() is None  # no second worker on it
    queue.done(SHOP)
    assert queue.take() == SHOP  # once, for both changes
    queue.done(SHOP)
    assert queue.take() is None
    assert queue.idle


def test_a_timed_retry_comes_back_when_due_at_the_earliest_time_asked() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add_at(SHOP, 10.0)
    queue.add_at(SHOP, 4.0)
    assert queue.promote(3.9) == 4.0
    assert queue.take() is None
    assert queue.promote(4.0) is None
    assert queue.take() == SHOP


def test_a_success_forgets_the_timed_retry() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add_at(SHOP, 4.0)
    queue.forget(SHOP)
    assert queue.promote(100.0) is None
    assert queue.take() is None


def test_a_pause_holds_every_webapp_until_resumed() -> None:
    queue: WorkQueue[tuple[str, str]] = WorkQueue()
    queue.add(SHOP)
    queue.pause()
    queue.add(SHOP)
    assert queue.take() is None
    queue.resume()
    assert queue.take() == SHOP
    assert queue.take() is None
