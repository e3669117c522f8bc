"""Notifications: one digest per run, told once, to real receivers on loopback.

driftctl runs as the CronJob does (its own process each run, the ServiceAccount with
cronjob/'s RBAC), so what it told last can only come from the cluster: the ConfigMap
driftctl-<instance>-notified. The receivers: a webhook that checks every body's HMAC
signature, a real Alertmanager (Debian's, tests/support/alertmanager.py), and stand-ins
for GitHub's and GitLab's APIs that check each request against their documented shape
(tests/support/receivers.py says why no real forge can be used). Request counts are
exact; no wall-clock time is asserted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from driftctl import conventions as c
from tests.support import alertmanager as am
from tests.support.drift_cases import APPS, WARNED_BY_GIT, declared, scale
from tests.support.harness import LOCK_NAMESPACE, Harness, Ran
from tests.support.receivers import (
    Receiver,
    accepting,
    github_check,
    gitlab_check,
    never_answering,
    nobody_listening,
    serving,
    webhook_check,
)
from tests.support.rollouts import served

SECRET = b"notify-test-secret-8c1f"
GITHUB_TOKEN = "notify-test-github-token-5a2e"
GITLAB_TOKEN = "notify-test-gitlab-token-77d0"


@pytest.fixture
def webhook() -> Iterator[Receiver]:
    with serving(webhook_check(SECRET)) as receiver:
        yield receiver


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "webhook-secret"
    path.write_bytes(SECRET + b"\n")
    return path


def apply(harness: Harness, *flags: str) -> Ran:
    return harness.driftctl("apply", "--notify-timeout", "5", *flags)


def items(received: Receiver, index: int) -> list[tuple[str, str]]:
    """(category, object) of each item the webhook's `index`th body told."""
    return [(i["category"], i["object"]) for i in received.received[index].json["items"]]


def test_the_same_drift_is_told_once_and_a_change_of_it_again(
    harness: Harness, webhook: Receiver, secret_file: Path, tmp_path: Path
) -> None:
    slack_url = tmp_path / "slack-url"
    with serving(accepting) as slack:
        slack_url.write_text(slack.url + "/services/T0/B0/canary\n")
        flags = (
            *("--webhook-url", webhook.url + "/hook", "--webhook-secret-file", str(secret_file)),
            *("--slack-webhook-file", str(slack_url)),
        )
        harness.declare(APPS)
        first = apply(harness, *flags)
        assert first.code == 0, first.err
        deployment = f"Deployment/{harness.namespace}/shop"
        codes = []
        for replicas in ("5", "5", "5", "7"):  # three runs with the same drift, then another
            harness.kubectl(
                "scale", "deployment", "shop", f"--replicas={replicas}", "-n", harness.namespace
            )
            codes.append(apply(harness, *flags).code)

    assert codes == [0, 0, 0, 0]
    assert webhook.problems == []
    assert len(webhook.received) == 3, [r.json["items"] for r in webhook.received]
    assert ("applied", f"WebApp/{harness.namespace}/shop") in items(webhook, 0)
    assert items(webhook, 1) == [("drift", deployment)]
    assert items(webhook, 2) == [("drift", deployment)]
    told = [r.json["items"][0]["fields"] for r in webhook.received[1:]]
    assert told == [
        ["spec.replicas: 5 -> 2 (changed by kubectl)"],
        ["spec.replicas: 7 -> 2 (corrected 3 runs in a row; changed again by kubectl)"],
    ]  # the count of a fight is shown, but a new count alone is no news
    assert len(slack.received) == 3
    assert "Drift corrected" in slack.received[1].json["text"]
    record = harness.get("configmap", c.notified_name(harness.instance), LOCK_NAMESPACE)
    assert record is not None
    assert record["metadata"]["labels"][c.INSTANCE_LABEL] == harness.instance
    assert set(record["data"]) == {"webhook", "slack"}


def test_held_drift_is_told_again_only_when_its_value_changes(
    harness: Harness, webhook: Receiver, secret_file: Path
) -> None:
    flags = ("--webhook-url", webhook.url, "--webhook-secret-file", str(secret_file))
    declared(harness, "nginx:1.27", WARNED_BY_GIT, *flags)  # told: applied
    for replicas in (4, 4, 6):
        scale(harness, replicas)
        ran = apply(harness, *flags)
        assert ran.code == 0, ran.err

    deployment = f"Deployment/{harness.namespace}/shop"
    assert webhook.problems == []
    told = [r.json["items"] for r in webhook.received[1:]]
    assert [[(i["category"], i["object"]) for i in each] for each in told] == [
        [("held", deployment)],
        [("held", deployment)],
    ]  # 4 (told), 4 again (not told), 6 (told)
    assert [each[0]["fields"] for each in told] == [
        ["spec.replicas: 4 -> 2 (held)"],
        ["spec.replicas: 6 -> 2 (held)"],
    ]
    assert (harness.get("deployment", "shop") or {})["spec"]["replicas"] == 6


def test_an_invalid_commit_is_told_once_then_resolved(
    harness: Harness, webhook: Receiver, secret_file: Path
) -> None:
    flags = ("--webhook-url", webhook.url, "--webhook-secret-file", str(secret_file))
    harness.declare_text(
        "apiVersion: example.com/v1\nkind: WebApp\nmetadata: {name: bad}\nspec: {}\n"
    )
    runs = [apply(harness, *flags).code for _ in range(2)]
    harness.declare(APPS, "fixed")
    runs.append(apply(harness, *flags).code)

    assert runs == [3, 3, 0]
    assert webhook.problems == []
    assert len(webhook.received) == 2
    assert items(webhook, 0) == [("invalid", "run")]
    assert webhook.received[0].json["exitCode"] == 3
    assert webhook.received[1].json["resolved"] == [{"category": "invalid", "object": "run"}]


