"""Runs of the pure core on the model of server-side apply (ssa_model.ModelCluster), as the
property tests drive them: up to four WebApps drawn by Hypothesis, what an earlier run
left, drift made behind driftctl's back, and what the shell does for one action; and the
identity a saved plan of such a run carries.

It is a model, not a stand-in: integration tests run the same on the real control plane.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Confirm,
    Create,
    Orphan,
    Plan,
    Prune,
    Quarantine,
    Replace,
    Update,
    WriteStatus,
    bind_owner,
)
from driftctl.core.planning.candidates import Preparation
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.saved_plan import CrdIdentity, PlanIdentity
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.settings import MaxPrune, Policy
from tests.support.ssa_model import ModelCluster

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


def earlier_run(cluster: ModelCluster, earlier: Sequence[WebApp], stamp: Stamp) -> ModelCluster:
    """What an earlier driftctl run left: each WebApp and its Deployment, applied; the
    cluster."""
    for app in earlier:
        owner = cluster.apply(webapp_manifest(app, stamp), c.FIELD_MANAGER)
        cluster.apply(
            build_deployment(app, stamp.instance, owner["metadata"]["uid"]), c.FIELD_MANAGER
        )
    return cluster


def drift(cluster: ModelCluster, what: str, name: str, number: int, stamp: Stamp) -> None:
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


def carry_out(cluster: ModelCluster, action: Action) -> None:
    """What the shell does for one action."""
    if isinstance(action, Orphan):
        for each in action.released:
            cluster.patch(each.key, list(each.patch))
        if action.delete is not None:
            cluster.delete(action.key)
            if action.finalizer_patch and action.key in cluster.objects:
                cluster.patch(action.key, list(action.finalizer_patch))
    if isinstance(action, Quarantine | Confirm):
        cluster.apply(action.manifest, c.FIELD_MANAGER)
    if isinstance(action, Prune | Replace):
        cluster.delete(action.key)
    if isinstance(action, Prune | Cleanup):
        for owned in action.owned:
            cluster.delete(owned.key)
        if action.finalizer_patch and action.key in cluster.objects:
            cluster.patch(action.key, list(action.finalizer_patch))
    if isinstance(action, Update) and action.revert is not None:
        cluster.patch(action.key, list(action.revert.patch))
    if isinstance(action, Create | Replace) or (isinstance(action, Update) and action.apply):
        manifest = action.manifest
        owner = action.owner if isinstance(action, Create | Update) else None
        if owner is not None:
            manifest = bind_owner(manifest, cluster.objects[owner]["metadata"]["uid"])
        cluster.apply(manifest, c.FIELD_MANAGER)


SHA = "4864ac796b2cf2ffcec4467e797e3501cec293bb"  # the commit a saved plan was made at
IDENTITY = PlanIdentity("default", "driftctl", SOURCE, SHA, "default", CrdIdentity.current())


def finished(cluster: ModelCluster, prep: Preparation) -> Plan:
    """The plan of `prep`, its candidates dry-run on the model as the shell dry-runs them
    (an apply of each manifest, and each revert of fields set outside Git)."""
    results = {
        candidate.key: cluster.apply(candidate.manifest, c.FIELD_MANAGER, dry_run=True)
        for candidate in prep.candidates
        if candidate.apply
    }
    reverted = {
        candidate.key: cluster.patch(candidate.key, list(candidate.revert.patch), dry_run=True)
        for candidate in prep.candidates
        if candidate.revert is not None
    }
    return finish(prep, results, reverted)


def carried_out(cluster: ModelCluster, the_plan: Plan) -> ModelCluster:
    """Every step of the plan but its status writes, carried out on the model."""
    for stage in the_plan.stages:
        for chain in stage:
            for step in chain:
                if not isinstance(step, WriteStatus):
                    carry_out(cluster, step)
    return cluster
