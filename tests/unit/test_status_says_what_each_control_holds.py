"""`driftctl status` under the controls, decided in the pure core (core.planning.overview)
as the pipeline decides it: at the time status read the Lease, with the instance's
suspension the Lease states. Issue 34: a suspension with an end (`until=`) made status
raise "this plan has time-bound controls and was given no time"; one without an end showed
the suspended WebApp only as `drifted`.

The cluster is tests/support/ssa_model.py; on the real control plane:
tests/integration/test_everyday_commands_say_what_is_there.py.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning.actions import Held, Plan, is_changing
from driftctl.core.planning.controls import Control, Situation
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.overview import InstanceStatus, Sync, instance_status
from driftctl.core.planning.preparation import prepare
from driftctl.core.source.desired_state import DesiredState, Revision
from driftctl.core.source.model import Place, WebApp
from driftctl.settings import Drift, MaxPrune, Policy
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

NOW = datetime.datetime(2026, 12, 4, 17, 30, tzinfo=datetime.UTC)
BEFORE, AFTER = "1" * 40, "2" * 40
LEASE = "Lease driftctl-system/driftctl-default"
SHOP = Place("web", "shop")
NO_FLAGS = Policy()  # what status decides by (it takes no policy flag)


def desired_state(webapps: list[WebApp], revision: str = AFTER) -> DesiredState:
    return DesiredState(tuple(webapps), (), Revision(revision, False, SOURCE, revision, 1))


def annotated(cluster: ModelCluster, key: ObjectKey, name: str, value: str) -> ModelCluster:
    """`kubectl annotate`: a person's request on the live object."""
    cluster.update(key, "kubectl-annotate", ("f:metadata", "f:annotations", f"f:{name}"), value)
    return cluster


def lease(suspension: str | None) -> dict[str, Any] | None:
    if suspension is None:
        return None
    return {"metadata": {"annotations": {c.SUSPEND_ANNOTATION: suspension}}}


def status(cluster: ModelCluster, webapps: list[WebApp], situation: Situation) -> InstanceStatus:
    """What `driftctl status` says of the model cluster (as pipeline.everyday decides it)."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    return instance_status(
        desired_state(webapps),
        live,
        instance="default",
        manager=c.FIELD_MANAGER,
        drift=Drift(),
        situation=situation,
    )


def plan(
    cluster: ModelCluster, webapps: list[WebApp], situation: Situation, policy: Policy = NO_FLAGS
) -> Plan:
    """What `driftctl plan` (no flags) says of it, its candidates dry-run on the model."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    stamp = Stamp("default", AFTER, SOURCE)
    prep = prepare(webapps, live, stamp, policy, situation=situation)
    return finished(cluster, prep)


def scaled_shop(suspension: str) -> ModelCluster:
    shop = app("shop", replicas=2)
    cluster = earlier_run(ModelCluster(), [shop], Stamp("default", BEFORE, SOURCE))
    drift(cluster, "scale", "shop", 7, Stamp("default", BEFORE, SOURCE))
    return annotated(cluster, ObjectKey(c.KIND, *SHOP), c.SUSPEND_ANNOTATION, suspension)


def test_a_suspension_with_an_end_shows_the_webapp_held_until_then() -> None:
    cluster = scaled_shop("until=2026-12-04T18:00:00Z; by=ops; reason=incident 4711")

    [row] = status(cluster, [app("shop", replicas=2)], Situation.of(NOW, None, LEASE)).rows

    assert (row.sync, row.held) == (
        Sync.HELD,
        "suspended until 2026-12-04 18:00:00 UTC by ops: incident 4711",
    )


def test_a_suspension_without_an_end_shows_the_webapp_held_not_drifted() -> None:
    cluster = scaled_shop("incident 4711")

    [row] = status(cluster, [app("shop", replicas=2)], Situation.of(NOW, None, LEASE)).rows

    assert (row.sync, row.held) == (Sync.HELD, "suspended: incident 4711")


def test_a_suspension_that_ended_shows_the_webapp_drifted_again() -> None:
    cluster = scaled_shop("until=2026-12-04T17:00:00Z")

    [row] = status(cluster, [app("shop", replicas=2)], Situation.of(NOW, None, LEASE)).rows

    assert (row.sync, row.held) == (Sync.DRIFTED, "")


