"""The prefilter looks each desired field up in the live object, and finds the same drift
as flattening the whole (normalized) live object does: checked on real captured objects
changed in many ways."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.normalize import comparable, equal
from driftctl.core.planning.prefilter import drifted_fields
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
