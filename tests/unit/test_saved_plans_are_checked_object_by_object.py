"""Saved plans: the file round-trips, bad files are refused with file and reason, and the
pure comparison decides per object whether a moved object may proceed.

Plans are made by the pure core against tests/support/ssa_model.py; the real control plane
runs the same in tests/integration/test_saved_plans_apply_exactly_what_was_approved.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftctl import conventions as c
from driftctl.core.planning.actions import Plan, Refused, Unchanged, Update
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.planning.saved_plan import (
    CrdIdentity,
    PlanIdentity,
    SavedPlanError,
    parse_saved_plan,
    recheck,
    refusal,
    saved_plan_json,
)
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import WebApp
from driftctl.settings import MaxPrune, Policy
from tests.support.builders import app, webapp
from tests.support.clirun import run_driftctl
from tests.support.gitrepos import Repo
from tests.support.model_runs import IDENTITY, SHA, SOURCE
from tests.support.ssa_model import ModelCluster

STAMP = Stamp("default", SHA, SOURCE)
POLICY = Policy(max_prune=MaxPrune(100, percent=True), recreate=True)
SHOP = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")


def state(cluster: ModelCluster) -> LiveState:
    return LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))


def planned(cluster: ModelCluster, desired: list[WebApp]) -> Plan:
    preparation = prepare(desired, state(cluster), STAMP, POLICY)
    answers = {
        k.key: cluster.apply(k.manifest, c.FIELD_MANAGER, dry_run=True)
        for k in preparation.candidates
    }
    return finish(preparation, answers)


def scenario() -> tuple[ModelCluster, list[WebApp], Plan]:
    """shop and blog applied; the commit changes shop's image, drops blog, adds cart."""
    cluster = ModelCluster()
    for each in (app("shop"), app("blog")):
        owner = cluster.apply(webapp_manifest(each, Stamp("default", "1" * 40, SOURCE)), "driftctl")
        cluster.apply(build_deployment(each, "default", owner["metadata"]["uid"]), "driftctl")
    desired = [app("shop", "nginx:1.28"), app("cart")]
    return cluster, desired, planned(cluster, desired)


def test_the_file_reads_back_as_the_plan_it_was_written_from() -> None:
    cluster, _, plan = scenario()

    text = saved_plan_json(plan, state(cluster), IDENTITY, POLICY)
    saved = parse_saved_plan(text, "plan.json")

    assert saved.plan == plan
    assert saved.identity == IDENTITY
    assert saved.policy == POLICY
    assert {key.display: base is None for key, base in saved.bases.items()} == {
        "WebApp/web/blog": False,
        "WebApp/web/shop": False,
        "Deployment/web/shop": False,
        "WebApp/web/cart": True,
        "Deployment/web/cart": True,
    }


def test_nothing_moved_means_every_saved_action_exactly() -> None:
    cluster, desired, plan = scenario()
    saved = parse_saved_plan(saved_plan_json(plan, state(cluster), IDENTITY, POLICY), "p")

    assert recheck(saved, planned(cluster, desired), state(cluster)) == saved.plan


def test_a_moved_object_proceeds_with_the_same_patch_and_is_refused_with_another() -> None:
    cluster, desired, plan = scenario()
    saved = parse_saved_plan(saved_plan_json(plan, state(cluster), IDENTITY, POLICY), "p")
    # A field nobody plans (another tool's, not a person's) moves shop's Deployment: same
    # action, same patch.
    cluster.update(SHOP, "ops-tool", ("f:metadata", "f:annotations", "f:team"), "x")
    moved_only = recheck(saved, planned(cluster, desired), state(cluster))
    # The cart created by someone else in the meantime: a create would be twice.
    cluster.apply(webapp_manifest(app("cart"), STAMP), "driftctl")
    cart_exists = recheck(saved, planned(cluster, desired), state(cluster))

    [shop] = [a for a in moved_only.actions if a.key == SHOP]
    assert isinstance(shop, Update)
    assert shop is not next(a for a in saved.plan.actions if a.key == SHOP)
    verbs = {a.key.display: (type(a).__name__, a.reason) for a in cart_exists.actions}
    assert verbs["WebApp/web/cart"] == (
        "Refused",
        "changed in the cluster since the plan was made: planned create, now unchanged; "
        "make a new plan",
    )
    assert verbs["Deployment/web/cart"] == (
        "Skip",
        "its WebApp cannot be applied (WebApp/web/cart was refused)",
    )


