"""The controls, decided in the pure core with an injected clock: what each holds, what it
leaves to run, and what a plan says about it (core.planning.controls, holding, pending).

The cluster is tests/support/ssa_model.py, a model of server-side apply; the integration
tests (test_controls_on_the_control_plane) show the same on the real control plane.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import (
    Cleanup,
    Confirm,
    Held,
    Orphan,
    Plan,
    Prune,
    Quarantine,
    Unchanged,
    Update,
    is_changing,
    kept_of,
)
from driftctl.core.planning.controls import Control, Situation
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.preparation import prepare
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import Origin, WebApp
from driftctl.policies import DriftPolicy, Propagation, Suspension
from driftctl.settings import MaxPrune, Policy
from driftctl.settings.declare import from_written
from tests.support.builders import app
from tests.support.model_runs import (
    NAMES,
    SOURCE,
    app_sets,
    carried_out,
    drift,
    drifts,
    earlier_run,
    finished,
)
from tests.support.ssa_model import ModelCluster

NOW = datetime.datetime(2026, 12, 4, 17, 30, tzinfo=datetime.UTC)  # a Friday
BEFORE, AFTER = Stamp("default", "1" * 40, SOURCE), Stamp("default", "2" * 40, SOURCE)
SHOP, BLOG = app("shop", replicas=2), app("blog", replicas=1)
WEBAPP, DEPLOYMENT = ObjectKey(c.KIND, "web", "shop"), ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")
POLICY = Policy(max_prune=MaxPrune(100, percent=True))
GRACE = datetime.timedelta(hours=12)
FRIDAY = Situation(NOW)
REPLICAS = ("f:spec", "f:replicas")
IMAGE = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}', "f:image")


def plan(
    cluster: ModelCluster,
    desired: list[WebApp],
    *,
    policy: Policy = POLICY,
    situation: Situation = FRIDAY,
    stamp: Stamp = AFTER,
) -> Plan:
    """The plan against the model cluster, its candidates dry-run there."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    prep = prepare(desired, live, stamp, policy, situation=situation)
    return finished(cluster, prep)


def converged(*apps: WebApp) -> ModelCluster:
    return earlier_run(ModelCluster(), apps, BEFORE)


def scaled(cluster: ModelCluster, replicas: int = 7) -> ModelCluster:
    cluster.update(DEPLOYMENT, "kubectl-scale", REPLICAS, replicas)
    return cluster


def annotated(cluster: ModelCluster, key: ObjectKey, name: str, value: str) -> ModelCluster:
    """`kubectl annotate`: a person's request on the live object."""
    cluster.update(key, "kubectl-annotate", ("f:metadata", "f:annotations", f"f:{name}"), value)
    return cluster


def by_key(the_plan: Plan) -> dict[ObjectKey, Any]:
    return {action.key: action for action in the_plan.actions}


def with_annotations(webapp: WebApp, **values: str) -> WebApp:
    names = {key.replace("_", "-"): value for key, value in values.items()}
    annotations = {f"driftctl.example.com/{key}": value for key, value in names.items()}
    return WebApp(
        webapp.name,
        webapp.namespace,
        webapp.spec,
        annotations=annotations,
        origin=Origin("apps/shop.yaml", 1),
    )


# -- suspensions ------------------------------------------------------------------------


def test_a_suspended_webapp_holds_every_write_and_says_why() -> None:
    cluster = annotated(
        scaled(converged(SHOP)),
        WEBAPP,
        c.SUSPEND_ANNOTATION,
        "until=2026-12-04T18:00:00Z; by=ops; reason=incident 4711",
    )
    before = {key: dict(obj) for key, obj in cluster.objects.items()}

    got = plan(cluster, [SHOP])

    held = by_key(got)[DEPLOYMENT]
    assert isinstance(held, Held)
    assert (held.would, held.control) == (Verb.UPDATE, Control.SUSPEND)
    assert held.reason == "suspended until 2026-12-04 18:00:00 UTC by ops: incident 4711"
    assert [change.path for change in held.changes] == ["spec.replicas"]
    assert not got.has_changes
    assert got.differs
    assert carried_out(cluster, got).objects == before


