"""Golden cases: captured-shaped live objects and desired WebApps give the expected plan."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Create,
    Plan,
    Prune,
    Skip,
    Update,
    changes_of,
)
from driftctl.core.planning.candidates import DryRunError, DryRunResult
from driftctl.core.planning.changes import managers_of
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.settings import Policy
from driftctl.settings.declare import from_written
from tests.support.goldens import GoldenCase, case_files, load_case


def policy_of(case: GoldenCase) -> Policy:
    raw = case.options
    return from_written(
        Policy,
        prune=raw.get("prune", True),
        allow_empty=raw.get("allow_empty", False),
        max_prune=raw.get("max_prune"),
        recreate=raw.get("recreate", False),
    )


def run(case: GoldenCase) -> tuple[list[str], Plan]:
    live = LiveState.of(case.webapps, case.deployments)
    prep = prepare(case.desired, live, case.stamp, policy_of(case))
    results: dict[ObjectKey, DryRunResult] = {
        candidate.key: case.dry_run.get(candidate.key.display) for candidate in prep.candidates
    }
    return [candidate.key.display for candidate in prep.candidates], finish(prep, results)


def summary(action: Action, expected: dict[str, object]) -> dict[str, object]:
    """The action's fields that the expectation names."""
    seen: dict[str, object] = {"object": action.key.display, "action": str(action.verb)}
    changes = changes_of(action)
    if "managers" in expected:
        seen["managers"] = list(managers_of(changes))
    if "changes" in expected:
        seen["changes"] = [[ch.path, ch.op, ch.before, ch.after] for ch in changes]
    if "owner" in expected:
        owner = action.owner if isinstance(action, Create | Update) else None
        seen["owner"] = owner.display if owner else None
    if "owned" in expected:
        owned = action.owned if isinstance(action, Prune | Cleanup) else ()
        seen["owned"] = [each.key.display for each in owned]
    return seen


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in case_files()])
def test_golden_case_plans_as_expected(path: Path) -> None:
    case = load_case(path)

    candidates, plan = run(case)

    assert candidates == case.expected["candidates"]
    expected = case.expected["actions"]
    assert [summary(a, want) for a, want in zip(plan.actions, expected, strict=False)] == expected
    assert len(plan.actions) == len(expected)


def test_a_deployment_waiting_for_a_refused_webapp_is_skipped_too() -> None:
    app = WebApp("shop", "web", WebAppSpec("nginx:1.27", 1))
    preparation = prepare([app], LiveState.of([], []), Stamp("default", "abc", "repo#apps"))
    [candidate] = preparation.candidates

    plan = finish(
        preparation, {candidate.key: DryRunError("422 Invalid: spec.image: Invalid value")}
    )

    assert [(a.key.kind, a.verb) for a in plan.actions] == [
        ("WebApp", Verb.SKIP),
        ("Deployment", Verb.SKIP),
    ]
    assert isinstance(plan.actions[1], Skip)
    assert plan.actions[1].reason == "its WebApp cannot be applied (WebApp/web/shop was refused)"
    assert not plan.has_changes
