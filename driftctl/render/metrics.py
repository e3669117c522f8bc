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
                                             unchanged, deleted, skipped, failed, held,
                                             orphaned
    driftctl_last_run_drifted_objects        objects that differed from Git and were updated
    driftctl_last_run_pruned_objects         objects deleted (pruned, or cleaned up)
    driftctl_last_run_failed_objects         objects that failed
    driftctl_last_run_rollouts{result}       WebApps by their rollout as the run last saw
                                             it: complete, progressing, stalled, timed_out
                                             (apply --wait: still progressing at the end)
    driftctl_last_run_held_objects{control}  objects a control held: instance, suspend,
                                             changes, drift, window, removal
    driftctl_instance_suspended              1 when the last run found the instance suspended
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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftctl.core.planning.controls import Control
from driftctl.core.planning.outcomes import ApplyReport, Outcome, RolloutState
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
    from prometheus_client import CollectorRegistry  # only runs that push pay for it

    registry = CollectorRegistry(auto_describe=True)
    report = result.report
    if result.succeeded:
        _gauge(
            registry,
            "last_success_timestamp_seconds",
            "Unix time the last successful run ended.",
            result.finished,
        )
        _revision(registry, report.revision if report else "")
    if result.verified is not None:
        _verified(registry, *result.verified)
    _last_run(registry, result)
    _objects(registry, report)
    rollouts = {
        str(state): report.count_rollouts(state) if report is not None else 0
        for state in RolloutState
    }
    _labelled(
        registry,
        "last_run_rollouts",
        "WebApps of the last run by their rollout as it last saw it.",
        "result",
        rollouts,
    )
    held_by = dict(report.held) if report else {}
    held = {str(control): held_by.get(str(control), 0) for control in Control}
    _labelled(
        registry,
        "last_run_held_objects",
        "Objects whose change a control held in the last run, by control.",
        "control",
        held,
    )
    suspended = bool(report and report.suspended)
    _gauge(
        registry,
        "instance_suspended",
        "1 while the instance is suspended (its Lease says so).",
        suspended,
    )
    return registry


def _last_run(registry: CollectorRegistry, result: RunResult) -> None:
    """What every run pushes about itself: when it ended, how, how long, how many shards."""
    _gauge(registry, "last_run_timestamp_seconds", "Unix time the last run ended.", result.finished)
    _gauge(
        registry,
        "last_run_success",
        "1 when the last run succeeded, else 0.",
        int(result.succeeded),
    )
    _gauge(registry, "last_run_exit_code", "Exit code of the last run.", result.exit_code)
    _gauge(registry, "last_run_duration_seconds", "How long the last run took.", result.duration)
    _gauge(registry, "shards", "How many shards the instance was split into.", result.shard.count)


def _objects(registry: CollectorRegistry, report: ApplyReport | None) -> None:
    """The run's objects by outcome, and the drifted, pruned and failed among them."""
    counts = {outcome: _count(report, outcome) for outcome in Outcome}
    by_outcome = {str(outcome): count for outcome, count in counts.items()}
    _labelled(
        registry,
        "last_run_objects",
        "Objects of the last run, by outcome.",
        "outcome",
        by_outcome,
    )
    _gauge(
        registry,
        "last_run_drifted_objects",
        "Objects of the last run that differed from Git and were updated.",
        counts[Outcome.CONFIGURED],
    )
    _gauge(
        registry,
        "last_run_pruned_objects",
        "Objects the last run deleted.",
        counts[Outcome.DELETED],
    )
    _gauge(
        registry,
        "last_run_failed_objects",
        "Objects that failed in the last run.",
        counts[Outcome.FAILED],
    )


def _gauge(registry: CollectorRegistry, name: str, documentation: str, value: float) -> None:
    from prometheus_client import Gauge

    Gauge(PREFIX + name, documentation, registry=registry).set(value)


def _labelled(
    registry: CollectorRegistry,
    name: str,
    documentation: str,
    label: str,
    numbers: Mapping[str, float],
) -> None:
    """One gauge with one label: a number per value of `label`, in the order given."""
    from prometheus_client import Gauge

    gauge = Gauge(PREFIX + name, documentation, [label], registry=registry)
    for value, number in numbers.items():
        gauge.labels(value).set(number)


def _revision(registry: CollectorRegistry, revision: str) -> None:
    _labelled(
        registry,
        "applied_revision_info",
        "The Git commit the last successful run applied (value 1).",
        "revision",
        {revision: 1},
    )


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
