"""Plan decisions the golden cases do not show: guards, orphans, replace, refused dry-runs."""

from __future__ import annotations

import copy
from typing import Any

from driftctl import conventions as c
from driftctl.core.desired import Stamp, webapp_manifest
from driftctl.core.entries import (
    Action,
    Candidate,
    DryRunError,
    PlanOptions,
    Preparation,
    bind_owner,
)
from driftctl.core.guards import MaxPrune, PruneOptions
from driftctl.core.model import WebApp, WebAppSpec
from driftctl.core.objects import ObjectKey
from driftctl.core.plan import finish, prepare
from tests.unit.goldens import load_object

STAMP = Stamp("default", "1" * 40, "https://git.example.org/team/apps.git#apps")
SHOP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
BLOG = WebApp("blog", "web", WebAppSpec("ghost:5", 1))
WEBAPP = ObjectKey(c.KIND, "web", "shop")
DEPLOYMENT = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")


def live_webapp(name: str = "shop") -> dict[str, Any]:
    obj = load_object({"$ref": "webapp-shop.json"})
    obj["metadata"]["name"] = name
    obj["metadata"]["uid"] = f"uid-{name}"
    return obj


def live_deployment() -> dict[str, Any]:
    obj = load_object({"$ref": "deployment-shop.json"})
    obj["metadata"]["ownerReferences"][0]["uid"] = "uid-shop"
    managed = obj["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"]
    managed["f:ownerReferences"] = {'k:{"uid":"uid-shop"}': {}}
    return obj


def actions(prep: Preparation) -> list[tuple[str, Action]]:
    plan = finish(prep, {})
    return [(entry.key.display, entry.action) for entry in plan.entries]


def test_empty_desired_set_prunes_nothing_and_says_why() -> None:
    prep = prepare([], [live_webapp()], [live_deployment()], STAMP)
    plan = finish(prep, {})

    assert [(e.key, e.action) for e in plan.entries] == [(WEBAPP, Action.SKIP)]
    assert "--allow-empty" in plan.refusals[0]
    assert not plan.has_changes


def test_too_many_prunes_are_all_refused() -> None:
    live = [live_webapp(name) for name in ("a", "b", "c")]

    plan = finish(prepare([SHOP], live, [], STAMP), {WEBAPP: None})

    skipped = [e for e in plan.entries if e.action is Action.SKIP]
    assert len(skipped) == 3
    assert "refusing to prune 3 objects" in plan.refusals[0]
    assert "--max-prune" in plan.refusals[0]


def test_no_prune_keeps_objects_but_still_finishes_cleanups() -> None:
    gone = live_webapp("old")
    deleted = live_webapp("deleted")
    deleted["metadata"]["deletionTimestamp"] = "2026-11-21T09:00:00Z"
    options = PlanOptions(prune=PruneOptions(prune=False))

    got = actions(prepare([SHOP], [gone, deleted], [], STAMP, options))

    assert ("WebApp/web/deleted", Action.CLEANUP) in got
    assert ("WebApp/web/old", Action.SKIP) in got


def test_deployment_goes_with_its_pruned_owner_not_on_its_own() -> None:
    plan = finish(prepare([BLOG], [live_webapp()], [live_deployment()], STAMP), {})

    [prune] = [e for e in plan.entries if e.action is Action.PRUNE]
    assert prune.key == WEBAPP
    assert [owned.key for owned in prune.owned] == [DEPLOYMENT]
    assert prune.delete is not None
    assert prune.delete["preconditions"] == {"uid": "uid-shop", "resourceVersion": "5012"}
    assert prune.finalizer_patch[0]["op"] == "test"


def test_orphaned_deployment_is_pruned_on_its_own() -> None:
    options = PlanOptions(prune=PruneOptions(max_prune=MaxPrune(100, percent=True)))

    plan = finish(prepare([BLOG], [], [live_deployment()], STAMP, options), {})

    [prune] = [e for e in plan.entries if e.action is Action.PRUNE]
    assert prune.key == DEPLOYMENT
    assert prune.reason == "its WebApp is gone (orphaned)"


def test_webapp_deleted_without_our_finalizer_is_left_alone() -> None:
    live = live_webapp()
    live["metadata"]["finalizers"] = ["example.org/other"]
    live["metadata"]["deletionTimestamp"] = "2026-11-21T09:00:00Z"

    got = actions(prepare([SHOP], [live], [live_deployment()], STAMP))

    assert got == [("WebApp/web/shop", Action.SKIP), ("Deployment/web/shop", Action.SKIP)]


def test_webapp_without_the_finalizer_gets_it_through_the_apply() -> None:
    live = live_webapp()
    del live["metadata"]["finalizers"]

    prep = prepare([SHOP], [live], [live_deployment()], STAMP)

    assert [candidate.key for candidate in prep.candidates] == [WEBAPP]
    assert prep.candidates[0].manifest["metadata"]["finalizers"] == [c.FINALIZER]


def test_changed_selector_is_planned_as_replace() -> None:
    live = live_deployment()
    live["spec"]["selector"]["matchLabels"]["tier"] = "web"

    plan = finish(prepare([SHOP], [live_webapp()], [live], STAMP), {})

    [replace] = [e for e in plan.entries if e.key == DEPLOYMENT]
    assert replace.action is Action.REPLACE
    assert "immutable" in replace.reason
    assert replace.delete is not None
    assert any(change.path == "spec.selector" for change in replace.changes)


def test_refused_dry_run_becomes_a_skip_with_the_error() -> None:
    live = live_webapp()
    live["spec"]["replicas"] = 5
    prep = prepare([SHOP], [live], [], STAMP)

    plan = finish(prep, {WEBAPP: DryRunError("spec.replicas: Invalid value")})

    [entry] = [e for e in plan.entries if e.key == WEBAPP]
    assert entry.action is Action.SKIP
    assert entry.error == "spec.replicas: Invalid value"


def test_dry_run_differing_only_in_the_stamp_is_unchanged() -> None:
    live = live_webapp()
    answer = copy.deepcopy(live)
    answer["metadata"]["annotations"][c.REVISION_ANNOTATION] = "2" * 40
    manifest = webapp_manifest(SHOP, STAMP)
    prep = Preparation((Candidate(WEBAPP, manifest, live),), (), STAMP.revision, c.FIELD_MANAGER)

    plan = finish(prep, {WEBAPP: answer})

    assert plan.entries[0].action is Action.UNCHANGED


def test_taking_back_ownership_alone_is_an_update_that_says_so() -> None:
    live = live_webapp()
    del live["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:replicas"]
    live["metadata"]["managedFields"].append(
        {
            "manager": "kubectl-edit",
            "operation": "Update",
            "apiVersion": c.API_VERSION,
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
        }
    )
    prep = prepare([SHOP], [live], [live_deployment()], STAMP)

    plan = finish(prep, {WEBAPP: live_webapp()})

    entry = plan.entries[0]
    assert entry.action is Action.UPDATE
    assert entry.patch == ()
    assert "ownership of spec.replicas" in entry.reason


def test_bind_owner_fills_in_the_uid_of_a_new_webapp() -> None:
    prep = prepare([SHOP], [], [], STAMP)
    [deployment] = [e for e in finish(prep, {WEBAPP: None}).entries if e.key == DEPLOYMENT]

    assert deployment.owner == WEBAPP
    assert deployment.manifest is not None
    bound = bind_owner(deployment.manifest, "uid-new")

    assert bound["metadata"]["ownerReferences"][0]["uid"] == "uid-new"
    assert deployment.manifest["metadata"]["ownerReferences"][0]["uid"] == ""