def test_a_suspension_lapses_at_its_end_time() -> None:
    cluster = annotated(
        scaled(converged(SHOP)), WEBAPP, c.SUSPEND_ANNOTATION, "until=2026-12-04T18:00:00Z"
    )
    end = datetime.datetime(2026, 12, 4, 18, 0, tzinfo=datetime.UTC)

    just_before = plan(cluster, [SHOP], situation=Situation(end - datetime.timedelta(seconds=1)))
    at_the_end = plan(cluster, [SHOP], situation=Situation(end))

    assert isinstance(by_key(just_before)[DEPLOYMENT], Held)
    assert isinstance(by_key(at_the_end)[DEPLOYMENT], Update)


def test_a_suspension_that_cannot_be_read_still_holds_and_says_what_is_wrong() -> None:
    cluster = annotated(scaled(converged(SHOP)), WEBAPP, c.SUSPEND_ANNOTATION, "until=friday")

    held = by_key(plan(cluster, [SHOP]))[DEPLOYMENT]

    assert isinstance(held, Held)
    assert "the annotation cannot be read: until 'friday' is not an RFC 3339 time" in held.reason


def test_the_suspension_annotation_is_never_drift() -> None:
    cluster = annotated(converged(SHOP), WEBAPP, c.SUSPEND_ANNOTATION, "until=2020-01-01T00:00:00Z")

    got = plan(cluster, [SHOP])

    assert [a.verb for a in got.actions] == [Verb.UNCHANGED, Verb.UNCHANGED]


def test_a_suspended_instance_writes_nothing_not_even_a_status() -> None:
    cluster = scaled(converged(SHOP))
    lease = {"metadata": {"annotations": {c.SUSPEND_ANNOTATION: "by=sre; reason=freeze"}}}
    situation = Situation.of(NOW, lease, "Lease ops/driftctl-default")

    got = plan(cluster, [SHOP, BLOG], situation=situation)

    held = by_key(got)
    assert held[DEPLOYMENT].control == Control.INSTANCE
    assert held[ObjectKey(c.KIND, "web", "blog")].would is Verb.CREATE
    assert got.suspended.startswith("the instance is suspended by sre: freeze")
    assert "driftctl.example.com/suspend on Lease ops/driftctl-default" in got.suspended
    assert got.declared == ()  # no status written either
    assert not any(is_changing(action) for action in got.actions)


def test_an_instance_suspension_lapses_by_itself() -> None:
    lease = {"metadata": {"annotations": {c.SUSPEND_ANNOTATION: "until=2026-12-04T17:00:00Z"}}}

    got = plan(scaled(converged(SHOP)), [SHOP], situation=Situation.of(NOW, lease, "Lease"))

    assert got.suspended == ""
    assert isinstance(by_key(got)[DEPLOYMENT], Update)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("incident 4711", Suspension("incident 4711"), id="a-reason"),
        pytest.param(
            "until=2026-12-04T18:00:00+01:00; by=ops; reason=incident 4711",
            Suspension(
                "incident 4711",
                datetime.datetime(2026, 12, 4, 17, 0, tzinfo=datetime.UTC),
                "ops",
            ),
            id="all-three",
        ),
        pytest.param(
            "until=2026-12-04T18:00:00",
            Suspension("", None, "", "until '2026-12-04T18:00:00' needs its zone (Z or +01:00)"),
            id="no-zone",
        ),
        pytest.param(
            "since=monday",
            Suspension(
                "since=monday", problem="write a reason, or until=TIME; by=WHO; reason=TEXT"
            ),
            id="unknown-key",
        ),
    ],
)
def test_a_suspension_is_read_from_its_annotation(text: str, expected: Suspension) -> None:
    assert Suspension.parse(text) == expected


# -- Git's changes and drift ------------------------------------------------------------


