"""Property: after carrying out a plan, planning again finds nothing to do and asks nothing.

The cluster is tests/support/ssa_model.py, a model of server-side apply for this property of
the pure core; integration tests check the same on the real control plane.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import (
    Plan,
    WriteStatus,
    is_changing,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, webapp_manifest
from driftctl.core.planning.preparation import prepare
from driftctl.core.source.model import WebApp, WebAppSpec
from tests.support.model_runs import (
    POLICY,
    SOURCE,
    app_sets,
    carry_out,
    drift,
    drifts,
    earlier_run,
    finished,
)
from tests.support.ssa_model import ModelCluster


def plan(cluster: ModelCluster, desired: list[WebApp], stamp: Stamp) -> tuple[Plan, int]:
    """Plan against the cluster, dry-running every candidate there; also count the dry-runs."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    prep = prepare(desired, live, stamp, POLICY)
    return finished(cluster, prep), len(prep.candidates)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(earlier=app_sets, changes=drifts, desired=app_sets, next_commit=st.booleans())
def test_planning_after_applying_a_plan_finds_nothing_to_do(
    earlier: list[WebApp],
    changes: list[tuple[str, str, int]],
    desired: list[WebApp],
    next_commit: bool,
) -> None:
    cluster = ModelCluster()
    before, now = Stamp("default", "1" * 40, SOURCE), Stamp("default", "2" * 40, SOURCE)
    earlier_run(cluster, earlier, before)
    for what, name, number in changes:
        drift(cluster, what, name, number, before)

    first, _ = plan(cluster, desired, now)
    for stage in first.stages:
        for chain in stage:
            for step in chain:
                if not isinstance(step, WriteStatus):
                    carry_out(cluster, step)
    second, dry_runs = plan(
        cluster, desired, Stamp("default", "3" * 40, SOURCE) if next_commit else now
    )

    assert [(a.key.display, a.verb) for a in second.actions if is_changing(a)] == []
    assert dry_runs == 0, "the prefilter should clear every object of a converged cluster"
    assert {key.name for key in cluster.objects} == {app.name for app in desired}


def test_the_model_records_apply_ownership_like_the_captured_objects() -> None:
    cluster = ModelCluster()
    app = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
    applied: dict[str, Any] = cluster.apply(
        webapp_manifest(app, Stamp("default", "1" * 40, SOURCE)), c.FIELD_MANAGER
    )

    owned = fs.owned_fields(applied, c.FIELD_MANAGER, c.API_VERSION)

    assert ("f:spec", "f:replicas") in owned
    assert ("f:metadata", "f:finalizers", f'v:"{c.FINALIZER}"') in owned
