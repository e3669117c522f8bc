"""Every request is a value: method, path, query and body decided before anything is sent."""

from __future__ import annotations

import json

from driftctl.core.api import requests as r

WEBAPP = {
    "apiVersion": "example.com/v1",
    "kind": "WebApp",
    "metadata": {"name": "shop", "namespace": "web"},
    "spec": {"image": "x", "replicas": 1},
}


def test_server_side_apply_forces_skips_field_validation_and_sends_no_resource_version() -> None:
    request = r.apply(WEBAPP, "driftctl")

    assert (request.method, request.path) == (
        "PATCH",
        "/apis/example.com/v1/namespaces/web/webapps/shop",
    )
    assert request.query == (
        ("fieldManager", "driftctl"),
        ("force", "true"),
        ("fieldValidation", "Ignore"),
    )
    assert request.content_type == "application/apply-patch+yaml"
    assert "resourceVersion" not in json.loads(request.body or b"{}")["metadata"]


def test_a_dry_run_is_the_same_apply_marked_all() -> None:
    request = r.apply(WEBAPP, "driftctl", dry_run=True)

    assert request.query == (
        ("fieldManager", "driftctl"),
        ("force", "true"),
        ("fieldValidation", "Ignore"),
        ("dryRun", "All"),
    )
    assert request.body == r.apply(WEBAPP, "driftctl").body


def test_status_goes_through_the_status_subresource() -> None:
    assert r.apply(WEBAPP, "driftctl", status=True).path.endswith("/webapps/shop/status")


def test_list_pages_are_cluster_wide_limited_by_selector_and_carry_the_continue_token() -> None:
    first = r.list_page(r.DEPLOYMENT, "driftctl.example.com/instance=default")
    second = r.list_page(r.DEPLOYMENT, "driftctl.example.com/instance=default", "abc")

    assert first.path == "/apis/apps/v1/deployments"
    assert first.query == (
        ("labelSelector", "driftctl.example.com/instance=default"),
        ("limit", "500"),
    )
    assert second.query[-1] == ("continue", "abc")


def test_a_list_limited_to_a_namespace_asks_only_for_that_namespace() -> None:
    page = r.list_page(r.WEBAPP, "driftctl.example.com/instance=default", namespace="shop")

    assert page.path == "/apis/example.com/v1/namespaces/shop/webapps"
    assert page.what == "list webapps in namespace shop"


def test_a_json_patch_is_sent_as_json_patch_not_merge_patch() -> None:
    operations = [
        {"op": "test", "path": "/metadata/finalizers/0", "value": "f"},
        {"op": "remove", "path": "/metadata/finalizers/0"},
    ]

    request = r.json_patch(r.WEBAPP, "web", "shop", operations, "driftctl")

    assert request.content_type == "application/json-patch+json"
    assert json.loads(request.body or b"[]") == operations


def test_a_page_gives_items_their_kind_and_the_next_token() -> None:
    page = r.read_page(
        {"items": [{"metadata": {"name": "a"}}], "metadata": {"continue": "t"}}, r.DEPLOYMENT
    )
    last = r.read_page({"items": [], "metadata": {"continue": ""}}, r.WEBAPP)

    assert page.items == [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}}
    ]
    assert page.continue_token == "t"
    assert last.continue_token is None


def test_a_streamed_list_is_a_watch_that_sends_what_is_there_then_ends_with_a_bookmark() -> None:
    request = r.streamed_list(r.WEBAPP, "driftctl.example.com/instance=default", "shop", 60)

    assert (request.method, request.path) == ("GET", "/apis/example.com/v1/namespaces/shop/webapps")
    assert request.query == (
        ("labelSelector", "driftctl.example.com/instance=default"),
        ("watch", "1"),
        ("sendInitialEvents", "true"),
        ("resourceVersionMatch", "NotOlderThan"),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", "60"),
    )
    assert request.what == "list webapps in namespace shop"  # errors read as a LIST's


def test_only_the_bookmark_marked_as_the_end_of_the_objects_ends_a_streamed_list() -> None:
    def bookmark(annotations: dict[str, str]) -> dict[str, object]:
        meta = {"resourceVersion": "812", "annotations": annotations}
        return {"type": "BOOKMARK", "object": {"metadata": meta}}

    assert r.end_of_initial_events(bookmark({"k8s.io/initial-events-end": "true"})) == "812"
    assert r.end_of_initial_events(bookmark({})) is None  # a periodic bookmark
    assert r.end_of_initial_events(bookmark({"k8s.io/initial-events-end": "false"})) is None
    added = {"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "9"}}}
    assert r.end_of_initial_events(added) is None


def test_a_streamed_object_has_its_kind_as_a_page_item_has() -> None:
    event = {"type": "ADDED", "object": {"metadata": {"name": "a"}}}

    assert (
        r.listed_object(event, r.DEPLOYMENT)
        == r.read_page({"items": [{"metadata": {"name": "a"}}]}, r.DEPLOYMENT).items[0]
    )


def test_streamed_objects_are_put_in_the_order_of_a_paged_list_their_storage_keys() -> None:
    def obj(namespace: str, name: str) -> dict[str, object]:
        return {"metadata": {"namespace": namespace, "name": name}}

    came = [obj("web", "b"), obj("web", "a"), obj("a-b", "z"), obj("a", "y")]

    ordered = r.in_list_order(came)

    # "a-b/z" before "a/y": the key is compared as bytes, and "-" sorts before "/".
    assert ordered == [obj("a-b", "z"), obj("a", "y"), obj("web", "a"), obj("web", "b")]


def test_names_are_quoted_into_paths() -> None:
    assert (
        r.get(r.LEASE, "ops", "driftctl-a/b").path
        == "/apis/coordination.k8s.io/v1/namespaces/ops/leases/driftctl-a%2Fb"
    )
