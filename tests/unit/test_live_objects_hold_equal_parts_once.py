"""A page of live objects holds each part that is equal across them once (shell.live_state.
share_field_trees): their field trees, annotations, finalizers, pod templates. Every object
still reads exactly as it was decoded, each value with its type: `true` is not `1`."""

from __future__ import annotations

import copy
import json
from typing import Any

from driftctl.shell.live_state import share_field_trees
from tests.support.goldens import load_object


def copies(name: str, count: int) -> list[dict[str, Any]]:
    """`count` copies of a captured object, each its own (a uid and owner uid of its own)."""
    base = load_object({"$ref": name})
    made = []
    for index in range(count):
        obj = copy.deepcopy(base)
        obj["metadata"]["name"] = f"app-{index}"
        obj["metadata"]["uid"] = f"uid-{index}"
        for entry in obj["metadata"]["managedFields"]:
            meta = entry.get("fieldsV1", {}).get("f:metadata", {})
            owners = meta.get("f:ownerReferences")
            if owners:
                meta["f:ownerReferences"] = {f'k:{{"uid":"owner-{index}"}}': {}}
        made.append(obj)
    return made


def decoded(objects: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(obj) for obj in objects]


def test_equal_parts_are_held_once_and_every_object_reads_as_before() -> None:
    deployments, webapps = copies("deployment-shop.json", 5), copies("webapp-shop.json", 5)
    before = decoded(deployments + webapps)
    trees: dict[Any, Any] = {}

    for obj in deployments + webapps:
        share_field_trees(obj, trees)

    assert decoded(deployments + webapps) == before
    first, *others = deployments
    for other in others:
        assert other["spec"]["template"]["spec"] is first["spec"]["template"]["spec"]
        assert other["metadata"]["annotations"] is first["metadata"]["annotations"]
        mine, theirs = (obj["metadata"]["managedFields"][0]["fieldsV1"] for obj in (other, first))
        assert mine is not theirs, "each owner uid is its own"
        assert mine["f:spec"] is theirs["f:spec"]
    assert all(w["metadata"]["finalizers"] is webapps[0]["metadata"]["finalizers"] for w in webapps)


def test_parts_equal_to_python_but_not_in_type_are_held_apart() -> None:
    one, other, third = copies("webapp-shop.json", 3)
    one["status"] = {"ready": True, "replicas": 1}
    other["status"] = {"ready": 1, "replicas": 1.0}  # a CRD preserving unknown fields
    third["status"] = {"ready": True, "replicas": 1}
    trees: dict[Any, Any] = {}

    for obj in (one, other, third):
        share_field_trees(obj, trees)

    assert json.dumps(other["status"]) == '{"ready": 1, "replicas": 1.0}'
    assert third["status"] is one["status"]
    assert other["status"] is not one["status"]
