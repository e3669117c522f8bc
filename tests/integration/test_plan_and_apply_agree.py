"""For every case of drift, and every control (a suspension, a change or drift policy, a
window, a gentle prune), the plan's action for each object is the outcome apply reports,
each planned patch is exactly what apply changed (server bookkeeping aside), what the plan
holds apply leaves as it was, and plan's exit code is apply's where apply fails (5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonpatch
import pytest

from driftctl import conventions as c
from driftctl.core.planning.normalize import normalize
from tests.support.drift_cases import CASES, CONTROL_CASES, Case
from tests.support.harness import Harness

OUTCOME = {
    "create": "created",
    "update": "configured",
    "adopt": "configured",
    "unchanged": "unchanged",
    "skip": "skipped",
    "conflict": "failed",
    "prune": "deleted",
    "hold": "held",
    "orphan": "orphaned",
    "quarantine": "configured",
    "confirm": "waiting",
}
# A hold of a removal waiting for a person's approval is reported as waiting, as the removal
# recorded to wait is (core.planning.actions.awaits_approval)
WAITS = "waits for an approval: "


def outcome_of(item: dict[str, Any]) -> str:
    """What apply reports for the object plan planned as `item`."""
    if (
        item["action"] == "hold"
        and item["held"]["control"] == "removal"
        and WAITS in item["reason"]
    ):
        return "waiting"
    return OUTCOME[item["action"]]


WRITTEN_AS_PLANNED = ("update", "adopt", "quarantine", "confirm")  # the planned patch, exactly
LEFT_AS_IT_WAS = ("unchanged", "hold")
REMOVED_AT = "/metadata/annotations/" + c.REMOVED_AT_ANNOTATION.replace("/", "~1")
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


def predicted(before: dict[str, Any] | None, patch: list[Any], after: dict[str, Any] | None) -> Any:
    """The planned patch applied to the object before; the time a removal is recorded at is
    apply's own (a plan made a second earlier says its own)."""
    ops = [
        {**op, "value": (after or {})["metadata"]["annotations"][c.REMOVED_AT_ANNOTATION]}
        if op.get("path") == REMOVED_AT and op.get("op") in ("add", "replace")
        else op
        for op in patch
    ]
    return jsonpatch.apply_patch(normalize(before or {}), ops)


@pytest.mark.parametrize(
    "case", [pytest.param(case, id=case.name) for case in (*CASES, *CONTROL_CASES)]
)
def test_the_plans_action_is_the_outcome_of_apply(
    case: Case, harness: Harness, tmp_path: Path
) -> None:
    flags = case.setup(harness, tmp_path)
    before = snapshot(harness)

    plan_run = harness.driftctl("plan", "-o", "json", *flags)
    planned = json.loads(plan_run.out)
    applied = harness.driftctl("apply", "-o", "json", *flags)

    after = snapshot(harness)
    outcomes = {
        (item["kind"], item["name"]): item["outcome"] for item in json.loads(applied.out)["objects"]
    }
    for item in planned["objects"]:
        key = (item["kind"], item["name"])
        if key not in before:
            continue  # blog, beside shop in some cases: its own tests say what it does
        assert outcomes[key] == outcome_of(item), (key, item, applied.out)
        if item["action"] in WRITTEN_AS_PLANNED:
            assert predicted(before[key], item["patch"], after[key]) == normalize(after[key] or {})
        elif item["action"] in LEFT_AS_IT_WAS:
            assert without_status(after[key]) == without_status(before[key]), f"{key} written"
        elif item["action"] in ("conflict", "skip"):  # another owner's, or left alone
            assert after[key] == before[key], f"{key} was written"
        elif item["action"] in ("prune", "orphan"):
            assert after[key] is None, f"{key} is still there"
    if any(item["action"] == "orphan" for item in planned["objects"]):
        kept = after[("Deployment", "shop")] or {}
        assert c.INSTANCE_LABEL not in kept["metadata"]["labels"], "orphaned, still claimed"
    assert applied.code == (5 if "failed" in outcomes.values() else 0), applied.err
    # The exit code too: plan's is apply's where apply fails, and 0 only where nothing differs.
    assert (plan_run.code == 5) == (applied.code == 5), plan_run.out
    if set(outcomes.values()) == {"unchanged"}:
        assert plan_run.code == 0, plan_run.out
    else:
        assert plan_run.code in (1, 5), plan_run.out
