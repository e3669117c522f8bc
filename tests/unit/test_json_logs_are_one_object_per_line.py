"""--log-format json: every line is one JSON object with time, level, message, the event's
fields and the run's context; secrets never appear."""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.planning.actions import Create, Plan, Skip, Unchanged
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome
from driftctl.errors import InvalidDesiredState, LockHeld, Problem
from driftctl.render import log
from driftctl.shell.git_auth import secrets_of
from tests.support.clirun import run_driftctl

SHOP = ObjectKey(c.KIND, "web", "shop")
MOMENT = datetime.datetime(2026, 11, 30, 10, 30, 0, 123456, tzinfo=datetime.UTC)
CONTEXT = log.LogContext("blue", 1, 3, "a" * 40)
FIRST_KEYS = ["time", "level", "message", "event", "instance", "shard", "shard_count", "revision"]


def line(record: log.Record, context: log.LogContext = CONTEXT) -> dict[str, Any]:
    text = log.json_line(record, context, MOMENT)
    assert "\n" not in text
    parsed: dict[str, Any] = json.loads(text)
    assert list(parsed)[: len(FIRST_KEYS)] == FIRST_KEYS
    return parsed


def test_an_object_line_names_the_object_its_outcome_and_the_run() -> None:
    parsed = line(log.outcome_record(ObjectOutcome(SHOP, Outcome.CONFIGURED)))

    assert parsed == {
        "time": "2026-11-30T10:30:00.123Z",
        "level": "info",
        "message": "configured WebApp/web/shop",
        "event": "object",
        "instance": "blue",
        "shard": 1,
        "shard_count": 3,
        "revision": "a" * 40,
        "kind": "WebApp",
        "namespace": "web",
        "name": "shop",
        "outcome": "configured",
        "reason": "",
    }


@pytest.mark.parametrize(
    ("outcome", "level"),
    [
        pytest.param(Outcome.FAILED, "error", id="failed"),
        pytest.param(Outcome.SKIPPED, "warning", id="skipped"),
        pytest.param(Outcome.DELETED, "info", id="deleted"),
    ],
)
def test_the_level_follows_the_outcome(outcome: Outcome, level: str) -> None:
    parsed = line(log.outcome_record(ObjectOutcome(SHOP, outcome, "because")))

    assert parsed["level"] == level
    assert parsed["reason"] == "because"


def test_a_plan_line_carries_the_action() -> None:
    create = Create(SHOP, "declared in Git, absent from the cluster", {}, ())

    parsed = line(log.action_record(create))
    skipped = line(log.action_record(Skip(SHOP, "protected")))

    assert parsed["action"] == "create"
    assert (
        parsed["message"] == "+ WebApp/web/shop: create (declared in Git, absent from the cluster)"
    )
    assert (skipped["action"], skipped["level"]) == ("skip", "warning")


def test_the_summary_counts_every_outcome_with_the_exit_code_and_duration() -> None:
    report = ApplyReport(
        (ObjectOutcome(SHOP, Outcome.CREATED), ObjectOutcome(SHOP, Outcome.FAILED, "422")),
        "a" * 40,
    )

    parsed = line(log.apply_summary(report, 1.23456))

    assert parsed["event"] == "summary"
    assert parsed["level"] == "error"
    assert parsed["exit_code"] == 5
    assert parsed["duration_seconds"] == 1.235
    assert parsed["outcomes"] == {
        "created": 1,
        "configured": 0,
        "unchanged": 0,
        "deleted": 0,
        "skipped": 0,
        "failed": 1,
        "held": 0,
        "orphaned": 0,
        "waiting": 0,
    }


def test_a_plan_summary_counts_actions() -> None:
    plan = Plan((Unchanged(SHOP),), (SHOP,), (), "a" * 40)

    parsed = line(log.plan_summary(plan, 0, 0.5))

    assert parsed["actions"]["unchanged"] == 1
    assert (parsed["exit_code"], parsed["level"]) == (0, "info")


def test_an_error_line_has_its_exit_code_hint_and_problems() -> None:
    invalid = InvalidDesiredState([Problem("apps/a.yaml", 3, 5, "bad")])

    parsed = line(log.error_record(invalid))
    locked = line(log.error_record(LockHeld("another run holds the lock", hint="wait")))
    stopped = line(log.stopped_summary("apply", 6, 0.1))

    assert parsed["exit_code"] == 3
    assert parsed["problems"] == ["apps/a.yaml:3:5: bad"]
    assert (locked["exit_code"], locked["hint"]) == (6, "wait")
    assert (stopped["outcomes"], stopped["exit_code"]) == (None, 6)


def test_secrets_are_redacted_from_every_string() -> None:
    environ = {"DRIFTCTL_GIT_TOKEN": "s3cr3t-token"}
    secrets = secrets_of("https://git.example.org/team/apps.git", environ)
    basic = base64.b64encode(b"x-access-token:s3cr3t-token").decode()
    context = log.LogContext("blue", secrets=secrets)
    record = log.Record(
        log.Level.ERROR,
        "error",
        f"git said s3cr3t-token and Authorization: Basic {basic}",
        {"problems": ["s3cr3t-token"], "hint": None},
    )

    text = log.json_line(record, context, MOMENT)

    assert "s3cr3t" not in text
    assert basic not in text
    assert json.loads(text)["problems"] == ["****"]


def test_a_password_in_the_repository_url_is_a_secret_too() -> None:
    secrets = secrets_of("https://bot:hunter2@git.example.org/apps.git", {})

    assert "hunter2" in secrets
    assert secrets_of("/a/local/path", {}) == ()
    assert secrets_of("ext::sh -c evil", {}) == ()  # refused: nothing was used


def test_a_usage_error_in_json_mode_is_a_json_error_and_a_summary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_LOG_FORMAT", "json")

    ran = run_driftctl(
        ["apply", "--repo", "/nonexistent", "--shard-count", "2", "--shard-index", "5"],
        capsys,
        monkeypatch,
    )

    error, summary = (json.loads(text) for text in ran.err.splitlines())
    assert ran.code == 2
    assert ran.out == ""
    assert error["event"] == "error"
    assert error["message"].startswith("--shard-index must be 0 to 1 for --shard-count 2")
    assert (summary["event"], summary["exit_code"], summary["shard"]) == ("summary", 2, 5)
