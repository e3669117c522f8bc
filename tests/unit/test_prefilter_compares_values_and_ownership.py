"""The local prefilter (DESIGN.md section 6): values and owned field sets, stamp compared out."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.changes import other_managers
from driftctl.core.planning.manifests import Stamp, webapp_manifest
from driftctl.core.planning.prefilter import needs_server_check
from driftctl.core.source.model import WebApp, WebAppSpec
from tests.support.builders import captured_webapp
from tests.support.goldens import load_object

STAMP = Stamp("default", "1" * 40, "https://git.example.org/team/apps.git#apps")
SHOP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))


def test_identical_object_needs_no_request() -> None:
    assert not needs_server_check(webapp_manifest(SHOP, STAMP), captured_webapp(), c.FIELD_MANAGER)


@pytest.mark.parametrize(
    "stamp",
    [
        pytest.param(Stamp("default", "2" * 40, STAMP.source), id="new-revision"),
        pytest.param(Stamp("default", STAMP.revision, "https://elsewhere#apps"), id="new-source"),
    ],
)
def test_stamp_alone_is_not_drift(stamp: Stamp) -> None:
    assert not needs_server_check(webapp_manifest(SHOP, stamp), captured_webapp(), c.FIELD_MANAGER)


def test_missing_stamp_annotation_is_drift() -> None:
    live = captured_webapp()
    del live["metadata"]["annotations"][c.REVISION_ANNOTATION]

    assert needs_server_check(webapp_manifest(SHOP, STAMP), live, c.FIELD_MANAGER)


def test_changed_value_is_drift() -> None:
    live = captured_webapp()
    live["spec"]["replicas"] = 5

    assert needs_server_check(webapp_manifest(SHOP, STAMP), live, c.FIELD_MANAGER)


def test_field_given_up_is_drift_even_with_equal_values() -> None:
    live = captured_webapp()
    live["metadata"]["labels"]["team"] = "web"
    owned = live["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"]["f:labels"]
    owned["f:team"] = {}  # driftctl applied it once; Git no longer declares it

    assert needs_server_check(webapp_manifest(SHOP, STAMP), live, c.FIELD_MANAGER)


def test_label_added_by_someone_else_is_not_drift() -> None:
    live = captured_webapp()
    live["metadata"]["labels"]["team"] = "web"

    assert not needs_server_check(webapp_manifest(SHOP, STAMP), live, c.FIELD_MANAGER)


def test_another_field_manager_name_never_matches() -> None:
    assert needs_server_check(webapp_manifest(SHOP, STAMP), captured_webapp(), "someone-else")


def test_status_entry_is_kept_apart_from_the_object_fields() -> None:
    live = captured_webapp()

    owned = fs.owned_fields(live, c.FIELD_MANAGER, c.API_VERSION)
    status = fs.owned_fields(live, c.FIELD_MANAGER, c.API_VERSION, subresource="status")

    assert not any(path[0] == "f:status" for path in owned)
    assert ("f:status", "f:ready") in status


def test_dot_entries_are_not_fields() -> None:
    tree: dict[str, Any] = {
        "f:spec": {".": {}, "f:containers": {'k:{"name":"app"}': {".": {}, "f:image": {}}}}
    }

    assert fs.tree_paths(tree) == {("f:spec", "f:containers", 'k:{"name":"app"}', "f:image")}


def test_manifest_field_set_uses_list_keys_and_sets() -> None:
    deployment = load_object({"$ref": "deployment-shop.json"})
    uid = deployment["metadata"]["ownerReferences"][0]["uid"]

    paths = fs.fieldset(
        {
            "metadata": copy.deepcopy(deployment["metadata"]),
            "spec": {"selector": {"matchLabels": {"a": "b"}}},
        }
    )

    assert ("f:metadata", "f:ownerReferences", f'k:{{"uid":"{uid}"}}') in paths
    assert ("f:spec", "f:selector") in paths
    assert fs.fieldset({"metadata": {"finalizers": [c.FINALIZER]}}) == {
        ("f:metadata", "f:finalizers", f'v:"{c.FINALIZER}"')
    }


def test_fields_written_as_fields_v1_read_back_the_same() -> None:
    deployment = load_object({"$ref": "deployment-shop.json"})
    entry = deployment["metadata"]["managedFields"][0]

    paths = fs.tree_paths(entry["fieldsV1"])

    assert fs.tree_paths(fs.to_fields_v1(paths)) == paths


def test_other_manager_of_a_differing_field_is_named() -> None:
    live = load_object({"$ref": "deployment-shop.json"})
    live["metadata"]["managedFields"].append(
        {
            "manager": "kubectl-scale",
            "operation": "Update",
            "subresource": "scale",
            "apiVersion": "apps/v1",
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
        }
    )

    named = other_managers(live, [("f:spec", "f:replicas")], c.FIELD_MANAGER)

    assert named == ("kubectl-scale",)
    assert other_managers(live, [("f:spec", "f:paused")], c.FIELD_MANAGER) == ()
