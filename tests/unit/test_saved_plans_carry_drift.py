"""A saved plan carries what issue 8 added to a plan: removals of fields set outside Git,
conflicts, kept fields, fights, and the drift flags it was made with."""

from __future__ import annotations

import json

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Conflict,
    FieldRevert,
    Plan,
    Unchanged,
    Update,
)
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.saved_plan import parse_saved_plan, saved_plan_json
from driftctl.settings import Drift, Policy
from driftctl.settings.declare import from_written
from tests.support.model_runs import IDENTITY

SHOP = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")
ENV = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}', "f:env")
DRIFT = from_written(
    Drift,
    override_managers=["kubectl-patch"],
    ignore=["Deployment:/spec/replicas"],
    ignore_managers=["ops-bot"],
)


def plan() -> Plan:
    revert = FieldRevert(
        (ENV,),
        (
            {"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
            {"op": "remove", "path": "/spec/template/spec/containers/0/env"},
        ),
    )
    change = FieldChange(
        "spec.template.spec.containers[name=app].env",
        "remove",
        [{"name": "DEBUG", "value": "1"}],
        None,
        ("kubectl-patch",),
        ENV,
        "corrected 2 runs in a row; added again by kubectl-patch, not in Git",
        2,
    )
    kept = Kept("spec.replicas", "scaled by HorizontalPodAutoscaler/web/shop", 5, 3)
    return Plan(
        (
            Update(
                SHOP,
                "differs from Git again; a fight with kubectl-patch",
                {"kind": "Deployment"},
                ({"op": "remove", "path": "/spec/template/spec/containers/0/env"},),
                (change,),
                revert=revert,
                apply=False,
                kept=(kept,),
            ),
            Unchanged(ObjectKey(c.KIND, "web", "shop"), kept=(kept,)),
            Conflict(ObjectKey(c.KIND, "web", "wiki"), "belongs to instance blue"),
        ),
        revision=IDENTITY.commit,
    )


def test_removals_conflicts_kept_fields_fights_and_the_drift_flags_read_back() -> None:
    made = plan()

    saved = parse_saved_plan(
        saved_plan_json(made, LiveState.of([], []), IDENTITY, Policy(), DRIFT), "plan.json"
    )

    assert saved.plan == made
    assert saved.drift == DRIFT


def test_a_plan_saved_before_drift_flags_were_saved_reads_with_the_defaults() -> None:
    document = json.loads(saved_plan_json(plan(), LiveState.of([], []), IDENTITY, Policy()))
    del document["drift"]

    saved = parse_saved_plan(json.dumps(document), "plan.json")

    assert saved.drift == Drift()
