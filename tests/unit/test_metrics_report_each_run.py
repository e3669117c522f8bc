"""What a run pushes to the Pushgateway: the batch-job gauges, and the success-only ones
(last success, applied revision) only when the run succeeded."""

from __future__ import annotations

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from driftctl import conventions as c
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome
from driftctl.render.metrics import RunResult, grouping_key, run_registry
from driftctl.settings import Shard

SHOP = ObjectKey(c.KIND, "web", "shop")
BLOG = ObjectKey(c.KIND, "web", "blog")
REVISION = "b" * 40


def samples(result: RunResult) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = generate_latest(run_registry(result)).decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_a_successful_run_reports_its_success_revision_and_objects() -> None:
    report = ApplyReport(
        (
            ObjectOutcome(SHOP, Outcome.CONFIGURED),
            ObjectOutcome(BLOG, Outcome.DELETED),
            ObjectOutcome(SHOP, Outcome.UNCHANGED),
        ),
        REVISION,
    )

    got = samples(RunResult(0, 1_800_000_000.5, 2.5, Shard(index=1, count=3), report))

    assert got[("driftctl_last_success_timestamp_seconds", ())] == 1_800_000_000.5
    assert got[("driftctl_last_run_timestamp_seconds", ())] == 1_800_000_000.5
    assert got[("driftctl_last_run_success", ())] == 1
    assert got[("driftctl_last_run_exit_code", ())] == 0
    assert got[("driftctl_last_run_duration_seconds", ())] == 2.5
    assert got[("driftctl_applied_revision_info", (("revision", REVISION),))] == 1
    assert got[("driftctl_last_run_drifted_objects", ())] == 1
    assert got[("driftctl_last_run_pruned_objects", ())] == 1
    assert got[("driftctl_last_run_failed_objects", ())] == 0
    assert got[("driftctl_shards", ())] == 3
    by_outcome = {
        labels[0][1]: value
        for (name, labels), value in got.items()
        if name == "driftctl_last_run_objects" and labels
    }
    assert by_outcome == {
        "created": 0,
        "configured": 1,
        "unchanged": 1,
        "deleted": 1,
        "skipped": 0,
        "failed": 0,
        "held": 0,
        "orphaned": 0,
        "waiting": 0,
    }


def test_a_failed_run_leaves_out_the_last_success_and_the_revision() -> None:
    report = ApplyReport((ObjectOutcome(SHOP, Outcome.FAILED, "422"),), REVISION)

    failed = samples(RunResult(5, 1_800_000_300.0, 1.0, Shard(), report))
    stopped = samples(RunResult(4, 1_800_000_600.0, 0.2, Shard()))

    for got in (failed, stopped):
        assert ("driftctl_last_success_timestamp_seconds", ()) not in got
        assert not any(name == "driftctl_applied_revision_info" for name, _ in got)
        assert got[("driftctl_last_run_success", ())] == 0
    assert failed[("driftctl_last_run_failed_objects", ())] == 1
    assert failed[("driftctl_last_run_exit_code", ())] == 5
    assert stopped[("driftctl_last_run_objects", (("outcome", "created"),))] == 0
    assert stopped[("driftctl_last_run_exit_code", ())] == 4


def test_the_group_is_instance_and_shard_never_a_pod() -> None:
    assert grouping_key("blue", Shard(index=2, count=3)) == {"instance": "blue", "shard": "2"}
    assert grouping_key("blue", Shard()) == {"instance": "blue", "shard": "0"}
