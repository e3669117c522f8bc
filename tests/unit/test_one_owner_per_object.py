"""Whose object is it: conflicts, adoption, and what a plan reads to know (nothing more
when nothing drifted)."""

from __future__ import annotations

import copy
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.actions import Conflict, Skip, Update
from driftctl.core.planning.extra_reads import CLUSTER_WIDE, ExtraReads, Reach, extra_reads
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.settings import Policy
from tests.support.builders import captured_deployment, captured_webapp
from tests.support.goldens import load_object

STAMP = Stamp("default", "1" * 40, "repo#apps")
SHOP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
WEBAPP = ObjectKey(c.KIND, "web", "shop")
DEPLOYMENT = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")


def actions(state: LiveState, policy: Policy | None = None) -> dict[ObjectKey, Any]:
    plan = finish(
        prepare([SHOP], state, STAMP, policy), {WEBAPP: load_object({"$ref": "webapp-shop.json"})}
    )
    return {action.key: action for action in plan.actions}


def test_a_webapp_of_another_instance_is_a_conflict_and_its_deployment_left_alone() -> None:
    state = LiveState.of([], []).with_found(
        [captured_webapp(labels={c.INSTANCE_LABEL: "blue"})], [], []
    )

    got = actions(state)

    assert isinstance(got[WEBAPP], Conflict)
    assert (
        got[WEBAPP].reason
        == f"belongs to instance blue ({c.INSTANCE_LABEL}=blue); never taken over"
    )
    assert isinstance(got[DEPLOYMENT], Skip)
    plan = finish(prepare([SHOP], state, STAMP), {})
    assert plan.declared == ()  # its status is not ours to write
    assert plan.differs
    assert not plan.has_changes


def test_a_webapp_without_an_instance_label_is_adopted() -> None:
    state = LiveState.of([], []).with_found([captured_webapp(labels={})], [], [])

    prep = prepare([SHOP], state, STAMP)

    [candidate, *_] = prep.candidates
    assert candidate.key == WEBAPP
    assert candidate.live is not None
    assert candidate.notes.reason == "made without an instance label, declared in Git"
    assert candidate.adopting


def test_a_deployment_not_controlled_by_its_webapp_is_a_conflict_even_with_recreate() -> None:
    live_webapp = load_object({"$ref": "webapp-shop.json"})
    by_hand = captured_deployment(labels={"app": "shop"}, owners=[])
    by_hand["spec"]["selector"] = {"matchLabels": {"app": "shop"}}  # would need a replace
    other = {"kind": "ReplicaSet", "name": "x", "uid": "u", "controller": True}

    for found, detail in (
        (by_hand, "no controller"),
        (captured_deployment(labels={}, owners=[other]), "controlled by ReplicaSet/x"),
    ):
        state = LiveState.of([live_webapp], []).with_found([], [found], [])
        got = actions(state, Policy(recreate=True))[DEPLOYMENT]
        assert isinstance(got, Conflict), got
        assert detail in got.reason
        assert got.reason.endswith("never updated, replaced or deleted")


def test_a_deployment_driftctl_made_whose_owner_reference_was_stripped_is_drift() -> None:
    live_webapp = load_object({"$ref": "webapp-shop.json"})
    stripped = captured_deployment(owners=[])  # labels and driftctl's Apply entry stay

    prep = prepare([SHOP], LiveState.of([live_webapp], [stripped]), STAMP)

    [candidate] = [cand for cand in prep.candidates if cand.key == DEPLOYMENT]
    assert candidate.live is stripped
    assert (
        candidate.manifest["metadata"]["ownerReferences"][0]["uid"]
        == live_webapp["metadata"]["uid"]
    )


def test_without_driftctls_apply_entry_the_same_labels_prove_nothing() -> None:
    live_webapp = load_object({"$ref": "webapp-shop.json"})
    copied = captured_deployment(owners=[])
    for entry in copied["metadata"]["managedFields"]:
        entry["manager"] = "kubectl-create" if entry["manager"] == "driftctl" else entry["manager"]

    got = actions(LiveState.of([live_webapp], [copied]))[DEPLOYMENT]

    assert isinstance(got, Conflict), got
    assert "no controller: made by hand or by another tool" in got.reason


