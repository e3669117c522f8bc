"""Plan decisions the golden cases do not show: guards, orphans, replace, refused dry-runs."""

from __future__ import annotations

import copy

from driftctl import conventions as c
from driftctl.core.planning.actions import Create, Prune, Refused, Replace, Update, bind_owner
from driftctl.core.planning.candidates import Candidate, DryRunError, Preparation
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, webapp_manifest
from driftctl.core.planning.objects import Obj, ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.settings import MaxPrune, Policy
from tests.support.builders import live_deployment, live_webapp

STAMP = Stamp("default", "1" * 40, "https://git.example.org/team/apps.git#apps")
SHOP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
BLOG = WebApp("blog", "web", WebAppSpec("ghost:5", 1))
WEBAPP = ObjectKey(c.KIND, "web", "shop")
DEPLOYMENT = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")


def live(webapps: list[Obj], deployments: list[Obj]) -> LiveState:
    return LiveState.of(webapps, deployments)


def verbs(prep: Preparation) -> list[tuple[str, Verb]]:
    plan = finish(prep, {})
    return [(action.key.display, action.verb) for action in plan.actions]


def test_empty_desired_set_prunes_nothing_and_says_why() -> None:
    prep = prepare([], live([live_webapp()], [live_deployment()]), STAMP)
    plan = finish(prep, {})

    assert [(a.key, a.verb) for a in plan.actions] == [(WEBAPP, Verb.SKIP)]
    assert "--allow-empty" in plan.refusals[0]
    assert not plan.has_changes


def test_too_many_prunes_are_all_refused() -> None:
    webapps = [live_webapp(name) for name in ("a", "b", "c")]

    plan = finish(prepare([SHOP], live(webapps, []), STAMP), {WEBAPP: None})

    skipped = [a for a in plan.actions if a.verb is Verb.SKIP]
    assert len(skipped) == 3
    assert "refusing to prune 3 objects" in plan.refusals[0]
    assert "--max-prune" in plan.refusals[0]


def test_no_prune_keeps_objects_but_still_finishes_cleanups() -> None:
    gone = live_webapp("old")
    deleted = live_webapp("deleted")
    deleted["metadata"]["deletionTimestamp"] = "2026-11-21T09:00:00Z"
    got = verbs(prepare([SHOP], live([gone, deleted], []), STAMP, Policy(prune=False)))

    assert ("WebApp/web/deleted", Verb.CLEANUP) in got
    assert ("WebApp/web/old", Verb.SKIP) in got


def test_deployment_goes_with_its_pruned_owner_not_on_its_own() -> None:
    plan = finish(prepare([BLOG], live([live_webapp()], [live_deployment()]), STAMP), {})

    [prune] = [a for a in plan.actions if isinstance(a, Prune)]
    assert prune.key == WEBAPP
    assert [owned.key for owned in prune.owned] == [DEPLOYMENT]
    assert prune.delete["preconditions"] == {"uid": "uid-shop", "resourceVersion": "5012"}
    assert prune.finalizer_patch[0]["op"] == "test"


def test_orphaned_deployment_is_pruned_on_its_own() -> None:
    policy = Policy(max_prune=MaxPrune(100, percent=True))

    plan = finish(prepare([BLOG], live([], [live_deployment()]), STAMP, policy), {})

    [prune] = [a for a in plan.actions if isinstance(a, Prune)]
    assert prune.key == DEPLOYMENT
    assert prune.reason == "its WebApp is gone (orphaned)"


def test_webapp_deleted_without_our_finalizer_is_left_alone() -> None:
    webapp = live_webapp()
    webapp["metadata"]["finalizers"] = ["example.org/other"]
    webapp["metadata"]["deletionTimestamp"] = "2026-11-21T09:00:00Z"

    got = verbs(prepare([SHOP], live([webapp], [live_deployment()]), STAMP))

    assert got == [("WebApp/web/shop", Verb.SKIP), ("Deployment/web/shop", Verb.SKIP)]


