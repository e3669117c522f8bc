"""The watch tests read `driftctl watch`'s /metrics series by series (tests/support/
watching.py): a metric is the sum of its series, 0 included, and a metric without any
series fails the read, so that a renamed gauge cannot pass as 0."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest

from tests.support.watching import metric_sum


def page() -> str:
    """A page as prometheus-client serves it: a gauge at 0, a counter with two series,
    and a labelled counter that has no series yet."""
    registry = CollectorRegistry()
    Gauge("driftctl_watch_queue_depth", "WebApps waiting.", registry=registry).set(0)
    reconciles = Counter("driftctl_watch_reconciles", "By result.", ["result"], registry=registry)
    reconciles.labels("success").inc(3)
    reconciles.labels("failed").inc()
    Counter("driftctl_watch_full_passes", "By reason.", ["reason"], registry=registry)
    return generate_latest(registry).decode()


def test_a_metric_is_the_sum_of_its_series_and_zero_is_a_value() -> None:
    assert metric_sum(page(), "driftctl_watch_reconciles_total") == 4
    assert metric_sum(page(), "driftctl_watch_queue_depth") == 0


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("driftctl_watch_queue_length", id="renamed"),
        pytest.param("driftctl_watch_full_passes_total", id="declared-without-a-series"),
    ],
)
def test_a_metric_without_a_series_fails_the_read(name: str) -> None:
    with pytest.raises(AssertionError, match=f"no series of {name} on /metrics"):
        metric_sum(page(), name)
