"""The saved-plan file format, byte for byte: a plan holding every kind of action, each
field set, is written as the committed file of the current version (2), and that file reads
back as the plan.

The committed version 1 file was written by driftctl before the format moved into one
module (core.planning.saved_plan.file_format) and before the controls; a file of that
version must still be read: it reads back as its plan, with the controls' defaults.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import typing
from pathlib import Path

from driftctl import __version__
from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Confirm,
    Conflict,
    Create,
    FieldRevert,
    Held,
    Orphan,
    OwnedDelete,
    Plan,
    Prune,
    Quarantine,
    Refused,
    Release,
    Replace,
    Skip,
    Unchanged,
    Update,
)
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.saved_plan import (
    CrdIdentity,
    PlanIdentity,
    parse_saved_plan,
    saved_plan_json,
)
from driftctl.core.planning.saved_plan.object_format import NOT_SAVED, SAVED
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import Place
from driftctl.ignore_rules import IgnoreRule
from driftctl.policies import PrunePolicy
from driftctl.settings import Drift, MaxPrune, Policy
from driftctl.settings.declare import from_written

VERSION_1 = Path(__file__).parent / "golden" / "saved-plans" / "version-1.json"
VERSION_2 = Path(__file__).parent / "golden" / "saved-plans" / "version-2.json"
# Version 2 as written before the policy's keys followed the settings' declarations (the
# same keys and values, the controls in another order): still read as the same plan.
VERSION_2_FIRST_ORDER = VERSION_2.with_name("version-2-keys-in-their-first-order.json")
SHA = "a" * 40
CHANGE = FieldChange(
    "spec.replicas", "replace", 5, 3, ("kubectl-scale",), ("f:spec", "f:replicas"), "a note", 2
)
KEPT = Kept("spec.replicas", "scaled by HorizontalPodAutoscaler/web/shop", 3, 2)
PATCH = ({"op": "replace", "path": "/spec/replicas", "value": 3},)
MANIFEST = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}}
DELETE = {"kind": "DeleteOptions", "preconditions": {"uid": "u", "resourceVersion": "9"}}
FINALIZER = ({"op": "remove", "path": "/metadata/finalizers/0"},)
REVERT = FieldRevert(
    (("f:metadata", "f:labels", "f:x"),),
    (
        {"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
        {"op": "remove", "path": "/metadata/labels/x"},
    ),
)


def webapp(name: str) -> ObjectKey:
    return ObjectKey(c.KIND, "web", name)


def deployment(name: str) -> ObjectKey:
    return ObjectKey(c.DEPLOYMENT_KIND, "web", name)


def live_object(kind: str, name: str, uid: str, version: str) -> dict[str, object]:
    meta = {"name": name, "namespace": "web", "uid": uid, "resourceVersion": version}
    return {"kind": kind, "metadata": meta}


def every_action() -> Plan:
    owned = (OwnedDelete(deployment("old"), DELETE),)
    return Plan(
        (
            Prune(webapp("old"), "not declared in Git", DELETE, FINALIZER, owned),
            Cleanup(webapp("gone"), "deleted in the cluster", FINALIZER, owned),
            Create(webapp("new"), "not in the cluster", MANIFEST, PATCH),
            Create(deployment("new"), "created with its WebApp", MANIFEST, PATCH, webapp("new")),
            Update(
                deployment("upd"),
                "differs",
                MANIFEST,
                PATCH,
                (CHANGE,),
                webapp("upd"),
                REVERT,
                apply=False,
                kept=(KEPT,),
            ),
            Update(webapp("upd"), "differs", MANIFEST, PATCH, ()),
            Unchanged(webapp("same"), "", (KEPT,)),
            Replace(deployment("rep"), "immutable", MANIFEST, PATCH, (CHANGE,), DELETE),
            Skip(deployment("skip"), "run with --recreate", (CHANGE,)),
            Refused(webapp("refused"), "the API server refused the dry-run", "422 Invalid"),
            Conflict(deployment("theirs"), "another owner's"),
        ),
        (webapp("new"), webapp("upd")),
        ("too many deletions",),
        SHA,
    )


HELD_KEPT = Kept("spec.replicas", "Git's changes are held (--change-policy hold)", 2, 3, "changes")
RELEASE = (
    {"op": "test", "path": "/metadata/uid", "value": "u3"},
    {"op": "remove", "path": "/metadata/labels/driftctl.example.com~1instance"},
)


def every_action_of_version_2() -> Plan:
    """Every action, the controls' among them, and what a plan says of its controls."""
    older = every_action()
    return dataclasses.replace(
        older,
        actions=(
            *older.actions,
            Held(
                webapp("held"),
                "suspended by ops: incident 4711",
                Verb.UPDATE,
                "suspend",
                (CHANGE,),
                (HELD_KEPT,),
            ),
            Orphan(
                webapp("orph"),
                "not declared in Git",
                DELETE,
                FINALIZER,
                (Release(deployment("orph"), RELEASE),),
            ),
            Orphan(
                deployment("lone"),
                "its WebApp is gone",
                released=(Release(deployment("lone"), RELEASE),),
            ),
            Quarantine(webapp("quar"), "not declared in Git since aaaaaaaaaaaa", MANIFEST, PATCH),
            Confirm(webapp("conf"), "waits for an approval", MANIFEST, PATCH),
        ),
        lifted={Place("web", "new"): "inside the deny window 'deny @daily for 1h'"},
        suspended="",
    )


