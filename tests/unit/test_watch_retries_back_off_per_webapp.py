"""A WebApp whose reconcile failed is tried again after 1 s, doubling up to 5 minutes,
jittered, and a success starts its curve again (core.watch.backoff)."""

from __future__ import annotations

import pytest

from driftctl.core.watch.backoff import PER_WEBAPP, Backoff


@pytest.mark.parametrize(
    ("failures", "ceiling"),
    [
        pytest.param(1, 1.0, id="first-failure-1s"),
        pytest.param(2, 2.0, id="second-2s"),
        pytest.param(5, 16.0, id="fifth-16s"),
        pytest.param(9, 256.0, id="ninth-256s"),
        pytest.param(10, 300.0, id="tenth-capped-at-5-minutes"),
        pytest.param(10_000, 300.0, id="no-overflow-after-many"),
    ],
)
def test_the_ceiling_doubles_from_one_second_to_five_minutes(failures: int, ceiling: float) -> None:
    assert PER_WEBAPP.ceiling(failures - 1) == ceiling


@pytest.mark.parametrize("jitter", [0.0, 0.25, 0.999])
def test_each_wait_is_between_half_and_all_of_its_ceiling(jitter: float) -> None:
    for attempt in range(11):
        ceiling = PER_WEBAPP.ceiling(attempt)
        assert ceiling / 2 <= PER_WEBAPP.delay(attempt, jitter) <= ceiling


def test_webapps_back_off_each_on_their_own_and_a_success_resets_one() -> None:
    backoff = Backoff()
    place, other = ("web", "shop"), ("web", "blog")
    waits = [backoff.failed(place, now=100.0, jitter=0.999) - 100.0 for _ in range(4)]
    assert waits == pytest.approx([1.0, 2.0, 4.0, 8.0], abs=0.01)
    assert backoff.failed(other, now=0.0, jitter=0.0) == 0.5  # its own first failure
    backoff.succeeded(place)
    assert backoff.failures(place) == 0
    assert backoff.failed(place, now=0.0, jitter=0.0) == 0.5
    assert backoff.failures(other) == 1