def test_hold_keeps_a_git_image_change_unapplied_while_drift_is_still_corrected() -> None:
    cluster = scaled(converged(SHOP))
    changed = with_annotations(app("shop", "nginx:1.28", 2), change_policy="hold")

    got = plan(cluster, [changed])
    carried_out(cluster, got)

    deployment = by_key(got)[DEPLOYMENT]
    assert isinstance(deployment, Update)
    assert [change.path for change in deployment.changes] == ["spec.replicas"]
    [image] = [kept for kept in deployment.kept if kept.held]
    assert (image.live, image.git, image.held) == ("nginx:1.27", "nginx:1.28", Control.CHANGES)
    assert image.reason == (
        "Git's changes are held (driftctl.example.com/change-policy: hold in apps/shop.yaml:1)"
    )
    live = cluster.objects[DEPLOYMENT]
    assert live["spec"]["replicas"] == 2
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    # The policy itself is Git's, applied: it must be on the WebApp after the entry leaves Git.
    annotations = cluster.objects[WEBAPP]["metadata"]["annotations"]
    assert annotations[c.CHANGE_POLICY_ANNOTATION] == "hold"
    assert annotations[c.REVISION_ANNOTATION] == BEFORE.revision  # Git's commit not applied
    again = plan(cluster, [changed])
    assert {a.key: a.verb for a in again.actions} == {WEBAPP: Verb.HOLD, DEPLOYMENT: Verb.HOLD}


def test_a_new_webapp_under_hold_is_not_created() -> None:
    got = plan(ModelCluster(), [with_annotations(SHOP, change_policy="hold")])

    assert [(a.key, a.verb, a.would) for a in got.actions if isinstance(a, Held)] == [
        (WEBAPP, Verb.HOLD, Verb.CREATE),
        (DEPLOYMENT, Verb.HOLD, Verb.CREATE),
    ]


def test_warn_reports_a_scale_and_leaves_it_while_git_changes_are_applied() -> None:
    cluster = scaled(converged(SHOP))
    changed = with_annotations(app("shop", "nginx:1.28", 2), drift_policy="warn")

    got = plan(cluster, [changed])
    carried_out(cluster, got)

    deployment = by_key(got)[DEPLOYMENT]
    assert [change.path for change in deployment.changes] == [
        "spec.template.spec.containers[name=app].image"
    ]
    [replicas] = [kept for kept in deployment.kept if kept.held]
    assert (replicas.path, replicas.live, replicas.git) == ("spec.replicas", 7, 2)
    assert replicas.held == Control.DRIFT
    assert cluster.objects[DEPLOYMENT]["spec"]["replicas"] == 7
    again = by_key(plan(cluster, [changed]))[DEPLOYMENT]
    assert isinstance(again, Held)
    assert again.would is Verb.UPDATE
    assert again.reason.startswith("drift is reported and left as it is")


def test_drift_off_is_neither_corrected_nor_reported_as_a_hold() -> None:
    cluster = scaled(converged(SHOP))

    got = plan(cluster, [SHOP], policy=Policy(drift_policy=DriftPolicy.OFF))

    deployment = by_key(got)[DEPLOYMENT]
    assert isinstance(deployment, Unchanged)
    assert [(k.path, k.held) for k in deployment.kept] == [("spec.replicas", "")]
    assert not got.differs


def test_a_deployment_deleted_under_warn_is_held_not_created_again() -> None:
    cluster = converged(SHOP)
    del cluster.objects[DEPLOYMENT]

    got = plan(cluster, [SHOP], policy=Policy(drift_policy=DriftPolicy.WARN))

    held = by_key(got)[DEPLOYMENT]
    assert isinstance(held, Held)
    assert held.would is Verb.CREATE


@pytest.mark.parametrize("drift", ["warn", "off"])
def test_a_webapp_a_person_deleted_is_cleaned_up_and_created_again_under_any_drift_policy(
    drift: str,
) -> None:
    """Once cleaned up it is absent like a new entry, which the next run would create: this
    run does it already, so that no run says "held" of what the next one writes."""
    shop = with_annotations(SHOP, drift_policy=drift)
    cluster = converged(shop)
    cluster.delete(WEBAPP)

    first = plan(cluster, [shop])
    carried_out(cluster, first)
    second = plan(cluster, [shop])

    assert [a.verb for a in first.actions if a.key == WEBAPP] == [Verb.CLEANUP, Verb.CREATE]
    assert not any(isinstance(a, Held) for a in first.actions)
    assert [a for a in second.actions if is_changing(a)] == []


# -- windows ----------------------------------------------------------------------------

FRIDAY_EVENING = "deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes"


