"""The WebApp status: replicas, ready, kstatus conditions, and a second run writes nothing."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.planning.status import status_update, webapp_status
from tests.support.builders import REVISION, status_deployment, status_webapp

EARLIER = datetime.datetime(2026, 11, 20, 10, 0, 5, tzinfo=datetime.UTC)
NOW = datetime.datetime(2026, 11, 21, 12, 30, 0, tzinfo=datetime.UTC)


DEADLINE = {
    "type": "Progressing",
    "status": "False",
    "reason": "ProgressDeadlineExceeded",
    "message": 'ReplicaSet "shop-1" has timed out progressing.',
}


@pytest.mark.parametrize(
    ("dep", "ready", "conditions"),
    [
        pytest.param(
            status_deployment(3), True, [("Ready", "True", "Available")], id="all-available"
        ),
        pytest.param(
            status_deployment(1),
            False,
            [
                ("Ready", "False", "ReplicasUnavailable"),
                ("Reconciling", "True", "ReplicasUnavailable"),
            ],
            id="some-unavailable",
        ),
        pytest.param(
            status_deployment(None),
            False,
            [
                ("Ready", "False", "ReplicasUnavailable"),
                ("Reconciling", "True", "ReplicasUnavailable"),
            ],
            id="no-available-field-means-zero",
        ),
        pytest.param(
            status_deployment(3, observed=1),
            False,
            [
                ("Ready", "False", "DeploymentNotObserved"),
                ("Reconciling", "True", "DeploymentNotObserved"),
            ],
            id="latest-generation-not-observed",
        ),
        pytest.param(
            status_deployment(1, conditions=[DEADLINE]),
            False,
            [
                ("Ready", "False", "ProgressDeadlineExceeded"),
                ("Stalled", "True", "ProgressDeadlineExceeded"),
            ],
            id="deadline-exceeded-stalls",
        ),
        pytest.param(
            None,
            False,
            [("Ready", "False", "DeploymentMissing"), ("Reconciling", "True", "DeploymentMissing")],
            id="deployment-missing",
        ),
    ],
)
def test_conditions_follow_the_deployment(
    dep: dict[str, Any] | None, ready: bool, conditions: list[tuple[str, str, str]]
) -> None:
    status = webapp_status(status_webapp(), dep, NOW)

    assert status["ready"] is ready
    assert [
        (cond["type"], cond["status"], cond["reason"]) for cond in status["conditions"]
    ] == conditions


def test_status_fields_keep_the_seed_operator_names() -> None:
    status = webapp_status(status_webapp(), status_deployment(2), NOW)

    assert status["available_replicas"] == 2
    assert status["observedGeneration"] == 4
    assert status["lastAppliedRevision"] == REVISION
    assert set(status) == {
        "available_replicas",
        "ready",
        "observedGeneration",
        "conditions",
        "lastAppliedRevision",
    }


def test_zero_replicas_are_ready_at_once() -> None:
    status = webapp_status(status_webapp(replicas=0), status_deployment(None, replicas=0), NOW)

    assert status["ready"] is True


def test_once_a_completion_is_confirmed_the_next_run_writes_nothing() -> None:
    """The first run sees the rollout complete, the second (10 s or more later) confirms
    it and records what serves (core.planning.status.confirmed), the third writes nothing."""
    first = status_update(status_webapp(), status_deployment(3), EARLIER)
    second = status_update(status_webapp(status=first.status), status_deployment(3), NOW)

    third = status_update(status_webapp(status=second.status), status_deployment(3), NOW)

    assert first.changed
    assert "servingRevision" not in first.status
    assert second.changed
    assert second.status == {**first.status, "servingRevision": second.status["servingRevision"]}
    assert not third.changed
    assert third.status == second.status


def test_transition_time_is_kept_while_the_status_stays() -> None:
    before = webapp_status(status_webapp(), status_deployment(1), EARLIER)

    after = webapp_status(status_webapp(status=before), status_deployment(1, observed=1), NOW)

    times = {cond["type"]: cond["lastTransitionTime"] for cond in after["conditions"]}
    assert times == {"Ready": "2026-11-20T10:00:05Z", "Reconciling": "2026-11-20T10:00:05Z"}
    assert after["conditions"][0]["reason"] == "DeploymentNotObserved"


def test_transition_time_moves_when_the_status_flips() -> None:
    before = webapp_status(status_webapp(), status_deployment(1), EARLIER)

    after = webapp_status(status_webapp(status=before), status_deployment(3), NOW)

    assert after["conditions"] == [
        {
            "type": "Ready",
            "status": "True",
            "reason": "Available",
            "message": "3/3 replicas available",
            "observedGeneration": 4,
            "lastTransitionTime": "2026-11-21T12:30:00Z",
        }
    ]


def test_status_manifest_carries_identity_and_status_only() -> None:
    update = status_update(status_webapp(), status_deployment(3), NOW)

    assert update.manifest == {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {"name": "shop", "namespace": "web"},
        "status": update.status,
    }


def test_fields_written_by_others_do_not_make_a_change() -> None:
    seen = status_update(status_webapp(), status_deployment(3), EARLIER)
    first = status_update(status_webapp(status=seen.status), status_deployment(3), NOW)

    second = status_update(
        status_webapp(status={**first.status, "extra": 1}), status_deployment(3), NOW
    )

    assert not second.changed
