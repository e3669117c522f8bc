"""apply pushes its metrics to a real Pushgateway when the run ends, the batch-job way:
one group per job/instance/shard, push-add, last success kept through failed runs; a
Pushgateway that is down or refuses is a warning, never a failed run."""

from __future__ import annotations

import json

from tests.support.gitrepos import free_port
from tests.support.harness import Harness
from tests.support.pushgateway import Pushgateway

APPS = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.28", 1)}


def test_the_last_success_survives_failed_runs(harness: Harness, pushgateway: Pushgateway) -> None:
    first = harness.declare(APPS)
    succeeded = harness.driftctl("apply", "--pushgateway", pushgateway.url)
    assert succeeded.code == 0, succeeded.err
    after_success = pushgateway.group(harness.instance)

    harness.declare({}, "empty: the prune guard refuses")
    refused = harness.driftctl("apply", "--pushgateway", pushgateway.url)
    after_refusal = pushgateway.group(harness.instance)
    harness.repo.write({"apps/broken.yaml": "kind: [\n"})
    harness.repo.commit("invalid YAML")
    invalid = harness.driftctl("apply", "--pushgateway", pushgateway.url)
    after_invalid = pushgateway.group(harness.instance)

    success_time = after_success["driftctl_last_success_timestamp_seconds"].value
    assert after_success["driftctl_last_run_success"].value == 1
    assert after_success["driftctl_last_run_exit_code"].value == 0
    assert after_success[f"driftctl_applied_revision_info{{revision={first}}}"].value == 1
    assert after_success["driftctl_last_run_objects{outcome=created}"].value == 4
    assert after_success["driftctl_last_run_drifted_objects"].value == 0
    assert after_success["driftctl_last_run_duration_seconds"].value > 0
    assert after_success["driftctl_shards"].value == 1
    # The grouping key is the whole label set: no Pod name, no per-run label.
    assert after_success["driftctl_last_run_success"].labels == {
        "job": "driftctl",
        "instance": harness.instance,
        "shard": "0",
    }

    assert refused.code == 5
    assert after_refusal["driftctl_last_run_success"].value == 0
    assert after_refusal["driftctl_last_run_exit_code"].value == 5
    assert after_refusal["driftctl_last_run_objects{outcome=skipped}"].value == 2
    assert after_refusal["driftctl_last_success_timestamp_seconds"].value == success_time

    assert invalid.code == 3
    assert after_invalid["driftctl_last_run_exit_code"].value == 3
    assert after_invalid["driftctl_last_run_objects{outcome=skipped}"].value == 0
    assert after_invalid["driftctl_last_success_timestamp_seconds"].value == success_time
    revisions = [name for name in after_invalid if name.startswith("driftctl_applied_revision")]
    assert revisions == [f"driftctl_applied_revision_info{{revision={first}}}"]


def test_a_drift_correction_and_a_prune_are_counted(
    harness: Harness, pushgateway: Pushgateway
) -> None:
    harness.declare({**APPS, "docs": ("nginx:1.27", 1)})
    assert harness.driftctl("apply").code == 0
    harness.kubectl("scale", "deployment/shop", "--replicas=5", "-n", harness.namespace)
    harness.declare(APPS, "drop docs")

    applied = harness.driftctl("apply", "--pushgateway", pushgateway.url)

    assert applied.code == 0, applied.err
    group = pushgateway.group(harness.instance)
    assert group["driftctl_last_run_drifted_objects"].value == 1
    assert group["driftctl_last_run_pruned_objects"].value == 1
    assert group["driftctl_last_run_failed_objects"].value == 0
    assert group["driftctl_last_run_objects{outcome=unchanged}"].value == 3


def test_a_pushgateway_that_is_down_is_a_warning_not_a_failure(harness: Harness) -> None:
    harness.declare(APPS)
    nobody = f"http://127.0.0.1:{free_port()}"

    ran = harness.driftctl("apply", "--pushgateway", nobody)

    assert ran.code == 0, ran.err
    assert f"warning: metrics not pushed: the Pushgateway at {nobody} is unreachable" in ran.err
    assert harness.names("webapps") == ["blog", "shop"]


def test_a_push_the_pushgateway_refuses_is_a_warning_in_the_json_log(
    harness: Harness, pushgateway: Pushgateway
) -> None:
    harness.declare(APPS)
    wrong = f"{pushgateway.url}/not-the-api"

    ran = harness.driftctl("apply", "--pushgateway", wrong, "--log-format", "json")

    assert ran.code == 0, ran.err
    lines = [json.loads(line) for line in ran.err.splitlines()]
    [warning] = [line for line in lines if line["event"] == "warning"]
    assert warning["level"] == "warning"
    assert warning["message"].startswith(
        f"metrics not pushed: the Pushgateway at {wrong} answered 404 Not Found"
    )
    assert lines[-1]["event"] == "summary"
    assert lines[-1]["exit_code"] == 0