def test_alerts_fire_then_resolve_after_the_next_clean_run(
    harness: Harness, tmp_path: Path
) -> None:
    harness.kubectl("create", "deployment", "shop", "--image=nginx:1.25", "-n", harness.namespace)
    harness.declare(APPS)
    with am.running(tmp_path / "alertmanager") as alertmanager:
        flags = ("--alertmanager-url", alertmanager.url)
        conflicted = apply(harness, *flags)
        firing = ours(alertmanager, harness)
        harness.kubectl("delete", "deployment", "shop", "-n", harness.namespace)
        clean = apply(harness, *flags)
        after = ours(alertmanager, harness)

    assert conflicted.code == 5, conflicted.err
    assert "notification not sent" not in conflicted.err
    assert [(a["labels"]["alertname"], a["labels"]["object"]) for a in firing] == [
        ("DriftctlConflict", f"Deployment/{harness.namespace}/shop")
    ]
    assert firing[0]["status"]["state"] == "active"
    assert clean.code == 0, clean.err
    assert after == []


def ours(alertmanager: am.Alertmanager, harness: Harness) -> list[dict[str, Any]]:
    return [
        alert
        for alert in alertmanager.alerts()
        if alert["labels"].get("driftctl_instance") == harness.instance
    ]


def test_the_commit_applied_gets_each_state_once_on_github_and_gitlab(
    harness: Harness, tmp_path: Path, kube_client: client.ApiClient
) -> None:
    (tmp_path / "github").write_text(GITHUB_TOKEN)
    (tmp_path / "gitlab").write_text(GITLAB_TOKEN + "\n")
    with (
        serving(github_check(GITHUB_TOKEN)) as github,
        serving(gitlab_check(GITLAB_TOKEN)) as gitlab,
    ):
        flags = (
            *("--github-api", github.url, "--github-repo", "platform/webapps"),
            *("--github-token-file", str(tmp_path / "github"), "--github-environment", "prod"),
            *("--gitlab-api", gitlab.url + "/api/v4", "--gitlab-project", "platform/webapps"),
            *("--gitlab-token-file", str(tmp_path / "gitlab")),
        )
        commit = harness.declare(APPS)
        runs = [apply(harness, *flags).code]  # shop's rollout starts: pending
        served(kube_client, harness.namespace, "shop")  # as the controllers and a kubelet would
        runs += [apply(harness, *flags).code for _ in range(2)]  # complete; then the same state
        harness.kubectl("delete", "webapp", "shop", "-n", harness.namespace, "--wait=false")
        harness.kubectl(
            "create", "deployment", "blog", "--image=nginx:1.25", "-n", harness.namespace
        )
        broken = harness.declare({**APPS, "blog": ("nginx:1.27", 1)}, "blog")
        runs.append(apply(harness, *flags).code)

    assert runs == [0, 0, 0, 5]
    assert github.problems == []
    assert gitlab.problems == []
    paths = [each.path for each in github.received]
    assert paths == [
        f"/repos/platform/webapps/statuses/{commit}",
        "/repos/platform/webapps/deployments",
        "/repos/platform/webapps/deployments/100/statuses",
        f"/repos/platform/webapps/statuses/{commit}",
        "/repos/platform/webapps/deployments/100/statuses",
        f"/repos/platform/webapps/statuses/{broken}",
        "/repos/platform/webapps/deployments",
        "/repos/platform/webapps/deployments/101/statuses",
    ]
    states = [each.json["state"] for each in github.received if "state" in each.json]
    assert states == ["pending", "in_progress", "success", "success", "failure", "failure"]
    assert github.received[0].json["context"] == f"driftctl/{harness.instance}"
    assert [(each.path, each.json["state"]) for each in gitlab.received] == [
        (f"/api/v4/projects/platform%2Fwebapps/statuses/{commit}", "running"),
        (f"/api/v4/projects/platform%2Fwebapps/statuses/{commit}", "success"),
        (f"/api/v4/projects/platform%2Fwebapps/statuses/{broken}", "failed"),
    ]


def test_a_receiver_down_or_stuck_never_fails_the_run_and_is_told_later(
    harness: Harness, webhook: Receiver, secret_file: Path
) -> None:
    harness.kubectl("create", "deployment", "shop", "--image=nginx:1.25", "-n", harness.namespace)
    harness.declare(APPS)
    down = ("--webhook-url", nobody_listening(), "--notify-timeout", "2")
    with never_answering() as stuck:
        failed = harness.driftctl(
            "apply", *down, "--alertmanager-url", stuck, "--log-format", "json"
        )
    told = apply(harness, "--webhook-url", webhook.url, "--webhook-secret-file", str(secret_file))

    assert failed.code == 5, failed.err  # the conflict's, as without notifications
    warnings = [
        json.loads(line)["message"]
        for line in failed.err.splitlines()
        if json.loads(line).get("level") == "warning"
    ]
    assert any("notification not sent: the webhook at http://127.0.0.1" in w for w in warnings), (
        warnings
    )
    assert any("notification not sent: Alertmanager at" in w for w in warnings), warnings
    # What the failed receiver was not told stays to tell: the conflict, still there.
    assert told.code == 5
    assert len(webhook.received) == 1
    assert ("conflict", f"Deployment/{harness.namespace}/shop") in items(webhook, 0)
