"""cronjob/sharded/: a Component that makes the CronJob an Indexed Job the API server
accepts, whose Pods split the work by their completion index alone, with retries per
index. Without it (cronjob/ as shipped) the CronJob is one unsharded Job."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import Harness
from tests.support.kustomize import CRONJOB, named, relative, render, write_overlay

APPS = {f"app-{number}": ("nginx:1.27", 1) for number in range(6)}


@pytest.fixture
def sharded(harness: Harness, tmp_path: Path) -> dict[str, Any]:
    """The CronJob of an overlay of cronjob/ with the sharded Component."""
    folder = tmp_path / "overlay"
    write_overlay(folder, [CRONJOB], components=[relative(folder, CRONJOB / "sharded")])
    return named(render(kubectl_of(harness), folder), "CronJob", "driftctl")


def kubectl_of(harness: Harness) -> Path:
    return Path(harness.kubectl_argv[0])


def job_spec(cronjob: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = cronjob["spec"]["jobTemplate"]["spec"]
    return spec


def env_of(cronjob: dict[str, Any]) -> dict[str, str]:
    [container] = job_spec(cronjob)["template"]["spec"]["containers"]
    return {item["name"]: item["value"] for item in container.get("env", []) if "value" in item}


def test_the_api_server_accepts_it_and_it_shards_only_when_the_component_is_added(
    harness: Harness, sharded: dict[str, Any]
) -> None:
    # The harness's ServiceAccount set-up made driftctl-system, the CronJob's namespace.
    accepted = json.loads(
        harness.kubectl(
            "apply", "--dry-run=server", "-f", "-", "-o", "json", stdin=json.dumps(sharded)
        )
    )

    spec = job_spec(accepted)
    assert accepted["spec"]["concurrencyPolicy"] == "Forbid"
    assert spec["completionMode"] == "Indexed"
    assert (
        spec["completions"] == spec["parallelism"] == int(env_of(accepted)["DRIFTCTL_SHARD_COUNT"])
    )
    assert spec["backoffLimitPerIndex"] >= 0
    assert "DRIFTCTL_SHARD_INDEX" not in env_of(accepted)  # JOB_COMPLETION_INDEX gives it
    assert spec["template"]["spec"]["serviceAccountName"] == "driftctl"
    unsharded = named(render(kubectl_of(harness), CRONJOB), "CronJob", "driftctl")
    assert "completionMode" not in job_spec(unsharded)
    assert "DRIFTCTL_SHARD_COUNT" not in env_of(unsharded)


def test_its_pods_split_the_work_by_their_completion_index(
    harness: Harness, sharded: dict[str, Any]
) -> None:
    count = job_spec(sharded)["completions"]
    shard_env = {"DRIFTCTL_SHARD_COUNT": env_of(sharded)["DRIFTCTL_SHARD_COUNT"]}
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