def written(plan: Plan) -> str:
    live = LiveState.of(
        [live_object(c.KIND, "old", "u1", "5")], [live_object(c.DEPLOYMENT_KIND, "upd", "u2", "6")]
    )
    identity = PlanIdentity("default", "driftctl", "repo#apps", SHA, "web", CrdIdentity.current())
    policy = from_written(
        Policy,
        prune=True,
        allow_empty=False,
        max_prune="25%",
        recreate=True,
        prune_policy="quarantine",
        propagation="foreground",
        quarantine_grace="12h",
        change_policy="hold",
        drift_policy="warn",
        windows=("deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes",),
        override_windows=True,
    )
    rules = (IgnoreRule.parse("Deployment:/spec/replicas"),)
    drift = Drift(override_managers=("kubectl",), ignore=rules)
    return saved_plan_json(plan, live, identity, policy, drift)


def committed(golden: Path) -> str:
    version = json.dumps(__version__)
    return golden.read_text().replace('"driftctl": "0.1.0"', f'"driftctl": {version}')


def test_a_plan_is_written_as_version_2_byte_for_byte() -> None:
    assert written(every_action_of_version_2()) == committed(VERSION_2)


def test_a_version_2_file_reads_back_as_the_plan_and_its_controls() -> None:
    saved = parse_saved_plan(committed(VERSION_2), "version-2.json")

    assert saved.plan == every_action_of_version_2()
    assert saved.policy.prune_policy is PrunePolicy.QUARANTINE
    assert saved.policy.quarantine_grace == datetime.timedelta(hours=12)
    assert [str(window) for window in saved.policy.windows] == [
        "deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes"
    ]
    assert saved.policy.override_windows


def test_a_version_2_file_with_its_keys_in_their_first_order_reads_back_the_same() -> None:
    first = parse_saved_plan(committed(VERSION_2_FIRST_ORDER), "version-2.json")

    assert first == parse_saved_plan(committed(VERSION_2), "version-2.json")


def test_a_version_1_file_reads_back_as_the_plan_with_the_controls_defaults() -> None:
    saved = parse_saved_plan(committed(VERSION_1), "version-1.json")

    assert saved.plan == every_action()
    assert saved.bases[webapp("old")] == ("u1", "5")
    assert saved.bases[webapp("new")] is None
    assert saved.policy == Policy(max_prune=MaxPrune(25, True), recreate=True)


def test_every_field_of_every_action_is_saved_or_left_out_on_purpose() -> None:
    for kind in typing.get_args(Action):
        fields = {each.name for each in dataclasses.fields(kind)}

        assert fields <= SAVED | NOT_SAVED, kind.__name__