def windowed(*windows: str, override: bool = False) -> Policy:
    return from_written(
        Policy,
        prune=True,
        allow_empty=False,
        max_prune="100%",
        recreate=False,
        windows=windows,
        override_windows=override,
    )


def test_a_deny_window_holds_exactly_its_scope_and_says_until_when() -> None:
    cluster = scaled(converged(SHOP, BLOG))
    changed = app("shop", "nginx:1.28", 2)

    got = plan(cluster, [changed], policy=windowed(FRIDAY_EVENING))

    actions = by_key(got)
    deployment = actions[DEPLOYMENT]
    assert [change.path for change in deployment.changes] == ["spec.replicas"]  # drift: free
    [image] = [kept for kept in deployment.kept if kept.held]
    assert image.held == Control.WINDOW
    assert image.reason == (
        f"inside the deny window '{FRIDAY_EVENING}' until 2026-12-07 10:00 (Europe/Berlin)"
    )
    pruned = actions[ObjectKey(c.KIND, "web", "blog")]
    assert isinstance(pruned, Held)
    assert pruned.would is Verb.PRUNE


def test_outside_the_window_nothing_is_held() -> None:
    cluster = scaled(converged(SHOP))
    thursday = Situation(NOW - datetime.timedelta(days=1))

    changed = app("shop", "nginx:1.28", 2)
    got = plan(cluster, [changed], policy=windowed(FRIDAY_EVENING), situation=thursday)

    assert not any(isinstance(action, Held) for action in got.actions)
    assert not any(kept.held for action in got.actions for kept in getattr(action, "kept", ()))


def test_the_override_flag_lifts_a_window_for_one_run_and_says_so() -> None:
    cluster = converged(SHOP)

    changed = app("shop", "nginx:1.28", 2)
    got = plan(cluster, [changed], policy=windowed(FRIDAY_EVENING, override=True))

    assert {a.key: a.verb for a in got.actions} == {WEBAPP: Verb.UPDATE, DEPLOYMENT: Verb.UPDATE}
    [note] = got.lifted.values()
    assert note.startswith(f"inside the deny window '{FRIDAY_EVENING}'")
    assert note.endswith("overridden by --override-windows")


def test_outside_every_allow_window_changes_wait_for_the_next_one() -> None:
    cluster = converged(SHOP)
    weekdays = "allow 0 9 * * 1-5 for 8h on changes"

    got = plan(cluster, [app("shop", "nginx:1.28", 2)], policy=windowed(weekdays))

    held = by_key(got)[WEBAPP]
    assert isinstance(held, Held)
    assert held.reason == (
        f"outside every allow window (such as '{weekdays}'); the next opens at "
        "2026-12-07 09:00 (UTC)"
    )


# -- prune policies ---------------------------------------------------------------------


def removed(policy: str) -> ModelCluster:
    """shop applied from Git with its prune policy, then removed from Git."""
    return converged(with_annotations(SHOP, prune_policy=policy), BLOG)


def test_orphan_deletes_the_webapp_and_releases_its_deployment() -> None:
    cluster = removed("orphan")

    got = plan(cluster, [BLOG])
    carried_out(cluster, got)

    orphan = by_key(got)[WEBAPP]
    assert isinstance(orphan, Orphan)
    assert [each.key for each in orphan.released] == [DEPLOYMENT]
    assert WEBAPP not in cluster.objects
    kept = cluster.objects[DEPLOYMENT]["metadata"]
    assert "ownerReferences" not in kept or kept["ownerReferences"] == []
    assert c.INSTANCE_LABEL not in kept["labels"]
    assert c.MANAGED_BY_LABEL not in kept["labels"]
    # Nothing claims it any more: the next plan does not see it at all.
    assert DEPLOYMENT not in by_key(plan(cluster, [BLOG]))


def test_a_prune_policy_a_person_annotated_does_not_count() -> None:
    cluster = annotated(converged(SHOP, BLOG), WEBAPP, c.PRUNE_POLICY_ANNOTATION, "orphan")

    got = by_key(plan(cluster, [BLOG]))[WEBAPP]

    assert isinstance(got, Prune)


