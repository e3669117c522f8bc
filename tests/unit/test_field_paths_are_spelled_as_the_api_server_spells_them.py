"""Field paths (core.planning.fieldset) spell each element as the API server's managedFields
do, however often an element recurs: a map-list item's key with its value's own JSON type,
`f:` for every map key, the fields of an object in their order; one field a manager owns
is found as the whole set of its fields holds it."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from driftctl.core.planning import fieldset as fs


def test_an_item_key_is_spelled_with_its_type_each_time() -> None:
    spelled = [fs.item_element({"name": value}, ("name",)) for value in (1, True, 1.0, 1, "1")]

    assert spelled == [
        'k:{"name":1}',
        'k:{"name":true}',
        'k:{"name":1.0}',
        'k:{"name":1}',
        'k:{"name":"1"}',
    ]


def test_an_item_keyed_by_a_map_is_spelled_too() -> None:
    item = {"name": {"b": 2, "a": 1}, "port": 80}

    assert fs.item_element(item, ("port", "name")) == 'k:{"name":{"a":1,"b":2},"port":80}'


def test_the_leaves_of_a_deployment_follow_its_fields_in_order() -> None:
    manifest = {
        "apiVersion": "apps/v1",
        "metadata": {"name": "shop", "labels": {}, "finalizers": ["a", "b"]},
        "spec": {
            "selector": {"matchLabels": {"app": "shop"}},  # atomic: one field
            "template": {"spec": {"containers": [{"name": "app", "image": "nginx"}]}},
        },
    }

    assert list(fs.leaves(manifest).items()) == [
        (("f:apiVersion",), "apps/v1"),
        (("f:metadata", "f:name"), "shop"),
        (("f:metadata", "f:labels"), {}),
        (("f:metadata", "f:finalizers", 'v:"a"'), "a"),
        (("f:metadata", "f:finalizers", 'v:"b"'), "b"),
        (("f:spec", "f:selector"), {"matchLabels": {"app": "shop"}}),
        (
            ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}', "f:name"),
            "app",
        ),
        (
            ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}', "f:image"),
            "nginx",
        ),
    ]


_ELEMENTS = st.sampled_from(["f:spec", "f:replicas", "f:template", 'k:{"name":"app"}', "."])
_TREES: st.SearchStrategy[Any] = st.recursive(
    st.just({}) | st.none(),
    lambda children: st.dictionaries(_ELEMENTS, children, max_size=4),
    max_leaves=12,
)
_ENTRIES = st.lists(
    st.fixed_dictionaries(
        {
            "manager": st.sampled_from(["driftctl", "kubectl"]),
            "operation": st.sampled_from(["Apply", "Update"]),
            "apiVersion": st.sampled_from(["apps/v1", "apps/v1beta1"]),
            "fieldsV1": _TREES,
        }
    ),
    max_size=3,
)


_APPLY = {"manager": "driftctl", "operation": "Apply", "apiVersion": "apps/v1"}


@settings(max_examples=400, deadline=None)
@example([{**_APPLY, "fieldsV1": {"f:replicas": None}}], ["f:replicas"])  # any leaf value
@example([{**_APPLY, "fieldsV1": {"f:spec": {".": {}, "f:replicas": {}}}}], ["f:spec"])
@given(_ENTRIES, st.lists(st.sampled_from(["f:spec", "f:replicas", "f:template"]), max_size=3))
def test_one_owned_field_is_found_as_the_whole_set_holds_it(
    entries: list[dict[str, object]], path: list[str]
) -> None:
    deployment = {"apiVersion": "apps/v1", "metadata": {"managedFields": entries}}
    owned = fs.owned_fields(deployment, "driftctl", "apps/v1")

    assert fs.owns_field(deployment, "driftctl", "apps/v1", tuple(path)) == (tuple(path) in owned)