def test_a_moved_object_with_the_same_verb_and_another_patch_is_refused() -> None:
    # The plan updates shop's image; then a person scales shop's Deployment: the update is
    # still an update, but its patch now also resets the replicas, which nobody approved.
    cluster, desired, plan = scenario()
    saved = parse_saved_plan(saved_plan_json(plan, state(cluster), IDENTITY, POLICY), "p")
    cluster.update(SHOP, "kubectl-scale", ("f:spec", "f:replicas"), 5)

    result = recheck(saved, planned(cluster, desired), state(cluster))

    [before] = [a for a in saved.plan.actions if a.key == SHOP]
    [after] = [a for a in result.actions if a.key == SHOP]
    assert before.verb is Verb.UPDATE
    assert isinstance(after, Refused)
    assert after.reason == (
        "changed in the cluster since the plan was made: planned update, now update with "
        "another patch; make a new plan"
    )
    assert [a.key for a in result.actions if isinstance(a, Refused)] == [SHOP]


def test_an_unchanged_object_that_drifted_since_is_refused() -> None:
    cluster = ModelCluster()
    owner = cluster.apply(webapp_manifest(app("shop"), STAMP), "driftctl")
    cluster.apply(build_deployment(app("shop"), "default", owner["metadata"]["uid"]), "driftctl")
    plan = planned(cluster, [app("shop")])
    saved = parse_saved_plan(saved_plan_json(plan, state(cluster), IDENTITY, POLICY), "p")
    cluster.update(SHOP, "kubectl-scale", ("f:spec", "f:replicas"), 5)

    result = recheck(saved, planned(cluster, [app("shop")]), state(cluster))

    assert all(isinstance(a, Unchanged) for a in plan.actions)
    [refused] = [a for a in result.actions if isinstance(a, Refused)]
    assert (refused.key, refused.verb) == (SHOP, Verb.SKIP)


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        pytest.param("instance", "other", "instance 'other', not 'default'", id="instance"),
        pytest.param("source", "x#apps", "source 'x#apps'", id="source"),
        pytest.param("namespace", "prod", "default namespace 'prod'", id="namespace"),
        pytest.param("shard", "shard 1 of 2", "shard 'shard 1 of 2'", id="shard"),
    ],
)
def test_a_plan_made_for_something_else_is_refused_whole(
    field: str, value: str, reason: str
) -> None:
    other = PlanIdentity(**{**IDENTITY.__dict__, field: value})

    message = refusal(other, IDENTITY)

    assert message is not None
    assert reason in message


def test_another_crd_is_refused() -> None:
    other = PlanIdentity(**{**IDENTITY.__dict__, "crd": CrdIdentity(c.CRD_NAME, "v2", "sha256:0")})
    assert "the plan was made for CRD" in (refusal(other, IDENTITY) or "")


def valid_document() -> dict[str, object]:
    cluster, _, plan = scenario()
    document: dict[str, object] = json.loads(
        saved_plan_json(plan, state(cluster), IDENTITY, POLICY)
    )
    return document


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        pytest.param({"format": "other"}, "not a saved driftctl plan", id="format"),
        pytest.param({"version": 3}, "version 3 is not supported", id="version"),
        pytest.param({"source": []}, "source: must be an object", id="source"),
        pytest.param({"objects": {}}, "objects: must be a list", id="objects"),
        pytest.param(
            {"policy": {"prune": True, "allowEmpty": False, "maxPrune": "half", "recreate": False}},
            "policy.maxPrune: --max-prune must be a count N or a percentage P%",
            id="max-prune",
        ),
    ],
)
def test_a_malformed_file_is_refused_naming_the_file_and_the_field(
    change: dict[str, object], reason: str
) -> None:
    text = json.dumps(valid_document() | change)

    with pytest.raises(SavedPlanError) as refused:
        parse_saved_plan(text, "plan.json")

    assert str(refused.value).startswith(f"plan.json: {reason}")


def test_an_unknown_action_is_refused_with_its_place() -> None:
    document = valid_document()
    objects = document["objects"]
    assert isinstance(objects, list)
    objects[1]["action"] = "explode"

    with pytest.raises(SavedPlanError, match=r"^plan.json: objects\[1\].action: 'explode' is not"):
        parse_saved_plan(json.dumps(document), "plan.json")


def test_not_json_is_refused() -> None:
    with pytest.raises(SavedPlanError, match=r"^plan\.json: not JSON"):
        parse_saved_plan("{", "plan.json")


def test_a_dirty_working_tree_is_not_saved_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Repo(tmp_path / "repo").write({"apps/web.yaml": webapp("web")})
    repo.commit()
    repo.write({"apps/api.yaml": webapp("api")})
    out = tmp_path / "plan.json"

    ran = run_driftctl(
        ["plan", "--repo", str(repo.path), "--path", "apps", "--out", str(out)], capsys, monkeypatch
    )

    assert ran.code == 2
    assert "a saved plan records one commit, and this desired state is" in ran.err
    assert "-dirty: commit the change or pass --ref" in ran.err
    assert not out.exists()
