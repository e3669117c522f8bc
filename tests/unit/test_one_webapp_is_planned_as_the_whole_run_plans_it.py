"""`driftctl watch` plans one WebApp at a time (prepare's `focus`): each WebApp's plan is
exactly its part of the whole run's plan, prune guards included, which still count the
whole instance (an empty Git, or more than --max-prune going, is refused one WebApp at a
time as well).

Watch plans a WebApp from its census (core.watch.census): the WebApp's own objects and the
guards' counts kept as objects change. That plan is the same, and the census's counts are
those the whole run counts, however the objects came and went.

The cluster is tests/support/ssa_model.py; the watch itself is checked on the real control
plane by tests/integration/test_watch_keeps_the_cluster_equal_to_git.py.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning.actions import Action, Plan, Prune, Skip, Unchanged
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import owner_uids, uid
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import Reach, prepare
from driftctl.core.planning.removals import PruneCounts, deployment_standing, webapp_standing
from driftctl.core.source.model import Place, WebApp
from driftctl.core.watch.census import Census
from driftctl.settings import MaxPrune, Policy
from tests.support.builders import app
from tests.support.model_runs import drift
from tests.support.shard_runs import NAMES, STAMP, app_sets, converged, drifts
from tests.support.ssa_model import ModelCluster


def plan(
    cluster: ModelCluster,
    desired: list[WebApp],
    policy: Policy,
    focus: frozenset[Place] | None,
    census: Census | None = None,
) -> Plan:
    """The plan of `focus` (None: everything) from the whole live state, or, given a
    census, from that census's view of the focus and its counts."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    if census is None:
        prep = prepare(desired, live, STAMP, policy, reach=Reach(focus=focus))
    else:
        assert focus is not None
        [place] = focus
        by_place = {app.place: app for app in desired}
        counts = census.counts(len(desired))
        view = census.view(place)
        reach = Reach(focus=focus, by_place=by_place, counts=counts)
        prep = prepare(desired, view, STAMP, policy, reach=reach)
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


def census_of(cluster: ModelCluster, desired: list[WebApp], order: list[int]) -> Census:
    """A census told every live object one at a time, in the order `order` draws (as
    events come; some come and go before they come for good), the WebApps Git declares
    set first or last."""
    census = Census(STAMP.instance)
    objects = cluster.listed(c.KIND) + cluster.listed(c.DEPLOYMENT_KIND)
    shuffled = [objects[i % len(objects)] for i in order] + objects if objects else []
    told: set[tuple[str, Place]] = set()
    wanted_first = bool(order) and order[0] % 2 == 0
    if wanted_first:
        census.want({app.place for app in desired})
    for n, obj in enumerate(shuffled):
        key = (obj["kind"], Place(obj["metadata"]["namespace"], obj["metadata"]["name"]))
        if key in told:
            continue
        tell = census.webapp if obj["kind"] == c.KIND else census.deployment
        if n < len(order) and order[n] % 3 == 0:
            tell(key[1], obj)  # came, went, and comes back below
            tell(key[1], None)
            continue
        told.add(key)
        tell(key[1], obj)
    if not wanted_first:
        census.want({app.place for app in desired})
    return census


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    earlier=app_sets,
    behind_our_back=drifts,
    desired=app_sets,
    limit=st.integers(0, 100),
    order=st.lists(st.integers(0, 40), max_size=20),
)
def test_a_webapps_plan_from_the_census_is_its_part_of_the_whole_plan(
    earlier: list[WebApp],
    behind_our_back: list[tuple[str, str, int]],
    desired: list[WebApp],
    limit: int,
    order: list[int],
) -> None:
    cluster = converged(earlier)
    for what, name, number in behind_our_back:
        drift(cluster, what, name, number, STAMP)
    policy = Policy(max_prune=MaxPrune(limit, percent=True))
    whole = plan(cluster, desired, policy, None)
    census = census_of(cluster, desired, order)

    for place in places(cluster, desired):
        one = plan(cluster, desired, policy, frozenset({place}), census)
        assert list(one.actions) == of_place(whole.actions, place)
        assert set(one.declared) == {key for key in whole.declared if key.place == place}
    assert census.counts(len(desired)) == counted(cluster, desired)


def counted(cluster: ModelCluster, desired: list[WebApp]) -> PruneCounts:
    """The guards' counts added up over the whole live state at once, as a run does."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    wanted = {app.place for app in desired}
    owners = {uid(obj) for obj in live.webapps.values()}
    standings = [webapp_standing(obj, wanted, STAMP.instance) for obj in live.webapps.values()]
    standings += [
        deployment_standing(obj, wanted, STAMP.instance, owner_live=bool(owner_uids(obj) & owners))
        for obj in live.deployments.values()
    ]
    managed = sum(each.managed for each in standings)
    return PruneCounts(len(desired), managed, sum(each.going for each in standings))


def test_the_census_counts_what_the_whole_run_counts_as_objects_come_and_go() -> None:
    cluster = converged([app(name) for name in NAMES])
    census = census_of(cluster, [app("shop")], [])
    # Seven of eight WebApps are no longer declared: all seven are going, of eight managed.
    assert census.counts(1) == PruneCounts(1, 8, 7)
    blog = cluster.listed(c.KIND)[0]
    census.webapp(Place("web", blog["metadata"]["name"]), None)  # deleted: its Deployment
    assert census.counts(1).managed == 8  # is an orphan now: still managed, and going
    census.want({Place("web", name) for name in NAMES})
    assert census.counts(8) == PruneCounts(8, 7, 0)  # the orphan's name is declared again


def test_a_view_holds_only_the_webapps_own_objects() -> None:
    cluster = converged([app(name) for name in NAMES])
    census = census_of(cluster, [app(name) for name in NAMES], [])
    view = census.view(Place("web", "shop"))
    assert [obj["metadata"]["name"] for obj in view.objects()] == ["shop", "shop"]
    assert view.autoscalers_known


def test_a_webapp_stays_settled_until_it_or_git_changes() -> None:
    cluster = converged([app(name) for name in NAMES])
    census = census_of(cluster, [app(name) for name in NAMES], [])
    seen = census.whole()
    shop, blog = Place("web", "shop"), Place("web", "blog")
    census.settle(shop, seen)
    census.settle(blog, seen)
    assert census.unsettled([shop, blog]) == frozenset()

    [deployment] = [
        obj for obj in cluster.listed(c.DEPLOYMENT_KIND) if obj["metadata"]["name"] == "shop"
    ]
    census.deployment(shop, dict(deployment))  # a new version of its Deployment (an event)
    assert census.unsettled([shop, blog]) == {shop}
    census.settle(shop, seen)  # what a pass saw before that event does not settle it
    assert census.unsettled([shop, blog]) == {shop}

    census.want({Place("web", name) for name in NAMES})  # Git moved
    assert census.unsettled([shop, blog]) == {shop, blog}
