"""`watch` sends no dry-run before an update: nobody reads its plan first. What it reports
(core.planning.from_dry_runs.answered) comes from its writes' own answers, and is what the
exact plan, with its dry-runs, would have said: unchanged where the write changed nothing,
else the update with every field change and who made it.

The cluster is tests/support/ssa_model.py (the real control plane: the watch tests).
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings

from driftctl import conventions as c
from driftctl.core.planning.actions import Update
from driftctl.core.planning.candidates import Candidate
from driftctl.core.planning.from_dry_runs import answered, exact_action
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.preparation import prepare
from driftctl.core.source.model import WebApp
from tests.support.model_runs import POLICY, app_sets, drift, drifts, earlier_run
from tests.support.shard_runs import STAMP
from tests.support.ssa_model import ModelCluster


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(earlier=app_sets, behind_our_back=drifts, desired=app_sets)
def test_an_update_without_a_dry_run_reports_what_the_dry_run_would_have_planned(
    earlier: list[WebApp], behind_our_back: list[tuple[str, str, int]], desired: list[WebApp]
) -> None:
    cluster = earlier_run(ModelCluster(), earlier, STAMP)
    for what, name, number in behind_our_back:
        drift(cluster, what, name, number, STAMP)
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    preparation = prepare(desired, live, STAMP, POLICY)
    existing = [each for each in preparation.candidates if each.live is not None]

    for candidate in existing:
        if candidate.revert is not None:
            continue  # a revert tests the resourceVersion: the model has no such patch
        planned = exact_action(
            candidate, {candidate.key: dry_run(cluster, candidate)}, {}, c.FIELD_MANAGER
        )
        unchecked = exact_action(candidate, {}, {}, c.FIELD_MANAGER, updates_answer=True)
        assert isinstance(unchecked, Update)
        assert unchecked.unchecked == candidate
        assert unchecked.changes == ()  # nothing is known before the write answers

        written = copy.deepcopy(cluster).apply(candidate.manifest, c.FIELD_MANAGER)
        assert answered(unchecked, written, None, c.FIELD_MANAGER) == planned


def dry_run(cluster: ModelCluster, candidate: Candidate) -> dict[str, object]:
    return cluster.apply(candidate.manifest, c.FIELD_MANAGER, dry_run=True)
