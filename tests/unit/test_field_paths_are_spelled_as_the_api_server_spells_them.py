"""Field paths (core.planning.fieldset) spell each element as the API server's managedFields
do, however often an element recurs: a map-list item's key with its value's own JSON type,
`f:` for every map key, the fields of an object in their order."""

from __future__ import annotations

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
