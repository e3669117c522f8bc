"""Each shard plans, applies and prunes only its own WebApps; together they do what one
unsharded run does, and a change of the shard count moves WebApps without a write.

The cluster is tests/support/ssa_model.py (a model of server-side apply, for properties of
the pure core); tests/integration/test_shards_split_the_work.py checks the same on the
real control plane.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning.actions import Plan, Prune, is_changing
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import build_deployment, webapp_manifest
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import Reach, prepare
from driftctl.core.planning.shards import owns
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import WebApp
from driftctl.settings import Policy, Shard
from tests.support.builders import app
from tests.support.model_runs import drift
from tests.support.shard_runs import (
    NAMES,
    POLICY,
    STAMP,
    app_sets,
    converged,
    drifts,
    plan,
    run,
)
from tests.support.ssa_model import ModelCluster


def changes(planned: Plan) -> list[tuple[str, Verb]]:
    return [(action.key.display, action.verb) for action in planned.actions if is_changing(action)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    earlier=app_sets,
    behind_our_back=drifts,
    desired=app_sets,
    count=st.integers(2, 4),
)
def test_every_shard_in_turn_ends_where_one_unsharded_run_ends(
    earlier: list[WebApp],
    behind_our_back: list[tuple[str, str, int]],
    desired: list[WebApp],
    count: int,
) -> None:
    cluster = converged(earlier)
    for what, name, number in behind_our_back:
        drift(cluster, what, name, number, STAMP)

    written = [run(cluster, desired, Shard(index=index, count=count)) for index in range(count)]

    for index, keys in enumerate(written):
        assert all(owns(Shard(index=index, count=count), key.namespace, key.name) for key in keys)
    assert sum(len(keys) for keys in written) == len(set().union(*written))  # no key twice
    unsharded, dry_runs = plan(cluster, desired, Shard())
    assert changes(unsharded) == []
    assert dry_runs == 0
    assert {key.name for key in cluster.objects} == {app.name for app in desired}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(desired=app_sets, before=st.integers(1, 5), after=st.integers(1, 5))
def test_changing_the_shard_count_moves_webapps_without_a_write_or_a_dry_run(
    desired: list[WebApp], before: int, after: int
) -> None:
    cluster = ModelCluster()
    for index in range(before):
        run(cluster, desired, Shard(index=index, count=before))

    for index in range(after):
        planned, dry_runs = plan(cluster, desired, Shard(index=index, count=after))
        assert changes(planned) == []
        assert dry_runs == 0


def test_a_webapp_that_moved_shards_is_not_pruned_by_its_old_shard() -> None:
    # blog is in shard 0 of 3 and in shard 3 of 4; Git no longer declares it.
    cluster = converged([app("shop"), app("blog"), app("chat")])
    desired = [app("shop"), app("chat")]

    old_shard, _ = plan(cluster, desired, Shard(index=0, count=4))
    new_shard, _ = plan(cluster, desired, Shard(index=3, count=4))

    assert "WebApp/web/blog" not in [action.key.display for action in old_shard.actions]
    assert changes(new_shard) == [("WebApp/web/blog", Verb.PRUNE)]


def test_a_shard_never_plans_another_shards_webapps() -> None:
    cluster = converged([app(name) for name in NAMES])
    shard = Shard(index=2, count=3)  # chat alone

    planned, _ = plan(cluster, [app(name, replicas=2) for name in NAMES], shard)

    assert {action.key.name for action in planned.actions} == {"chat"}
    assert planned.declared == (ObjectKey(c.KIND, "web", "chat"),)


def test_max_prune_counts_the_shards_managed_webapps() -> None:
    # Shard 1 of 3 manages wiki, cart, api and mail: half of them is 2, whatever the others.
    cluster = converged([app(name) for name in NAMES])
    keep = [app(name) for name in NAMES if name not in ("wiki", "cart", "api")]

    refused, _ = plan(cluster, keep, Shard(index=1, count=3), Policy())
    allowed, _ = plan(cluster, [*keep, app("api")], Shard(index=1, count=3), Policy())

    assert refused.refusals == (
        "refusing to prune 3 objects: more than the default --max-prune "
        "(half of 4 managed = 2) allows; raise --max-prune to allow it",
    )
    assert [a.key.name for a in allowed.actions if isinstance(a, Prune)] == ["cart", "wiki"]


def test_a_shard_with_nothing_in_git_may_prune_but_an_empty_git_may_not() -> None:
    cluster = converged([app("shop"), app("chat")])

    emptied_shard, _ = plan(
        cluster, [app("shop")], Shard(index=2, count=3)
    )  # chat's shard, now empty
    empty_git, _ = plan(cluster, [], Shard(index=2, count=3))

    assert changes(emptied_shard) == [("WebApp/web/chat", Verb.PRUNE)]
    assert empty_git.refusals
    assert "the desired set is empty" in empty_git.refusals[0]


def _deployment_of(owner: dict[str, Any], name: str) -> dict[str, Any]:
    dep = build_deployment(app(name), STAMP.instance, owner["metadata"]["uid"])
    dep["metadata"]["ownerReferences"][0]["name"] = owner["metadata"]["name"]
    return dep


def test_a_deployment_owned_by_another_shards_webapp_is_not_an_orphan() -> None:
    # A Deployment named chat (shard 2 of 3) owned by the WebApp shop (shard 0).
    cluster = ModelCluster()
    shop = cluster.apply(webapp_manifest(app("shop"), STAMP), c.FIELD_MANAGER)
    cluster.apply(_deployment_of(shop, "chat"), c.FIELD_MANAGER)
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))

    reach = Reach(Shard(index=2, count=3))
    chats_shard = finish(prepare([app("shop")], live, STAMP, POLICY, reach=reach), {})
    unsharded = finish(prepare([app("shop")], live, STAMP, POLICY), {})

    assert changes(chats_shard) == []
    assert ("Deployment/web/chat", Verb.PRUNE) not in changes(unsharded)