def test_confirm_records_the_removal_then_waits_for_the_right_approval() -> None:
    cluster = removed("confirm")

    first = plan(cluster, [BLOG])
    carried_out(cluster, first)
    waiting = plan(cluster, [BLOG])

    assert isinstance(by_key(first)[WEBAPP], Confirm)
    live = cluster.objects[WEBAPP]
    uid = live["metadata"]["uid"]
    assert live["metadata"]["annotations"][c.REMOVED_IN_ANNOTATION] == AFTER.revision
    held = by_key(waiting)[WEBAPP]
    assert isinstance(held, Held)
    assert held.control == Control.REMOVAL
    assert f"approve-prune={uid}@{AFTER.revision}" in held.reason
    for wrong in (f"uid-other@{AFTER.revision}", f"{uid}@{'3' * 40}"):
        annotated(cluster, WEBAPP, c.APPROVE_PRUNE_ANNOTATION, wrong)
        ignored = by_key(plan(cluster, [BLOG]))[WEBAPP]
        assert isinstance(ignored, Held)
        assert "names another object or another removal: ignored" in ignored.reason
    annotated(cluster, WEBAPP, c.APPROVE_PRUNE_ANNOTATION, f"{uid}@{AFTER.revision[:7]}")
    approved = by_key(plan(cluster, [BLOG]))[WEBAPP]
    assert isinstance(approved, Prune)
    assert approved.reason.startswith("approved by driftctl.example.com/approve-prune")


def test_quarantine_scales_to_zero_waits_its_grace_then_prunes() -> None:
    cluster = removed("quarantine")
    policy = Policy(max_prune=MaxPrune(100, percent=True), quarantine_grace=GRACE)

    first = plan(cluster, [BLOG], policy=policy)
    carried_out(cluster, first)
    waiting = plan(cluster, [BLOG], policy=policy, situation=Situation(NOW + GRACE / 2))
    after = plan(cluster, [BLOG], policy=policy, situation=Situation(NOW + GRACE))

    assert [a.key for a in first.actions if isinstance(a, Quarantine)] == [WEBAPP, DEPLOYMENT]
    assert cluster.objects[DEPLOYMENT]["spec"]["replicas"] == 0
    assert cluster.objects[WEBAPP]["metadata"]["annotations"][c.REMOVED_AT_ANNOTATION] == (
        "2026-12-04T17:30:00Z"
    )
    held = by_key(waiting)[WEBAPP]
    assert isinstance(held, Held)
    assert held.reason == (
        "quarantined since 2026-12-04T17:30:00Z; pruned at 2026-12-05T05:30:00Z unless it "
        "is back in Git"
    )
    assert isinstance(by_key(after)[WEBAPP], Prune)


def test_a_quarantined_webapp_back_in_git_comes_back_with_its_replicas() -> None:
    shop = with_annotations(SHOP, prune_policy="quarantine")
    cluster = removed("quarantine")
    carried_out(cluster, plan(cluster, [BLOG]))

    back = plan(cluster, [shop, BLOG])
    carried_out(cluster, back)

    assert by_key(back)[WEBAPP].reason.startswith("back in Git: its pending removal is dropped")
    assert cluster.objects[DEPLOYMENT]["spec"]["replicas"] == 2
    annotations = cluster.objects[WEBAPP]["metadata"]["annotations"]
    assert c.REMOVED_AT_ANNOTATION not in annotations
    assert c.REMOVED_IN_ANNOTATION not in annotations
    assert not plan(cluster, [shop, BLOG]).has_changes


def test_deletes_propagate_as_the_flag_says() -> None:
    foreground = Policy(max_prune=MaxPrune(100, percent=True), propagation=Propagation.FOREGROUND)

    got = by_key(plan(converged(SHOP, BLOG), [BLOG], policy=foreground))[WEBAPP]

    assert got.delete["propagationPolicy"] == "Foreground"
    assert [owned.body["propagationPolicy"] for owned in got.owned] == ["Foreground"]


def test_a_window_on_prunes_holds_the_first_step_of_a_gentle_prune_too() -> None:
    cluster = removed("quarantine")

    got = by_key(plan(cluster, [BLOG], policy=windowed(FRIDAY_EVENING)))

    assert [got[key].would for key in (WEBAPP, DEPLOYMENT)] == [Verb.QUARANTINE] * 2


# -- property: what a control holds is never written, and the rest converges ------------

