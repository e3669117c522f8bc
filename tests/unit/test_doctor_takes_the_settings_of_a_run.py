"""`driftctl doctor` takes the settings of the run it checks: the groups of apply's request
that say where the run reads, whom it reaches, where it locks, what it verifies and whom
it tells, declared once and taken by naming "doctor" in their command sets; and a run's
--config file, whose other keys it sets aside."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftctl.settings import Cluster, Lock, Notify, Shard, Source, Verify
from driftctl.settings.declare import taken_by
from driftctl.settings.requests import groups_taken_by
from tests.support.clirun import run_driftctl

RUN_GROUPS = (Source, Cluster, Shard, Lock, Verify, Notify)


def test_doctor_takes_every_setting_of_a_runs_groups_but_its_pacing() -> None:
    doctors = groups_taken_by("doctor")
    assert set(RUN_GROUPS) <= set(doctors)

    left = {
        each.name
        for group in RUN_GROUPS
        for each in taken_by(group, "apply")
        if each not in taken_by(group, "doctor")
    }

    # How hard a run presses, how long it waits for the lock, a rewind it may apply: what a
    # run does, not what it needs.
    assert left == {"concurrency", "lock-timeout", "allow-rewind"}


def test_a_runs_settings_file_is_read_as_the_run_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(
        "repo: https://git.example.com/you/webapps.git\nref: main\npath: apps\n"
        "max-prune: 25%\nconcurrency: 4\nlock-namespace: ops\nshard-count: 2\n"
        "shard-index: 1\nwebhook-url: https://hooks.example.com/driftctl\n"
    )

    ran = run_driftctl(["config", "view", "doctor", "--config", str(config)], capsys, monkeypatch)

    assert ran.code == 0, ran.err
    lines = {line.split()[0]: line.split()[1:] for line in ran.out.splitlines()[2:] if line.strip()}
    assert lines["repo"][0] == f"{config}:1"
    assert lines["lock-namespace"] == [f"{config}:6", "ops"]
    assert lines["shard-index"] == [f"{config}:8", "1"]
    assert lines["webhook-url"][0] == f"{config}:9"
    assert "unused by doctor: max-prune (" in ran.out  # set aside, not refused
