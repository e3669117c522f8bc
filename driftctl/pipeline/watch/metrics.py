"""What `driftctl watch` tells Prometheus: the live registry of one watch process.

Counters, gauges and a histogram that the parts of the process (leader, feed, workers,
passes) move as they work, and gauges read when scraped; shell.probes serves the registry
on /metrics. State of one process, so it lives with the process, not among the pure
renderers. Names (stable, alerts are written against them; docs/reference/metrics.md
lists them for users):

    driftctl_watch_reconciles_total{result}     reconciles of one WebApp: success, failed
    driftctl_watch_full_passes_total{reason}    full plan and apply runs: start, git, resync
    driftctl_watch_queue_depth                  WebApps waiting to be reconciled
    driftctl_watch_drift_correction_seconds     from a change seen (watch event) to the
                                                reconcile that corrected it
    driftctl_applied_revision_info{revision}    1, labelled with the Git commit applied
    driftctl_verified_revision_info{revision,key}  1, labelled with the Git commit last
                                                verified (--verify) and its signing key
    driftctl_watch_leader                       1 while this process holds the Lease
    driftctl_watch_git_polls_total              looks at the Git ref (fetching only when it moved)
    driftctl_watch_lease_writes_total           writes of the Lease (take, renew, release)
    driftctl_watch_lists_<plural>               LISTs of the informers of webapps, deployments
                                                (the first, then one per 410 Gone)
    driftctl_watch_watches_<plural>             WATCH requests of webapps, deployments started
    driftctl_watch_own_writes_pending           objects written by this process whose watch
                                                event has not come back yet
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

PREFIX = "driftctl_"
CORRECTION_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)


@dataclass
class WatchMetrics:
    """The registry of one watch process and its instruments."""

    registry: CollectorRegistry = field(init=False)
    reconciles: Counter = field(init=False)
    full_passes: Counter = field(init=False)
    corrections: Histogram = field(init=False)
    revision: Gauge = field(init=False)
    leader: Gauge = field(init=False)
    git_polls: Counter = field(init=False)
    lease_writes: Counter = field(init=False)
    verified_revision: Gauge = field(init=False)
    _revision_shown: str | None = None
    _verified_shown: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        self.reconciles = Counter(
            PREFIX + "watch_reconciles", "Reconciles of one WebApp, by result.", ["result"],
            registry=registry,
        )  # fmt: skip
        self.full_passes = Counter(
            PREFIX + "watch_full_passes", "Full plan and apply runs, by reason.", ["reason"],
            registry=registry,
        )  # fmt: skip
        self.corrections = Histogram(
            PREFIX + "watch_drift_correction_seconds",
            "Seconds from a change seen by the watch to the reconcile that corrected it.",
            buckets=CORRECTION_BUCKETS,
            registry=registry,
        )
        self.revision = Gauge(
            PREFIX + "applied_revision_info",
            "The Git commit last applied (value 1).",
            ["revision"],
            registry=registry,
        )
        self.leader = Gauge(
            PREFIX + "watch_leader", "1 while this process holds the Lease.", registry=registry
        )
        self.git_polls = Counter(
            PREFIX + "watch_git_polls", "Looks at the Git ref.", registry=registry
        )
        self.lease_writes = Counter(
            PREFIX + "watch_lease_writes", "Writes of the Lease.", registry=registry
        )
        self.verified_revision = Gauge(
            PREFIX + "verified_revision_info",
            "The Git commit last verified (--verify) and the key that signed it (value 1).",
            ["revision", "key"],
            registry=registry,
        )

    def gauge_of(self, name: str, documentation: str, read: Callable[[], float]) -> None:
        """A gauge read when scraped (the queue depth, an informer's counts)."""
        gauge = Gauge(PREFIX + name, documentation, registry=self.registry)
        gauge.set_function(read)

    def applied(self, revision: str) -> None:
        """Only the commit applied last is shown."""
        if self._revision_shown is not None and self._revision_shown != revision:
            self.revision.remove(self._revision_shown)
        self.revision.labels(revision).set(1)
        self._revision_shown = revision

    def verified(self, revision: str, key: str) -> None:
        """Only the commit verified last is shown, with its key."""
        if self._verified_shown is not None and self._verified_shown != (revision, key):
            self.verified_revision.remove(*self._verified_shown)
        self.verified_revision.labels(revision, key).set(1)
        self._verified_shown = (revision, key)