POLICIES = {
    "hold": {c.CHANGE_POLICY_ANNOTATION: "hold"},
    "warn": {c.DRIFT_POLICY_ANNOTATION: "warn"},
    "off": {c.DRIFT_POLICY_ANNOTATION: "off"},
    "both": {c.CHANGE_POLICY_ANNOTATION: "hold", c.DRIFT_POLICY_ANNOTATION: "warn"},
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(  # always: a scale left under warn while Git's image change is applied beside it
    earlier=[SHOP],
    changes=[("scale", "shop", 7)],
    desired=[app("shop", "nginx:1.28", 2)],
    suspended=set(),
    chosen={"shop": "warn"},
)
@given(
    earlier=app_sets,
    changes=drifts,
    desired=app_sets,
    suspended=st.sets(st.sampled_from(NAMES)),
    chosen=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(sorted(POLICIES))),
)
def test_what_a_control_holds_is_never_written_and_the_rest_converges(
    earlier: list[WebApp],
    changes: list[tuple[str, str, int]],
    desired: list[WebApp],
    suspended: set[str],
    chosen: dict[str, str],
) -> None:
    cluster = earlier_run(ModelCluster(), earlier, BEFORE)
    for what, name, number in changes:
        drift(cluster, what, name, number, BEFORE)
    for name in sorted(suspended):
        if ObjectKey(c.KIND, "web", name) in cluster.objects:
            annotated(cluster, ObjectKey(c.KIND, "web", name), c.SUSPEND_ANNOTATION, "test")
    wanted = [
        dataclasses.replace(each, annotations=POLICIES[chosen[each.name]])
        if each.name in chosen
        else each
        for each in desired
    ]
    frozen = {
        key: copy.deepcopy(obj)
        for key, obj in cluster.objects.items()
        if key.name in suspended and ObjectKey(c.KIND, "web", key.name) in cluster.objects
    }

    first = plan(cluster, wanted, policy=PROPERTY_POLICY)
    whole = held_whole(cluster, first)
    carried_out(cluster, first)
    second = plan(cluster, wanted, policy=PROPERTY_POLICY)

    assert {key: cluster.objects.get(key) for key in frozen} == frozen
    assert held_whole(cluster, first) == whole  # an object held whole is not written
    assert held_fields(cluster, first) == {  # a field held keeps the value the hold keeps
        (action.key.display, kept.path): kept.live
        for action in first.actions
        if not isinstance(action, Held)  # written around its held fields
        for kept in kept_of(action)
        if kept.held
    }
    assert [(a.key.display, a.verb) for a in second.actions if is_changing(a)] == []


def shown(cluster: ModelCluster, key: ObjectKey) -> dict[str, Any]:
    """An object's leaves by their display path ({} when it is absent)."""
    live = cluster.objects.get(key) or {}
    return {fs.display_path(path): value for path, value in fs.leaves(live).items()}


def held_fields(cluster: ModelCluster, planned: Plan) -> dict[tuple[str, str], Any]:
    """Each field `planned` holds (drift under warn, Git's change under hold) of an object
    it writes, as `cluster` has it now (an object held whole: `held_whole`)."""
    return {
        (action.key.display, kept.path): shown(cluster, action.key).get(kept.path)
        for action in planned.actions
        if not isinstance(action, Held)
        for kept in kept_of(action)
        if kept.held
    }


def held_whole(cluster: ModelCluster, planned: Plan) -> dict[str, dict[str, Any]]:
    """Each object `planned` holds whole, as `cluster` has it now, its status and its
    bookkeeping apart (unless another action of the plan writes it: a deletion's cleanup)."""
    written = {a.key for a in planned.actions if is_changing(a)}
    written |= {o.key for a in planned.actions if isinstance(a, Cleanup | Prune) for o in a.owned}
    return {
        action.key.display: {
            path: value
            for path, value in shown(cluster, action.key).items()
            if not path.startswith(BOOKKEEPING)
        }
        for action in planned.actions
        if isinstance(action, Held) and action.key not in written
    }


BOOKKEEPING = ("status", "metadata.managedFields", "metadata.resourceVersion")


PROPERTY_POLICY = Policy(allow_empty=True, max_prune=MaxPrune(100, percent=True), recreate=True)
