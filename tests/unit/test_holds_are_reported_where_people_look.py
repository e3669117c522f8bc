"""What a control holds is said where people look: the WebApp's status (its Held condition,
its ignoredFields), one Event when it starts (not one per run), the plan's text, the
metrics; a saved plan applied later holds what a control holds by then; the run lock's
writes keep the Lease's annotations (a suspension of the instance is one)."""

from __future__ import annotations

import datetime

from driftctl import conventions as c
from driftctl.core.api import lease
from driftctl.core.planning.actions import Held, Plan, Update, WriteStatus
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.controls import Control, Hold
from driftctl.core.planning.events import chain_event
from driftctl.core.planning.holding import held_counts
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome
from driftctl.core.planning.saved_plan import SavedPlan, recheck
from driftctl.core.planning.status import facts_of, held_condition, status_update
from driftctl.core.planning.verbs import Verb
from driftctl.render.metrics import RunResult, run_registry
from driftctl.render.plan import plan_text
from driftctl.settings import WHOLE, Policy
from tests.support.builders import status_deployment, status_webapp
from tests.support.model_runs import IDENTITY

NOW = datetime.datetime(2026, 12, 4, 17, 30, tzinfo=datetime.UTC)
APP = ObjectKey(c.KIND, "web", "shop")
DEP = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")
SUSPENDED = "suspended until 2026-12-04 18:00:00 UTC by ops: incident 4711"
REPLICAS = FieldChange("spec.replicas", "replace", 7, 2, ("kubectl-scale",))
WARN = "drift is reported and left as it is (--drift-policy warn)"
DRIFT = Kept("spec.replicas", WARN, 7, 2, Control.DRIFT)


def held_plan(*actions: Held | Update, holds: dict[ObjectKey, Hold] | None = None) -> Plan:
    return Plan(actions, (APP,), holds=holds or {})


def test_a_suspended_webapp_s_status_says_so_and_nothing_else_moves() -> None:
    before = status_webapp(status={"available_replicas": 1, "ready": False, "conditions": []})
    plan = held_plan(
        Held(DEP, SUSPENDED, Verb.UPDATE, Control.SUSPEND, (REPLICAS,)),
        holds={APP: Hold(Control.SUSPEND, SUSPENDED)},
    )

    update = status_update(
        before, status_deployment(3), NOW, facts_of(plan.actions, APP, set(), holds=plan.holds)
    )
    again = status_update(
        {**before, "status": update.status},
        None,
        NOW,
        facts_of(plan.actions, APP, set(), holds=plan.holds),
    )

    assert update.status["available_replicas"] == 1  # frozen: the Deployment is not read
    [condition] = update.status["conditions"]
    assert (condition["type"], condition["reason"]) == ("Held", "Suspended")
    assert condition["message"] == f"Deployment/web/shop: update held: {SUSPENDED}"
    assert not again.changed  # once: a second run writes nothing


def test_held_drift_is_listed_with_the_fields_kept_and_a_held_condition() -> None:
    plan = held_plan(Held(DEP, WARN, Verb.UPDATE, Control.DRIFT, kept=(DRIFT,)))

    status = status_update(
        status_webapp(),
        status_deployment(3),
        NOW,
        facts_of(plan.actions, APP, set(), holds=plan.holds),
    )

    assert status.status["ignoredFields"] == [
        {"kind": "Deployment", "field": "spec.replicas", "reason": WARN}
    ]
    held = [each for each in status.status["conditions"] if each["type"] == "Held"]
    assert [(each["reason"], each["status"]) for each in held] == [("DriftHeld", "True")]
    assert held_condition(status_webapp(status=status.status)) == held[0]["message"]


def test_held_drift_makes_one_warning_event_when_it_starts_not_one_per_run() -> None:
    action = Held(DEP, WARN, Verb.UPDATE, Control.DRIFT, kept=(DRIFT,))
    done = [(action, ObjectOutcome(DEP, Outcome.HELD, WARN))]
    message = f"Deployment/web/shop spec.replicas (7 here, 2 in Git): {WARN}"  # as when written

    first = chain_event(done, held_before=None)
    later = chain_event(done, held_before=message)

    assert first is not None
    assert (first.reason, first.message, first.warning) == ("DriftHeld", message, True)
    assert later is None


