"""Golden cases: captured-shaped live objects and desired WebApps give the expected plan."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftctl.core.desired import Stamp
from driftctl.core.entries import Action, DryRunError, DryRunResult, Plan, PlanEntry, PlanOptions
from driftctl.core.guards import PruneOptions, parse_max_prune
from driftctl.core.model import WebApp, WebAppSpec
from driftctl.core.objects import ObjectKey
from driftctl.core.plan import finish, prepare
from tests.unit.goldens import GoldenCase, case_files, load_case


def options_of(case: GoldenCase) -> PlanOptions:
    raw = case.options
    limit = raw.get("max_prune")
    prune = PruneOptions(
        prune=raw.get("prune", True),
        allow_empty=raw.get("allow_empty", False),
        max_prune=None if limit is None else parse_max_prune(limit),
    )
    return PlanOptions(prune=prune)


def run(case: GoldenCase) -> tuple[list[str], Plan]:
    prep = prepare(case.desired, case.webapps, case.deployments, case.stamp, options_of(case))
    results: dict[ObjectKey, DryRunResult] = {
        candidate.key: case.dry_run.get(candidate.key.display) for candidate in prep.candidates
    }
    return [candidate.key.display for candidate in prep.candidates], finish(prep, results)


def summary(entry: PlanEntry, expected: dict[str, object]) -> dict[str, object]:
    """The entry's fields that the expectation names."""
    seen: dict[str, object] = {"object": entry.key.display, "action": str(entry.action)}
    if "managers" in expected:
        seen["managers"] = list(entry.managers)
    if "changes" in expected:
        seen["changes"] = [[ch.path, ch.op, ch.before, ch.after] for ch in entry.changes]
    if "owner" in expected:
        seen["owner"] = entry.owner.display if entry.owner else None
    if "owned" in expected:
        seen["owned"] = [owned.key.display for owned in entry.owned]
    return seen


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in case_files()])
def test_golden_case_plans_as_expected(path: Path) -> None:
    case = load_case(path)

    candidates, plan = run(case)

    assert candidates == case.expected["candidates"]
    expected = case.expected["entries"]
    assert [summary(e, want) for e, want in zip(plan.entries, expected, strict=False)] == expected
    assert len(plan.entries) == len(expected)


def test_a_deployment_waiting_for_a_refused_webapp_is_skipped_too() -> None:
    app = WebApp("shop", "web", WebAppSpec("nginx:1.27", 1))
    preparation = prepare([app], [], [], Stamp("default", "abc", "repo#apps"))
    [candidate] = preparation.candidates

    plan = finish(
        preparation, {candidate.key: DryRunError("422 Invalid: spec.image: Invalid value")}
    )

    assert [(e.key.kind, e.action) for e in plan.entries] == [
        ("WebApp", Action.SKIP),
        ("Deployment", Action.SKIP),
    ]
    assert plan.entries[1].reason == "its WebApp cannot be applied (WebApp/web/shop was refused)"
    assert not plan.has_changes
