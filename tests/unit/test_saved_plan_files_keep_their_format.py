"""The saved-plan file format, version 1, byte for byte: a plan holding every kind of action,
each field set, is written as the committed file, and that file reads back as the plan.

The committed file was written by driftctl before the format moved into one module
(core.planning.saved_plan.file_format); a file of this version written then must still be
read, and written the same, until the version is bumped.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from pathlib import Path

from driftctl import __version__
from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Conflict,
    Create,
    FieldRevert,
    OwnedDelete,
    Plan,
    Prune,
    Refused,
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
from driftctl.core.planning.saved_plan.file_format import NOT_SAVED, SAVED
from driftctl.ignore_rules import IgnoreRule
from driftctl.settings import Drift, MaxPrune, Policy

VERSION_1 = Path(__file__).parent / "golden" / "saved-plans" / "version-1.json"
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


def written() -> str:
    live = LiveState.of(
        [live_object(c.KIND, "old", "u1", "5")], [live_object(c.DEPLOYMENT_KIND, "upd", "u2", "6")]
    )
    identity = PlanIdentity("default", "driftctl", "repo#apps", SHA, "web", CrdIdentity.current())
    policy = Policy(prune=True, allow_empty=False, max_prune=MaxPrune(25, True), recreate=True)
    rules = (IgnoreRule.parse("Deployment:/spec/replicas"),)
    return saved_plan_json(every_action(), live, identity, policy, Drift(("kubectl",), rules))


def committed() -> str:
    version = json.dumps(__version__)
    return VERSION_1.read_text().replace('"driftctl": "0.1.0"', f'"driftctl": {version}')


def test_a_plan_is_written_as_version_1_byte_for_byte() -> None:
    assert written() == committed()


def test_a_version_1_file_reads_back_as_the_plan() -> None:
    saved = parse_saved_plan(committed(), "version-1.json")

    assert saved.plan == every_action()
    assert saved.bases[webapp("old")] == ("u1", "5")
    assert saved.bases[webapp("new")] is None


def test_every_field_of_every_action_is_saved_or_left_out_on_purpose() -> None:
    for kind in typing.get_args(Action):
        fields = {each.name for each in dataclasses.fields(kind)}

        assert fields <= SAVED | NOT_SAVED, kind.__name__