def test_a_deployment_controlled_by_a_webapp_of_its_name_but_another_uid_is_a_conflict() -> None:
    # A WebApp "shop" was deleted and made again (a new uid) while its old Deployment stayed:
    # the name matches, the controller is not this WebApp.
    live_webapp = load_object({"$ref": "webapp-shop.json"})
    stale = load_object({"$ref": "deployment-shop.json"})
    stale["metadata"]["ownerReferences"][0]["uid"] = "0a0a0a0a-another-uid"
    state = LiveState.of([live_webapp], [stale])

    got = actions(state, Policy(recreate=True))[DEPLOYMENT]

    assert isinstance(got, Conflict), got
    assert got.reason == (
        "is not controlled by WebApp/web/shop (controlled by WebApp/shop uid "
        "0a0a0a0a-another-uid); never updated, replaced or deleted"
    )


def test_a_deployment_controlled_by_its_webapp_is_its_own_even_without_the_label() -> None:
    live_webapp = load_object({"$ref": "webapp-shop.json"})
    unlabelled = load_object({"$ref": "deployment-shop.json"})
    del unlabelled["metadata"]["labels"][c.INSTANCE_LABEL]
    state = LiveState.of([live_webapp], []).with_found([], [unlabelled], [])

    prep = prepare([SHOP], state, STAMP)

    [candidate] = [cand for cand in prep.candidates if cand.key == DEPLOYMENT]
    assert candidate.live is unlabelled


def test_a_new_webapp_over_a_deployment_made_by_hand_plans_a_conflict_not_a_create() -> None:
    state = LiveState.of([], []).with_found(
        [], [captured_deployment(labels={"app": "shop"}, owners=[])], []
    )

    got = finish(prepare([SHOP], state, STAMP), {WEBAPP: None})

    assert [(a.key.kind, a.verb) for a in got.actions] == [
        (c.KIND, Verb.CREATE),
        (c.DEPLOYMENT_KIND, Verb.CONFLICT),
    ]


def test_this_instances_deployment_left_by_a_gone_webapp_is_taken_back() -> None:
    orphan = load_object({"$ref": "deployment-shop.json"})

    got = finish(prepare([SHOP], LiveState.of([], [orphan]), STAMP), {WEBAPP: None})

    assert isinstance(got.actions[1], Update)
    assert got.actions[1].owner == WEBAPP


def test_nothing_more_is_read_when_nothing_drifted() -> None:
    live = LiveState.of(
        [load_object({"$ref": "webapp-shop.json"})], [load_object({"$ref": "deployment-shop.json"})]
    )

    assert extra_reads([SHOP], live, c.FIELD_MANAGER) == ExtraReads()


def test_a_missing_object_lists_its_namespace_and_moved_replicas_the_autoscalers() -> None:
    scaled = load_object({"$ref": "deployment-shop.json"})
    scaled["spec"]["replicas"] = 5
    blog = WebApp("blog", "news", WebAppSpec("ghost:5", 1))
    live = LiveState.of([load_object({"$ref": "webapp-shop.json"})], [scaled])

    news = Reach(("news",))
    assert extra_reads([SHOP, blog], live, c.FIELD_MANAGER) == ExtraReads(news, news, True)


def test_past_a_few_namespaces_one_cluster_wide_list_is_cheaper() -> None:
    apps = [WebApp("a", f"ns-{i}", WebAppSpec("x", 1)) for i in range(CLUSTER_WIDE + 1)]

    needed = extra_reads(apps, LiveState.of([], []), c.FIELD_MANAGER)

    assert needed.webapps == needed.deployments == Reach((), everywhere=True)


def test_the_autoscalers_say_which_deployment_each_scales() -> None:
    hpa: dict[str, Any] = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "shop-hpa", "namespace": "web"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "shop"}},
    }
    other = copy.deepcopy(hpa)
    other["spec"]["scaleTargetRef"]["kind"] = "StatefulSet"

    state = LiveState.of([], []).with_found([], [], [hpa, other])

    assert state.autoscalers == {("web", "shop"): "HorizontalPodAutoscaler/web/shop-hpa"}