def test_an_instance_suspension_makes_no_event_per_webapp() -> None:
    action = Held(DEP, "the instance is suspended", Verb.UPDATE, Control.INSTANCE)

    assert chain_event([(action, ObjectOutcome(DEP, Outcome.HELD))]) is None


def test_a_change_made_through_a_window_says_so_in_its_event() -> None:
    update = Update(DEP, "differs", {}, (), (REPLICAS,))
    lifted = "inside the deny window 'deny @daily for 1h': overridden by --override-windows"

    event = chain_event([(update, ObjectOutcome(DEP, Outcome.CONFIGURED))], lifted=lifted)

    assert event is not None
    assert event.message == f"Deployment/web/shop updated by driftctl (spec.replicas); {lifted}"


def test_the_plan_says_what_a_hold_holds_and_why() -> None:
    plan = Plan(
        (Held(DEP, SUSPENDED, Verb.UPDATE, Control.SUSPEND, (REPLICAS,), (DRIFT,)),),
        suspended="",
    )

    assert plan_text(plan).splitlines() == [
        f"|| Deployment/web/shop: hold (update held: {SUSPENDED})",
        "    spec.replicas: 7 -> 2 (changed by kubectl-scale)",
        f"    spec.replicas held: {WARN} (7 here, 2 in Git)",
        "",
        "Plan: 0 to create, 0 to update, 0 to prune, 0 unchanged, 1 held",
    ]


def test_a_suspended_instance_is_said_first() -> None:
    plan = Plan((), suspended="the instance is suspended by sre: freeze")

    assert plan_text(plan).splitlines()[0] == (
        "the instance is suspended by sre: freeze: nothing is written"
    )


def test_metrics_count_what_each_control_held() -> None:
    plan = held_plan(Held(DEP, WARN, Verb.UPDATE, Control.DRIFT))
    report = ApplyReport((), "a" * 40, (), held_counts(plan), "the instance is suspended")

    registry = run_registry(RunResult(0, 1.0, 0.1, WHOLE, report))

    assert registry.get_sample_value("driftctl_last_run_held_objects", {"control": "drift"}) == 1
    assert registry.get_sample_value("driftctl_last_run_held_objects", {"control": "window"}) == 0
    assert registry.get_sample_value("driftctl_instance_suspended") == 1


def test_a_saved_plan_applied_while_a_new_hold_stands_holds_its_writes() -> None:
    update = Update(DEP, "differs", {}, (), (REPLICAS,))
    saved = SavedPlan(IDENTITY, Policy(), Plan((update,), (APP,)), {DEP: None, APP: None})
    window = Hold(Control.WINDOW, "inside the deny window 'deny @daily for 1h'")

    rechecked = recheck(saved, Plan(()), LiveState.of([], []), {DEP: window})
    already = recheck(
        SavedPlan(IDENTITY, Policy(), Plan((Held(DEP, window.reason, Verb.UPDATE, "window"),)), {}),
        Plan(()),
        LiveState.of([], []),
        {DEP: window},
    )

    [held] = rechecked.actions
    assert isinstance(held, Held)
    assert (held.would, held.reason, held.changes) == (Verb.UPDATE, window.reason, (REPLICAS,))
    assert [type(action) for action in already.actions] == [Held]
    assert WriteStatus(APP) in rechecked.stages[1][0]


def test_the_run_lock_s_writes_keep_the_lease_s_annotations() -> None:
    read = {
        "metadata": {
            "name": "driftctl-default",
            "resourceVersion": "7",
            "annotations": {c.SUSPEND_ANNOTATION: "by=sre; reason=freeze"},
        },
        "spec": {"holderIdentity": "me"},
    }
    ref = lease.LeaseRef("ops", "default")

    renewed = lease.held(read, ref, me="me", duration=30, now=NOW)
    released = lease.released(read, ref)

    for written in (renewed, released):
        assert written["metadata"]["annotations"] == {c.SUSPEND_ANNOTATION: "by=sre; reason=freeze"}
