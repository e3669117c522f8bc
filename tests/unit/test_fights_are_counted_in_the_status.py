"""The WebApp status keeps a bounded record of recent corrections; the plan counts a fight
from it; kept fields and a conflict are reported too, and a second run writes nothing."""

from __future__ import annotations

import datetime
from typing import Any

from driftctl.core.planning import fights
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.status import StatusFacts, status_update
from driftctl.core.source.model import MAX_CORRECTIONS
from tests.support.builders import status_deployment, status_webapp

NOW = datetime.datetime(2026, 11, 21, 12, 30, 0, tzinfo=datetime.UTC)
IMAGE = "spec.template.spec.containers[name=app].image"


def change(manager: str, path: str = IMAGE) -> FieldChange:
    return FieldChange(path, "replace", "x", "y", (manager,))


def entry(field: str, manager: str, count: int, when: str) -> dict[str, Any]:
    return {
        "kind": "Deployment",
        "field": field,
        "manager": manager,
        "count": count,
        "lastCorrected": when,
    }


def test_a_change_by_the_manager_corrected_before_counts_its_runs() -> None:
    record = fights.record_of(
        status_webapp(status={"corrections": [entry(IMAGE, "kubectl-set", 2, "t")]})
    )

    same, other = fights.counted(
        [change("kubectl-set"), change("kubectl-edit", "spec.replicas")], "Deployment", record
    )
    [by_another] = fights.counted([change("kubectl-edit")], "Deployment", record)

    assert (same.corrected, other.corrected, by_another.corrected) == (2, 0, 0)
    assert fights.fight_note(same) == "corrected 2 runs in a row; changed again by kubectl-set"
    assert fights.fight_message(ObjectKey("Deployment", "web", "shop"), [same]) == (
        f"Deployment/web/shop: {IMAGE} corrected 2 runs in a row; changed again by kubectl-set"
    )
    assert fights.fight_message(ObjectKey("Deployment", "web", "shop"), [other]) is None


def test_the_record_grows_restarts_for_another_manager_and_stays_bounded() -> None:
    old = [
        entry(f"f{i}", "kubectl", 1, f"2026-11-20T10:00:{i:02d}Z") for i in range(MAX_CORRECTIONS)
    ]
    record = fights.record_of(
        status_webapp(
            status={"corrections": [*old, entry(IMAGE, "kubectl-set", 2, "2026-11-20T09:00:00Z")]}
        )
    )

    grown = fights.recorded(record, [("Deployment", change("kubectl-set"))], "2026-11-21T12:30:00Z")
    restarted = fights.recorded(
        record, [("Deployment", change("kubectl-edit"))], "2026-11-21T12:30:00Z"
    )

    assert len(grown) == MAX_CORRECTIONS
    assert grown[0] == entry(IMAGE, "kubectl-set", 3, "2026-11-21T12:30:00Z")
    assert "f0" not in [e["field"] for e in grown]  # the oldest goes
    assert (restarted[0]["manager"], restarted[0]["count"]) == ("kubectl-edit", 1)


def test_corrections_and_kept_fields_are_written_once_then_nothing() -> None:
    facts = StatusFacts(
        ignored=(("Deployment", "spec.replicas", "scaled by HorizontalPodAutoscaler/web/shop"),),
        corrected=(("Deployment", change("kubectl-set")),),
    )
    scaled = status_deployment(5, replicas=5)

    first = status_update(status_webapp(replicas=3), scaled, NOW, facts)
    again = status_update(
        status_webapp(replicas=3, status=first.status),
        scaled,
        NOW,
        StatusFacts(ignored=facts.ignored),
    )

    assert first.changed
    assert first.status["ignoredFields"] == [
        {
            "kind": "Deployment",
            "field": "spec.replicas",
            "reason": "scaled by HorizontalPodAutoscaler/web/shop",
        }
    ]
    assert first.status["corrections"][0]["count"] == 1
    assert first.status["ready"] is True  # 5 of the autoscaler's 5, not Git's 3
    assert not again.changed


def test_a_kept_field_no_longer_kept_is_removed_from_the_status() -> None:
    kept = StatusFacts(ignored=(("Deployment", "spec.replicas", "why"),))
    written = status_update(status_webapp(), status_deployment(3), NOW, kept).status

    update = status_update(status_webapp(status=written), status_deployment(3), NOW)

    assert update.changed
    assert "ignoredFields" not in update.status


def test_a_conflicting_deployment_stalls_the_webapp() -> None:
    why = "Deployment/web/shop is not controlled by WebApp/web/shop"

    status = status_update(status_webapp(), None, NOW, StatusFacts(conflict=why)).status

    assert status["ready"] is False
    assert [(k["type"], k["reason"], k["message"]) for k in status["conditions"]] == [
        ("Ready", "DeploymentConflict", why),
        ("Stalled", "DeploymentConflict", why),
    ]
