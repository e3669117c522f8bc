"""`driftctl watch` plans one WebApp at a time (prepare's `focus`): each WebApp's plan is
exactly its part of the whole run's plan, prune guards included, which still count the
whole instance (an empty Git, or more than --max-prune going, is refused one WebApp at a
time as well).

The cluster is tests/support/ssa_model.py; the watch itself is checked on the real control
plane by tests/integration/test_watch_keeps_the_cluster_equal_to_git.py.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning.actions import Action, Plan, Prune, Skip, Unchanged
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.plan import finish, prepare
from driftctl.core.source.model import Place, WebApp
from driftctl.settings import MaxPrune, Policy
from tests.support.builders import app
from tests.support.model_runs import drift
from tests.support.shard_runs import NAMES, STAMP, app_sets, converged, drifts
from tests.support.ssa_model import ModelCluster


def plan(
    cluster: ModelCluster, desired: list[WebApp], policy: Policy, focus: frozenset[Place] | None
) -> Plan:
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    prep = prepare(desired, live, STAMP, policy, focus=focus)
    results = {
        candidate.key: cluster.apply(candidate.manifest, c.FIELD_MANAGER, dry_run=True)
        for candidate in prep.candidates
    }
    return finish(prep, results)


def places(cluster: ModelCluster, desired: list[WebApp]) -> set[Place]:
    return {key.place for key in cluster.objects} | {app.place for app in desired}


def of_place(actions: tuple[Action, ...], place: Place) -> list[Action]:
    return [action for action in actions if action.key.place == place]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(earlier=app_sets, behind_our_back=drifts, desired=app_sets, limit=st.integers(0, 100))
def test_each_webapps_plan_is_its_part_of_the_whole_plan(
    earlier: list[WebApp],
    behind_our_back: list[tuple[str, str, int]],
    desired: list[WebApp],
    limit: int,
) -> None:
    cluster = converged(earlier)
    for what, name, number in behind_our_back:
        drift(cluster, what, name, number, STAMP)
    policy = Policy(max_prune=MaxPrune(limit, percent=True))
    whole = plan(cluster, desired, policy, None)

    for place in places(cluster, desired):
        one = plan(cluster, desired, policy, frozenset({place}))
        assert list(one.actions) == of_place(whole.actions, place)
        assert set(one.declared) == {key for key in whole.declared if key.place == place}
        if any(isinstance(action, Skip) for action in one.actions):
            assert set(one.refusals) <= set(whole.refusals)


def test_a_prune_the_whole_run_refuses_is_refused_for_one_webapp_too() -> None:
    cluster = converged([app(name) for name in NAMES])
    keep = [app("shop")]  # seven of eight going: more than half

    for name in NAMES[1:]:
        one = plan(cluster, keep, Policy(), frozenset({Place("web", name)}))
        [webapp] = [action for action in one.actions if action.key.kind == c.KIND]
        assert isinstance(webapp, Skip)
        assert "refusing to prune 7 objects" in webapp.reason
        assert one.refusals


def test_an_empty_git_prunes_nothing_one_webapp_at_a_time() -> None:
    cluster = converged([app("shop")])

    one = plan(cluster, [], Policy(), frozenset({Place("web", "shop")}))

    assert not any(isinstance(action, Prune) for action in one.actions)
    assert "the desired set is empty" in one.refusals[0]


def test_one_webapp_going_within_the_limit_is_pruned() -> None:
    cluster = converged([app(name) for name in NAMES])
    desired = [app(name) for name in NAMES if name != "blog"]

    one = plan(cluster, desired, Policy(), frozenset({Place("web", "blog")}))

    assert [type(action) for action in one.actions] == [Prune]
    others = plan(cluster, desired, Policy(), frozenset({Place("web", "shop")}))
    assert [type(action) for action in others.actions] == [Unchanged, Unchanged]
