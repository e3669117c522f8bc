"""Runs of one shard on the model of server-side apply (ssa_model.ModelCluster): eight WebApps
whose shards are pinned, drawn by Hypothesis, drift behind driftctl's back, one shard's
plan (and the dry-runs it needed), carried out, and a cluster one unsharded run converged.
The drift itself is model_runs.drift.
"""

from __future__ import annotations

from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning.actions import Plan, WriteStatus, is_changing
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import Reach, prepare
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.settings import MaxPrune, Policy, Shard
from tests.support.model_runs import SOURCE, carry_out
from tests.support.ssa_model import ModelCluster

# With three shards: shop, blog, docs -> 0; wiki, cart, api, mail -> 1; chat -> 2.
# With four: blog, api and mail move to shard 3; the others stay.
NAMES = ("shop", "blog", "wiki", "cart", "docs", "api", "mail", "chat")
STAMP = Stamp("default", "1" * 40, SOURCE)
POLICY = Policy(max_prune=MaxPrune(100, percent=True))

apps = st.builds(
    lambda name, image, replicas: WebApp(name, "web", WebAppSpec(image, replicas)),
    st.sampled_from(NAMES),
    st.sampled_from(("nginx:1.27", "ghost:5")),
    st.integers(0, 3),
)
app_sets = st.lists(apps, min_size=1, max_size=8, unique_by=lambda app: app.name)
drifts = st.lists(
    st.tuples(
        st.sampled_from(("scale", "edit-image", "delete-deployment", "delete-webapp")),
        st.sampled_from(NAMES),
        st.integers(0, 9),
    ),
    max_size=3,
)


def plan(
    cluster: ModelCluster, desired: list[WebApp], shard: Shard, policy: Policy = POLICY
) -> tuple[Plan, int]:
    """One shard's plan against the cluster, and how many dry-runs it needed."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    prep = prepare(desired, live, STAMP, policy, reach=Reach(shard))
    results = {
        candidate.key: cluster.apply(candidate.manifest, c.FIELD_MANAGER, dry_run=True)
        for candidate in prep.candidates
    }
    return finish(prep, results), len(prep.candidates)


def run(cluster: ModelCluster, desired: list[WebApp], shard: Shard) -> set[ObjectKey]:
    """Plan and carry out one shard; the objects it wrote."""
    planned, _ = plan(cluster, desired, shard)
    for stage in planned.stages:
        for chain in stage:
            for step in chain:
                if not isinstance(step, WriteStatus):
                    carry_out(cluster, step)
    return {action.key for action in planned.actions if is_changing(action)}


def converged(desired: list[WebApp]) -> ModelCluster:
    """A cluster where one unsharded run applied `desired`."""
    cluster = ModelCluster()
    run(cluster, desired, Shard())
    return cluster
