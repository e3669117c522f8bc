"""Property, fuzzed: whatever live objects sit beside this instance's — another instance's,
a person's without labels, some under the very names Git declares — the plan never prunes,
replaces or cleans up an object without this instance's label, carrying it out leaves
them byte for byte as they were, and planning again finds nothing more to do.

One documented exception (DESIGN.md section 7): a WebApp without any instance label under
a name Git declares is adopted, with the Deployment it controls, so both are updated —
never deleted; a Deployment it does not control is still left alone.

The live state is split as the shell lists it: this instance's objects by its label
selector, the others found beside them (LiveState.with_found). The cluster is
tests/support/ssa_model.py.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Cleanup,
    Plan,
    Prune,
    Replace,
    WriteStatus,
    is_changing,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.objects import ObjectKey, key_of
from driftctl.core.planning.preparation import prepare
from driftctl.core.source.model import WebApp, WebAppSpec
from tests.support.model_runs import (
    NAMES,
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

OURS = "default"
# Whose an object is: another driftctl instance's, or a person's (no labels at all), whose
# Deployment is controlled by their WebApp or stands alone.
owners = st.sampled_from(("other", "person", "person-bare-deployment"))
other_owners = st.lists(
    st.tuples(st.sampled_from(NAMES), owners), max_size=4, unique_by=lambda f: f[0]
)


def place_another_owners(cluster: ModelCluster, name: str, owner: str) -> None:
    """A WebApp and its Deployment that are not this instance's, under `name` (if free)."""
    if ObjectKey(c.KIND, "web", name) in cluster.objects:
        return
    app = WebApp(name, "web", WebAppSpec("httpd:2", 1))
    stamp = Stamp("other", "9" * 40, "https://git.example.org/other.git#apps")
    webapp = webapp_manifest(app, stamp)
    deployment = build_deployment(app, "other", "uid-of-someone-else")
    person = owner.startswith("person")
    if person:
        for manifest in (webapp, deployment):
            manifest["metadata"].pop("labels")
            manifest["metadata"].pop("annotations", None)
        webapp["metadata"].pop("finalizers")
    made = cluster.apply(webapp, "kubectl" if person else c.FIELD_MANAGER)
    deployment["metadata"]["ownerReferences"][0]["uid"] = made["metadata"]["uid"]
    if owner == "person-bare-deployment":
        deployment["metadata"].pop("ownerReferences")
    if ObjectKey(c.DEPLOYMENT_KIND, "web", name) not in cluster.objects:
        cluster.apply(deployment, "kubectl" if person else c.FIELD_MANAGER)


def is_ours(obj: dict[str, Any]) -> bool:
    labels = obj["metadata"].get("labels") or {}
    return bool(labels.get(c.INSTANCE_LABEL) == OURS)


def labelled(cluster: ModelCluster, key: ObjectKey) -> bool:
    """Whether the object carries any instance label (another instance's, or ours)."""
    labels = cluster.objects[key]["metadata"].get("labels") or {}
    return c.INSTANCE_LABEL in labels


def uid_of(cluster: ModelCluster, key: ObjectKey) -> str:
    return str(cluster.objects[key]["metadata"]["uid"])


def controllers(cluster: ModelCluster, key: ObjectKey) -> set[str]:
    refs = cluster.objects[key]["metadata"].get("ownerReferences") or []
    return {ref["uid"] for ref in refs if ref.get("controller")}


def listed(cluster: ModelCluster) -> LiveState:
    """The live state as the shell reads it: this instance's by its label, then the rest."""
    webapps, deployments = cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND)
    return LiveState.of(
        [o for o in webapps if is_ours(o)], [o for o in deployments if is_ours(o)]
    ).with_found(
        [o for o in webapps if not is_ours(o)], [o for o in deployments if not is_ours(o)], []
    )


def planned(cluster: ModelCluster, desired: list[WebApp], stamp: Stamp) -> Plan:
    prep = prepare(desired, listed(cluster), stamp, POLICY)
    return finished(cluster, prep)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(earlier=app_sets, others=other_owners, changes=drifts, desired=app_sets)
def test_no_plan_prunes_or_changes_an_object_without_this_instances_label(
    earlier: list[WebApp],
    others: list[tuple[str, str]],
    changes: list[tuple[str, str, int]],
    desired: list[WebApp],
) -> None:
    cluster = ModelCluster()
    before, now = Stamp(OURS, "1" * 40, SOURCE), Stamp(OURS, "2" * 40, SOURCE)
    earlier_run(cluster, earlier, before)
    for name, owner in others:
        place_another_owners(cluster, name, owner)
    for what, name, number in changes:
        drift(cluster, what, name, number, before)
    declared = {app.name for app in desired}
    their_keys = {
        key_of(obj)
        for kind in (c.KIND, c.DEPLOYMENT_KIND)
        for obj in cluster.listed(kind)
        if not is_ours(obj)
    }
    adopted = {
        uid_of(cluster, key)
        for key in their_keys
        if key.kind == c.KIND and key.name in declared and not labelled(cluster, key)
    }
    theirs = {  # what must stay as it is: all but the adopted WebApps and what they control
        key: copy.deepcopy(cluster.objects[key])
        for key in their_keys
        if not {uid_of(cluster, key), *controllers(cluster, key)} & adopted
    }

    first = planned(cluster, desired, now)
    for action in first.actions:
        if isinstance(action, Prune | Cleanup | Replace):
            assert action.key not in their_keys, (action.key.display, action.verb)
            owned = getattr(action, "owned", ())
            assert all(o.key not in their_keys for o in owned), action.key.display
    for stage in first.stages:
        for chain in stage:
            for step in chain:
                if not isinstance(step, WriteStatus):
                    carry_out(cluster, step)
    second = planned(cluster, desired, now)

    assert {key: cluster.objects.get(key) for key in theirs} == theirs
    assert [(a.key.display, a.verb) for a in second.actions if is_changing(a)] == []