def test_a_removal_waiting_for_its_approval_shows_the_command_that_approves_it() -> None:
    shop = dataclasses.replace(
        app("shop", replicas=2), annotations={c.PRUNE_POLICY_ANNOTATION: "confirm"}
    )
    blog = app("blog")
    cluster = earlier_run(ModelCluster(), [shop, blog], Stamp("default", BEFORE, SOURCE))
    situation = Situation.of(NOW, None, LEASE)

    first = status(cluster, [blog], situation)  # the removal not recorded yet: needs the time
    carried_out(cluster, plan(cluster, [blog], situation))
    waiting = status(cluster, [blog], situation)

    assert [(row.place.name, row.sync) for row in first.rows] == [
        ("blog", Sync.IN_SYNC),
        ("shop", Sync.UNDECLARED),
    ]
    uid = cluster.objects[ObjectKey(c.KIND, *SHOP)]["metadata"]["uid"]
    [_, row] = waiting.rows
    assert row.sync is Sync.HELD
    assert row.held.endswith(
        f"waits for an approval: kubectl annotate webapp/shop -n web "
        f"{c.APPROVE_PRUNE_ANNOTATION}={uid}@{AFTER}"
    )


# -- property: status never raises on a control a plan honours, and says what it holds ------

SUSPENSIONS = (
    "incident 4711",
    "until=2026-12-04T18:00:00Z; by=ops; reason=incident 4711",  # ends after NOW
    "until=2026-12-04T17:00:00Z",  # ended before NOW
    "until=friday",  # cannot be read: holds, and says so
    "since=monday",
)
GIT_CONTROLS: dict[str, dict[str, str]] = {
    "hold": {c.CHANGE_POLICY_ANNOTATION: "hold"},
    "warn": {c.DRIFT_POLICY_ANNOTATION: "warn"},
    "off": {c.DRIFT_POLICY_ANNOTATION: "off"},
    "both": {c.CHANGE_POLICY_ANNOTATION: "hold", c.DRIFT_POLICY_ANNOTATION: "warn"},
    **{
        f"prune-{policy}": {c.PRUNE_POLICY_ANNOTATION: policy}
        for policy in ("delete", "orphan", "confirm", "quarantine")
    },
}
WHOLE = frozenset({Control.INSTANCE, Control.SUSPEND, Control.REMOVAL})
ANY_PRUNE = Policy(allow_empty=True, max_prune=MaxPrune(100, percent=True))


def controlled(webapps: list[WebApp], chosen: dict[str, str]) -> list[WebApp]:
    return [
        dataclasses.replace(each, annotations=GIT_CONTROLS[chosen[each.name]])
        if each.name in chosen
        else each
        for each in webapps
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    earlier=app_sets,
    chosen=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(sorted(GIT_CONTROLS))),
    changes=drifts,
    desired=st.none() | app_sets,  # None: Git as the earlier run had it, less its first
    suspended=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(SUSPENSIONS)),
    instance=st.none() | st.sampled_from(SUSPENSIONS),
    removal=st.tuples(st.booleans(), st.sampled_from(("prune-confirm", "prune-quarantine"))),
    later=st.sampled_from((0, 3600, 13 * 3600)),
)
def test_status_never_raises_on_a_control_a_plan_honours_and_says_what_it_holds(
    earlier: list[WebApp],
    chosen: dict[str, str],
    changes: list[tuple[str, str, int]],
    desired: list[WebApp] | None,
    suspended: dict[str, str],
    instance: str | None,
    removal: tuple[bool, str],  # whether a removal is recorded already, and its policy
    later: int,
) -> None:
    recorded, gentle = removal
    if desired is None and earlier:  # the WebApp Git removes waits, as its policy says
        chosen = {**chosen, earlier[0].name: gentle}
    cluster = earlier_run(
        ModelCluster(), controlled(earlier, chosen), Stamp("default", BEFORE, SOURCE)
    )
    for what, name, number in changes:
        drift(cluster, what, name, number, Stamp("default", BEFORE, SOURCE))
    wanted = controlled(earlier[1:] if desired is None else desired, chosen)
    if recorded:  # an earlier run recorded the removals confirm and quarantine wait on
        carried_out(cluster, plan(cluster, wanted, Situation.of(NOW, None, LEASE), ANY_PRUNE))
    for name, text in sorted(suspended.items()):
        if ObjectKey(c.KIND, "web", name) in cluster.objects:
            annotated(cluster, ObjectKey(c.KIND, "web", name), c.SUSPEND_ANNOTATION, text)
    situation = Situation.of(NOW + datetime.timedelta(seconds=later), lease(instance), LEASE)

    found = status(cluster, wanted, situation)  # never raises
    planned = plan(cluster, wanted, situation)

    rows = {row.place: row for row in found.rows}
    for row in found.rows:
        assert (row.sync is Sync.HELD) == bool(row.held), row
    for place in {action.key.place for action in planned.actions}:
        actions = [action for action in planned.actions if action.key.place == place]
        writes = [action for action in actions if is_changing(action)]
        if rows[place].sync is Sync.HELD:
            assert writes == [], (place, actions)
        held = [a for a in actions if isinstance(a, Held) and a.control in WHOLE]
        if held and not writes:  # held whole by a suspension, or a removal waiting
            assert rows[place].sync in (Sync.HELD, Sync.DELETING, Sync.CONFLICT), (place, actions)
