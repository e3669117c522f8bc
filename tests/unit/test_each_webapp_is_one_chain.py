"""The order to act in: removals first, then one chain per WebApp (WebApp, Deployment,
status); apply's creates are checked by their own answer and a refusal reads as plan's."""

from __future__ import annotations

from driftctl import conventions as c
from driftctl.core.planning.actions import Cleanup, Create, Refused, Skip, Unchanged, WriteStatus
from driftctl.core.planning.candidates import DryRunError
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import after_refusal, finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.source.model import WebApp, WebAppSpec
from tests.support.builders import live_deployment, live_webapp

STAMP = Stamp("default", "1" * 40, "https://git.example.org/team/apps.git#apps")
SHOP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
BLOG = WebApp("blog", "web", WebAppSpec("ghost:5", 1))
WEBAPP = ObjectKey(c.KIND, "web", "shop")
DEPLOYMENT = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")
BLOG_APP = ObjectKey(c.KIND, "web", "blog")
BLOG_DEPLOYMENT = ObjectKey(c.DEPLOYMENT_KIND, "web", "blog")


def test_each_webapp_is_a_chain_of_its_webapp_its_deployment_and_its_status() -> None:
    live = LiveState.of([live_webapp()], [live_deployment()])
    prep = prepare([SHOP, BLOG], live, STAMP)

    removals, chains = finish(prep, {BLOG_APP: None}).stages

    assert removals == ()
    assert [[_step(step) for step in chain] for chain in chains] == [
        [("create", BLOG_APP), ("create", BLOG_DEPLOYMENT), ("status", BLOG_APP)],
        [("unchanged", WEBAPP), ("unchanged", DEPLOYMENT), ("status", WEBAPP)],
    ]


def test_a_cleanup_is_done_in_the_first_stage_before_its_webapp_is_created_again() -> None:
    terminating = live_webapp()
    terminating["metadata"]["deletionTimestamp"] = "2026-11-30T10:00:00Z"
    prep = prepare([SHOP], LiveState.of([terminating], [live_deployment()]), STAMP)

    removals, chains = finish(prep, {}).stages

    assert [type(chain[0]) for chain in removals] == [Cleanup]
    assert [_step(step) for step in chains[0]] == [
        ("create", WEBAPP),
        ("create", DEPLOYMENT),
        ("status", WEBAPP),
    ]


def test_apply_checks_a_create_by_the_create_itself_and_still_dry_runs_updates() -> None:
    prep = prepare([SHOP, BLOG], LiveState.of([live_webapp()], []), STAMP)

    plan = finish(prep, {DEPLOYMENT: None}, creates_answer=True)

    assert [c.key for c in prep.updates] == []  # shop's Deployment is absent: a create too
    by_key = {action.key: action for action in plan.actions}
    blog, shop, shop_deployment = by_key[BLOG_APP], by_key[WEBAPP], by_key[DEPLOYMENT]
    assert isinstance(blog, Create)
    assert blog.unchecked
    assert isinstance(shop, Unchanged)
    assert isinstance(shop_deployment, Create)
    assert not shop_deployment.unchecked  # a dry-run answer was given: it is checked


def test_a_refused_create_turns_its_chain_into_what_plan_says_for_a_refused_dry_run() -> None:
    prep = prepare([BLOG], LiveState.of([], []), STAMP)
    message = '404 NotFound: namespaces "web" not found'
    planned = finish(prep, {BLOG_APP: DryRunError(message)})
    [applied_chain] = finish(prep, {}, creates_answer=True).stages[1]
    create = applied_chain[0]
    assert isinstance(create, Create)

    after = after_refusal(applied_chain, create, message)

    [planned_chain] = planned.stages[1]
    assert [type(step) for step in after] == [Refused, Skip, WriteStatus]
    assert after[1:] == planned_chain[1:]  # the Deployment: the same skip, the same reason
    assert isinstance(planned_chain[0], Refused)
    assert isinstance(after[0], Refused)
    assert after[0].error == planned_chain[0].error == message
    assert after[0].reason == planned_chain[0].reason.replace("dry-run", "create")


def _step(step: object) -> tuple[str, ObjectKey]:
    if isinstance(step, WriteStatus):
        return "status", step.key
    return str(step.verb), step.key  # type: ignore[attr-defined]