def test_webapp_without_the_finalizer_gets_it_through_the_apply() -> None:
    webapp = live_webapp()
    del webapp["metadata"]["finalizers"]

    prep = prepare([SHOP], live([webapp], [live_deployment()]), STAMP)

    assert [candidate.key for candidate in prep.candidates] == [WEBAPP]
    assert prep.candidates[0].manifest["metadata"]["finalizers"] == [c.FINALIZER]


def test_changed_selector_is_planned_as_replace_with_recreate() -> None:
    deployment = live_deployment()
    deployment["spec"]["selector"]["matchLabels"]["tier"] = "web"
    state = live([live_webapp()], [deployment])

    plan = finish(prepare([SHOP], state, STAMP, Policy(recreate=True)), {})

    [replace] = [a for a in plan.actions if a.key == DEPLOYMENT]
    assert isinstance(replace, Replace)
    assert "immutable" in replace.reason
    assert replace.delete["preconditions"]["uid"] == deployment["metadata"]["uid"]
    assert any(change.path == "spec.selector" for change in replace.changes)


def test_refused_dry_run_becomes_a_skip_with_the_error() -> None:
    webapp = live_webapp()
    webapp["spec"]["replicas"] = 5
    prep = prepare([SHOP], live([webapp], []), STAMP)

    plan = finish(prep, {WEBAPP: DryRunError("spec.replicas: Invalid value")})

    [refused] = [a for a in plan.actions if a.key == WEBAPP]
    assert isinstance(refused, Refused)
    assert refused.verb is Verb.SKIP
    assert refused.error == "spec.replicas: Invalid value"


def test_dry_run_differing_only_in_the_stamp_is_unchanged() -> None:
    webapp = live_webapp()
    answer = copy.deepcopy(webapp)
    answer["metadata"]["annotations"][c.REVISION_ANNOTATION] = "2" * 40
    manifest = webapp_manifest(SHOP, STAMP)
    candidates = (Candidate(WEBAPP, manifest, webapp),)
    prep = Preparation(candidates, (WEBAPP,), (), STAMP.revision, c.FIELD_MANAGER)

    plan = finish(prep, {WEBAPP: answer})

    assert plan.actions[0].verb is Verb.UNCHANGED


def test_taking_back_ownership_alone_is_an_update_that_says_so() -> None:
    webapp = live_webapp()
    del webapp["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:replicas"]
    webapp["metadata"]["managedFields"].append(
        {
            "manager": "kubectl-edit",
            "operation": "Update",
            "apiVersion": c.API_VERSION,
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
        }
    )
    prep = prepare([SHOP], live([webapp], [live_deployment()]), STAMP)

    plan = finish(prep, {WEBAPP: live_webapp()})

    update = plan.actions[0]
    assert isinstance(update, Update)
    assert update.patch == ()
    assert "ownership of spec.replicas" in update.reason


def test_bind_owner_fills_in_the_uid_of_a_new_webapp() -> None:
    prep = prepare([SHOP], live([], []), STAMP)
    [deployment] = [a for a in finish(prep, {WEBAPP: None}).actions if a.key == DEPLOYMENT]

    assert isinstance(deployment, Create)
    assert deployment.owner == WEBAPP
    bound = bind_owner(deployment.manifest, "uid-new")

    assert bound["metadata"]["ownerReferences"][0]["uid"] == "uid-new"
    assert deployment.manifest["metadata"]["ownerReferences"][0]["uid"] == ""


def test_deployment_awaiting_its_webapp_names_managers_other_than_the_field_manager() -> None:
    # A Deployment left behind by a deleted WebApp, its replicas scaled by kubectl; the
    # WebApp is created again in this run by a driftctl that uses its own field manager.
    deployment = live_deployment()
    deployment["spec"]["replicas"] = 9
    deployment["metadata"]["managedFields"][0]["manager"] = "ops-driftctl"
    deployment["metadata"]["managedFields"].append(
        {
            "manager": "kubectl-scale",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
        }
    )

    prep = prepare([SHOP], live([], [deployment]), STAMP, manager="ops-driftctl")
    [update] = [a for a in finish(prep, {WEBAPP: None}).actions if a.key == DEPLOYMENT]

    assert isinstance(update, Update)
    assert update.managers == ("kubectl-scale",)
