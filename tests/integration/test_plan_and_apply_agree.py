"""For every case of drift, the plan's action for each object is the outcome apply reports,
and each planned patch is exactly what apply changed (server bookkeeping aside)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonpatch
import pytest

from driftctl.core.planning.normalize import normalize
from tests.support.drift_cases import CASES, Case
from tests.support.harness import Harness

OUTCOME = {
    "create": "created",
    "update": "configured",
    "adopt": "configured",
    "unchanged": "unchanged",
    "skip": "skipped",
    "conflict": "failed",
}
KINDS = {"WebApp": "webapp", "Deployment": "deployment"}


def snapshot(harness: Harness) -> dict[tuple[str, str], dict[str, Any] | None]:
    return {(kind, "shop"): harness.raw(name, "shop") for kind, name in KINDS.items()}


def without_status(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """The object as its main resource stores it: a status write aside (it moves the
    resourceVersion and adds a managedFields entry of the status subresource)."""
    if obj is None:
        return None
    meta = dict(obj["metadata"])
    meta.pop("resourceVersion")
    meta["managedFields"] = [
        entry for entry in meta.get("managedFields", []) if entry.get("subresource") != "status"
    ]
    return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": meta}


@pytest.mark.parametrize("case", [pytest.param(case, id=case.name) for case in CASES])
def test_the_plans_action_is_the_outcome_of_apply(
    case: Case, harness: Harness, tmp_path: Path
) -> None:
    flags = case.setup(harness, tmp_path)
    before = snapshot(harness)

    planned = json.loads(harness.driftctl("plan", "-o", "json", *flags).out)
    applied = harness.driftctl("apply", "-o", "json", *flags)

    after = snapshot(harness)
    outcomes = {
        (item["kind"], item["name"]): item["outcome"] for item in json.loads(applied.out)["objects"]
    }
    for item in planned["objects"]:
        key = (item["kind"], item["name"])
        assert outcomes[key] == OUTCOME[item["action"]], (key, item, applied.out)
        if item["action"] in ("update", "adopt"):
            predicted = jsonpatch.apply_patch(normalize(before[key] or {}), item["patch"])
            assert predicted == normalize(after[key] or {}), key
        elif item["action"] == "unchanged":
            assert without_status(after[key]) == without_status(before[key]), f"{key} written"
        elif item["action"] in ("conflict", "skip"):  # another owner's, or left alone
            assert after[key] == before[key], f"{key} was written"
    assert applied.code == (5 if "failed" in outcomes.values() else 0), applied.err
