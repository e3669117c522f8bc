"""The prefilter looks each desired field up in the live object, and finds the same drift
as flattening the whole (normalized) live object does: checked on real captured objects
changed in many ways."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.normalize import comparable, equal
from driftctl.core.planning.prefilter import (
    drifted_fields,
    needs_server_check,
    needs_server_check_by_paths,
)
from driftctl.core.source.model import WebApp, WebAppSpec
from tests.support.goldens import load_object

STAMP = Stamp("default", "1" * 40, "https://git.example.org/team/apps.git#apps")


def flattened(desired: dict[str, Any], live: dict[str, Any]) -> list[fs.FieldPath]:
    """The former definition: every leaf of the normalized live object, then compared."""
    live_values = fs.leaves(comparable(live))
    return [
        path
        for path, value in fs.leaves(comparable(desired)).items()
        if path not in live_values or not equal(live_values[path], value)
    ]


CHANGES = st.lists(
    st.sampled_from(
        (
            ("spec", "replicas", 7),
            ("spec", "replicas", 3.0),
            ("spec", "replicas", True),
            ("image", None, "busybox"),
            ("label", "team", "x"),
            ("label", "app.kubernetes.io/name", None),
            ("annotation", "driftctl.example.com/revision", "2" * 40),
            ("annotation", "driftctl.example.com/revision", None),
            ("container", "sidecar", "envoy"),
            ("selector", "app.kubernetes.io/name", "other"),
            ("finalizers", None, []),
            ("finalizers", None, None),
        )
    ),
    max_size=4,
)


def change(obj: dict[str, Any], what: tuple[str, Any, Any]) -> None:
    kind, key, value = what
    meta = obj["metadata"]
    if kind == "spec" and "replicas" in obj.get("spec", {}):
        obj["spec"]["replicas"] = value
    elif kind == "image" and "template" in obj.get("spec", {}):
        obj["spec"]["template"]["spec"]["containers"][0]["image"] = value
    elif kind in ("label", "annotation"):
        field = meta.setdefault("labels" if kind == "label" else "annotations", {})
        if value is None:
            field.pop(key, None)
        else:
            field[key] = value
    elif kind == "container" and "template" in obj.get("spec", {}):
        obj["spec"]["template"]["spec"]["containers"].append({"name": key, "image": value})
    elif kind == "selector" and "selector" in obj.get("spec", {}):
        obj["spec"]["selector"]["matchLabels"][key] = value
    elif kind == "finalizers":
        meta["finalizers"] = value


@settings(max_examples=300, deadline=None)
@given(deployment=st.booleans(), changes=CHANGES, replicas=st.integers(0, 3))
def test_looking_up_in_place_finds_what_flattening_finds(
    deployment: bool, changes: list[tuple[str, Any, Any]], replicas: int
) -> None:
    app = WebApp("shop", "web", WebAppSpec("nginx:1.27", replicas))
    if deployment:
        live = load_object({"$ref": "deployment-shop.json"})
        desired = build_deployment(app, "default", live["metadata"]["ownerReferences"][0]["uid"])
    else:
        live = load_object({"$ref": "webapp-shop.json"})
        desired = webapp_manifest(app, STAMP)
    live = copy.deepcopy(live)
    for what in changes:
        change(live, what)

    assert drifted_fields(desired, live) == flattened(desired, live)


OWNERSHIP_CHANGES = st.lists(
    st.sampled_from(
        (
            ("drop", ("f:spec", "f:replicas")),
            ("drop", ("f:metadata", "f:labels", "f:app.kubernetes.io/name")),
            ("drop", ("f:metadata", "f:finalizers")),
            ("empty", ("f:spec", "f:paused")),  # a field more
            ("empty", ("f:metadata", "f:labels", "f:team")),
            ("empty", ("f:spec",)),  # a field in place of the fields under it
            ("null", ("f:spec", "f:replicas")),
            ("under", ("f:spec", "f:replicas")),  # a field under a field
            ("under", ("f:metadata", "f:labels", "f:app.kubernetes.io/name")),
            ("dot", ("f:metadata",)),
            ("version", ()),
            ("second", ()),
            ("manager", ()),
            ("status", ()),
        )
    ),
    max_size=3,
)


def change_ownership(obj: dict[str, Any], what: tuple[str, tuple[str, ...]]) -> None:
    """Change driftctl's Apply entry of `obj` (its first managedFields entry)."""
    kind, path = what
    entries = obj["metadata"]["managedFields"]
    entry = entries[0]
    if kind in ("version", "manager"):
        entry["apiVersion" if kind == "version" else "manager"] = "other"
        return
    if kind in ("second", "status"):
        extra = copy.deepcopy(entry)
        extra["fieldsV1"] = {"f:spec": {"f:paused": {}}}
        if kind == "status":
            extra["subresource"] = "status"
        entries.append(extra)
        return
    *parents, last = path
    node = entry["fieldsV1"]
    for element in parents:
        node = node.setdefault(element, {})
    if kind == "drop":
        node.pop(last, None)
    elif kind == "empty":
        node[last] = {}
    elif kind == "null":
        node[last] = None
    elif kind == "under":
        node[last] = {"f:more": {}}
    elif kind == "dot":
        node.setdefault(last, {})["."] = {}


