"""cronjob/sharded/: an Indexed Job CronJob the API server accepts, whose Pods split the
work by their completion index alone, with retries per index."""

from __future__ import annotations

import json
from typing import Any

import yaml

from tests.conftest import ROOT
from tests.integration.harness import Harness

MANIFEST = ROOT / "cronjob" / "sharded" / "cronjob.yaml"
APPS = {f"app-{number}": ("nginx:1.27", 1) for number in range(6)}


def job_spec(cronjob: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = cronjob["spec"]["jobTemplate"]["spec"]
    return spec


def env_of(cronjob: dict[str, Any]) -> dict[str, str]:
    [container] = job_spec(cronjob)["template"]["spec"]["containers"]
    return {item["name"]: item["value"] for item in container["env"] if "value" in item}


def test_the_api_server_accepts_it_and_it_is_off_by_default(harness: Harness) -> None:
    # The harness's ServiceAccount set-up made driftctl-system, the CronJob's namespace.
    accepted = json.loads(
        harness.kubectl("apply", "--dry-run=server", "-f", str(MANIFEST), "-o", "json")
    )

    spec = job_spec(accepted)
    assert accepted["spec"]["suspend"] is True
    assert accepted["spec"]["concurrencyPolicy"] == "Forbid"
    assert spec["completionMode"] == "Indexed"
    assert (
        spec["completions"] == spec["parallelism"] == int(env_of(accepted)["DRIFTCTL_SHARD_COUNT"])
    )
    assert spec["backoffLimitPerIndex"] >= 0
    assert "DRIFTCTL_SHARD_INDEX" not in env_of(accepted)  # JOB_COMPLETION_INDEX gives it
    assert spec["template"]["spec"]["serviceAccountName"] == "driftctl"


def test_its_pods_split_the_work_by_their_completion_index(harness: Harness) -> None:
    cronjob = yaml.safe_load(MANIFEST.read_text())
    count = job_spec(cronjob)["completions"]
    shard_env = {"DRIFTCTL_SHARD_COUNT": env_of(cronjob)["DRIFTCTL_SHARD_COUNT"]}
    harness.declare(APPS)

    # What each Pod of the Job runs: the manifest's shard count, and the index the Job sets.
    runs = [
        harness.driftctl("apply", env={**shard_env, "JOB_COMPLETION_INDEX": str(index)})
        for index in range(count)
    ]

    assert [ran.code for ran in runs] == [0] * count, [ran.err for ran in runs]
    created = [line for ran in runs for line in ran.out.splitlines() if line.startswith("created")]
    assert len(created) == len(set(created)) == 2 * len(APPS)
    assert harness.driftctl("plan").code == 0
