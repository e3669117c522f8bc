"""A run of `apply` as Prometheus metrics: a registry of gauges, ready to push. Pure.

Builds values only; shell.pushgateway sends them. Batch jobs report the way Prometheus
recommends for them: one group per job, instance and shard in a Pushgateway (no per-Pod
label, so a new Pod every five minutes does not add series), gauges describing the last
run, pushed with push-add. Push-add replaces only the metrics a push carries, so the
last-success timestamp and the applied revision, which only a successful run pushes,
survive a failed run.

Names (stable: alerts are written against them; every one carries the grouping labels
job="driftctl", instance, shard):

    driftctl_last_success_timestamp_seconds  end of the last successful run (exit 0)
    driftctl_last_run_timestamp_seconds      end of the last run, whatever its result
    driftctl_last_run_success                1 when the last run succeeded, else 0
    driftctl_last_run_exit_code              the last run's exit code (0, 3, 4, 5, 6, 130)
    driftctl_last_run_duration_seconds       how long the last run took
    driftctl_last_run_objects{outcome}       objects by outcome: created, configured,
                                             unchanged, deleted, skipped, failed
    driftctl_last_run_drifted_objects        objects that differed from Git and were updated
    driftctl_last_run_pruned_objects         objects deleted (pruned, or cleaned up)
    driftctl_last_run_failed_objects         objects that failed
    driftctl_applied_revision_info{revision} 1, labelled with the Git commit of the last
                                             successful run
    driftctl_verified_revision_info{revision,key}
                                             1, labelled with the Git commit the last run
                                             verified (--verify) and the fingerprint of the
                                             key that signed it
    driftctl_shards                          the shard count the run was part of

A run that stopped before it applied anything (invalid Git, cluster unreachable, lock
held) reports zero objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftctl.core.planning.outcomes import ApplyReport, Outcome
from driftctl.errors import ExitCode
from driftctl.settings import Shard

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

PREFIX = "driftctl_"


@dataclass(frozen=True)
class RunResult:
    """What one apply run ended with: its exit code and report (None: it stopped early)."""

    exit_code: int
    finished: float  # Unix time, seconds
    duration: float  # seconds
    shard: Shard
    report: ApplyReport | None = None
    verified: tuple[str, str] | None = None  # the commit --verify checked, and its signer

    @property
    def succeeded(self) -> bool:
        return self.exit_code == ExitCode.OK


def grouping_key(instance: str, shard: Shard) -> dict[str, str]:
    """The Pushgateway group of one instance's shard (with job=driftctl): no per-Pod label."""
    return {"instance": instance, "shard": str(shard.index)}


def run_registry(result: RunResult) -> CollectorRegistry:
    """The gauges one run pushes; the success-only ones only when it succeeded."""
    from prometheus_client import CollectorRegistry, Gauge  # only runs that push pay for it

    registry = CollectorRegistry(auto_describe=True)

    def gauge(name: str, documentation: str, value: float) -> None:
        Gauge(PREFIX + name, documentation, registry=registry).set(value)

    if result.succeeded:
        gauge(
            "last_success_timestamp_seconds",
            "Unix time the last successful run ended.",
            result.finished,
        )
        _revision(registry, result.report.revision if result.report else "")
    if result.verified is not None:
        _verified(registry, *result.verified)
    gauge("last_run_timestamp_seconds", "Unix time the last run ended.", result.finished)
    gauge("last_run_success", "1 when the last run succeeded, else 0.", int(result.succeeded))
    gauge("last_run_exit_code", "Exit code of the last run.", result.exit_code)
    gauge("last_run_duration_seconds", "How long the last run took.", result.duration)
    gauge("shards", "How many shards the instance was split into.", result.shard.count)
    counts = {outcome: _count(result.report, outcome) for outcome in Outcome}
    by_outcome = Gauge(
        PREFIX + "last_run_objects",
        "Objects of the last run, by outcome.",
        ["outcome"],
        registry=registry,
    )
    for outcome, count in counts.items():
        by_outcome.labels(str(outcome)).set(count)
    gauge(
        "last_run_drifted_objects",
        "Objects of the last run that differed from Git and were updated.",
        counts[Outcome.CONFIGURED],
    )
    gauge(
        "last_run_pruned_objects",
        "Objects the last run deleted.",
        counts[Outcome.DELETED],
    )
    gauge("last_run_failed_objects", "Objects that failed in the last run.", counts[Outcome.FAILED])
    return registry


def _revision(registry: CollectorRegistry, revision: str) -> None:
    from prometheus_client import Gauge

    info = Gauge(
        PREFIX + "applied_revision_info",
        "The Git commit the last successful run applied (value 1).",
        ["revision"],
        registry=registry,
    )
    info.labels(revision).set(1)


def _verified(registry: CollectorRegistry, revision: str, key: str) -> None:
    from prometheus_client import Gauge

    info = Gauge(
        PREFIX + "verified_revision_info",
        "The Git commit the last run verified (--verify) and the key that signed it (value 1).",
        ["revision", "key"],
        registry=registry,
    )
    info.labels(revision, key).set(1)


def _count(report: ApplyReport | None, outcome: Outcome) -> int:
    return report.count(outcome) if report is not None else 0