@settings(max_examples=500, deadline=None)
@given(
    deployment=st.booleans(),
    changes=CHANGES,
    ownership=OWNERSHIP_CHANGES,
    replicas=st.integers(0, 3),
    repeated=st.booleans(),
    emptied=st.booleans(),
)
def test_one_walk_answers_as_spelling_every_path(
    deployment: bool,
    changes: list[tuple[str, Any, Any]],
    ownership: list[tuple[str, tuple[str, ...]]],
    replicas: int,
    repeated: bool,
    emptied: bool,
) -> None:
    """needs_server_check walks the manifest, the live object and driftctl's fieldsV1 side
    by side; its answer is the definition's (every path spelled, looked up, and the field
    sets compared), and where the manifest repeats an item key it asks the server."""
    app = WebApp("shop", "web", WebAppSpec("nginx:1.27", replicas))
    if deployment:
        live = copy.deepcopy(load_object({"$ref": "deployment-shop.json"}))
        desired = build_deployment(app, "default", live["metadata"]["ownerReferences"][0]["uid"])
        containers = desired["spec"]["template"]["spec"]["containers"]
    else:
        live = copy.deepcopy(load_object({"$ref": "webapp-shop.json"}))
        desired = webapp_manifest(app, STAMP)
        containers = desired["metadata"]["finalizers"]
    if repeated:
        containers.append(copy.deepcopy(containers[0]))
    elif emptied:  # a list that sets no field
        containers.clear()
    for what in changes:
        change(live, what)
    for owned in ownership:
        change_ownership(live, owned)

    defined = needs_server_check_by_paths(desired, live, c.FIELD_MANAGER)
    walked = needs_server_check(desired, live, c.FIELD_MANAGER)
    assert walked == (defined or repeated)


def test_a_list_that_sets_no_field_is_not_looked_up() -> None:
    """An empty map list or set in the manifest sets no field: whether the live object has
    the list at all does not matter, as by the definition."""
    desired = webapp_manifest(WebApp("shop", "web", WebAppSpec("nginx:1.27", 3)), STAMP)
    desired["metadata"]["finalizers"] = []
    live = copy.deepcopy(load_object({"$ref": "webapp-shop.json"}))
    del live["metadata"]["finalizers"]
    change_ownership(live, ("drop", ("f:metadata", "f:finalizers")))

    assert not needs_server_check_by_paths(desired, live, c.FIELD_MANAGER)
    assert not needs_server_check(desired, live, c.FIELD_MANAGER)
