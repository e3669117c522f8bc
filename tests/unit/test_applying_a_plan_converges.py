"""Property: after carrying out a plan, planning again finds nothing to do and asks nothing.

The cluster is tests/unit/ssa_model.py, a model of server-side apply for this property of
the pure core; integration tests check the same on the real control plane.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Create,
    Plan,
    Prune,
    Replace,
    Update,
    WriteStatus,
    bind_owner,
    is_changing,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish, prepare
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.settings import MaxPrune, Policy
from tests.support.ssa_model import Cluster

NAMES = ("shop", "blog", "wiki", "cart")
SOURCE = "https://git.example.org/team/apps.git#apps"
POLICY = Policy(allow_empty=True, max_prune=MaxPrune(100, percent=True), recreate=True)

apps = st.builds(
    lambda name, image, replicas, team: WebApp(
        name, "web", WebAppSpec(image, replicas), labels={"team": team} if team else {}
    ),
    st.sampled_from(NAMES),
    st.sampled_from(("nginx:1.27", "nginx:1.25", "ghost:5")),
    st.integers(0, 5),
    st.sampled_from(("", "a", "b")),
)
app_sets = st.lists(apps, max_size=4, unique_by=lambda app: app.name)
drifts = st.lists(
    st.tuples(
        st.sampled_from(
            ("scale", "edit-image", "label", "delete-deployment", "delete-webapp", "no-finalizer")
        ),
        st.sampled_from(NAMES),
        st.integers(0, 9),
    ),
    max_size=4,
)


def earlier_run(cluster: Cluster, earlier: list[WebApp], stamp: Stamp) -> None:
    """What an earlier driftctl run left: each WebApp and its Deployment, applied."""
    for app in earlier:
        owner = cluster.apply(webapp_manifest(app, stamp), c.FIELD_MANAGER)
        cluster.apply(
            build_deployment(app, stamp.instance, owner["metadata"]["uid"]), c.FIELD_MANAGER
        )


def drift(cluster: Cluster, what: str, name: str, number: int, stamp: Stamp) -> None:
    """Someone changes the cluster behind driftctl's back."""
    webapp, dep = ObjectKey(c.KIND, "web", name), ObjectKey(c.DEPLOYMENT_KIND, "web", name)
    if what == "scale" and dep in cluster.objects:
        cluster.update(dep, "kubectl-scale", ("f:spec", "f:replicas"), number)
    elif what == "edit-image" and dep in cluster.objects:
        path = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}', "f:image")
        cluster.update(dep, "kubectl-edit", path, f"busybox:{number}")
    elif what == "label" and webapp in cluster.objects:
        cluster.update(webapp, "kubectl-label", ("f:metadata", "f:labels", "f:team"), str(number))
    elif what == "delete-deployment":
        cluster.objects.pop(dep, None)
    elif what == "delete-webapp":
        cluster.delete(webapp)
    elif what == "no-finalizer" and webapp in cluster.objects:
        manifest = webapp_manifest(WebApp(name, "web", WebAppSpec("nginx:1.27", number)), stamp)
        del manifest["metadata"]["finalizers"]
        cluster.objects.pop(dep, None)
        cluster.objects.pop(webapp)
        cluster.apply(manifest, c.FIELD_MANAGER)


def plan(cluster: Cluster, desired: list[WebApp], stamp: Stamp) -> tuple[Plan, int]:
    """Plan against the cluster, dry-running every candidate there; also count the dry-runs."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    prep = prepare(desired, live, stamp, POLICY)
    results = {
        candidate.key: cluster.apply(candidate.manifest, c.FIELD_MANAGER, dry_run=True)
        for candidate in prep.candidates
        if candidate.apply
    }
    removed: dict[ObjectKey, Any] = {
        candidate.key: cluster.patch(candidate.key, list(candidate.removal.patch), dry_run=True)
        for candidate in prep.candidates
        if candidate.removal is not None
    }
    return finish(prep, results, removed), len(prep.candidates)


def carry_out(cluster: Cluster, action: Action) -> None:
    """What the shell does for one action."""
    if isinstance(action, Prune | Replace):
        cluster.delete(action.key)
    if isinstance(action, Prune | Cleanup):
        for owned in action.owned:
            cluster.delete(owned.key)
        if action.finalizer_patch and action.key in cluster.objects:
            cluster.patch(action.key, list(action.finalizer_patch))
    if isinstance(action, Update) and action.removal is not None:
        cluster.patch(action.key, list(action.removal.patch))
    if isinstance(action, Create | Replace) or (isinstance(action, Update) and action.apply):
        manifest = action.manifest
        owner = action.owner if isinstance(action, Create | Update) else None
        if owner is not None:
            manifest = bind_owner(manifest, cluster.objects[owner]["metadata"]["uid"])
        cluster.apply(manifest, c.FIELD_MANAGER)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(earlier=app_sets, changes=drifts, desired=app_sets, next_commit=st.booleans())
def test_planning_after_applying_a_plan_finds_nothing_to_do(
    earlier: list[WebApp],
    changes: list[tuple[str, str, int]],
    desired: list[WebApp],
    next_commit: bool,
) -> None:
    cluster = Cluster()
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
    cluster = Cluster()
    app = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
    applied: dict[str, Any] = cluster.apply(
        webapp_manifest(app, Stamp("default", "1" * 40, SOURCE)), c.FIELD_MANAGER
    )

    owned = fs.owned_fields(applied, c.FIELD_MANAGER, c.API_VERSION)

    assert ("f:spec", "f:replicas") in owned
    assert ("f:metadata", "f:finalizers", f'v:"{c.FINALIZER}"') in owned
