"""Which fields outside Git are drift (an override manager's), which are kept (ignored) or
another manager's, and the guarded JSON Patch that removes them."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest

from driftctl.core.planning.manifests import build_deployment
from driftctl.core.planning.outside_git import (
    RESTARTED_AT,
    outside_git,
    revert_patch,
    with_reverts,
)
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.settings import Drift
from tests.support.goldens import load_object

APP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
OWNER = "4b6f2c1e-8a3d-4f5e-9c70-1d2e3f4a5b6c"
MANIFEST = build_deployment(APP, "default", OWNER)
APP_ITEM = 'k:{"name":"app"}'
CONTAINERS = ("f:spec", "f:template", "f:spec", "f:containers")


def entry(manager: str, fields: dict[str, Any], operation: str = "Update") -> dict[str, Any]:
    return {"manager": manager, "operation": operation, "apiVersion": "apps/v1", "fieldsV1": fields}


def live_with(*entries: dict[str, Any], change: Any = None) -> dict[str, Any]:
    obj = load_object({"$ref": "deployment-shop.json"})
    if change is not None:
        change(obj)
    obj["metadata"]["managedFields"] += list(entries)
    return obj


def add_env(obj: dict[str, Any]) -> None:
    obj["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "DEBUG", "value": "1"},
        {"name": "MODE", "value": "x"},
    ]


ENV_BY_PATCH = entry(
    "kubectl-patch",
    {
        "f:spec": {
            "f:template": {
                "f:spec": {
                    "f:containers": {
                        APP_ITEM: {
                            "f:env": {
                                ".": {},
                                'k:{"name":"DEBUG"}': {".": {}, "f:name": {}, "f:value": {}},
                            }
                        }
                    }
                }
            }
        }
    },
)
MODE_BY_SET = entry(
    "kubectl-set",
    {
        "f:spec": {
            "f:template": {
                "f:spec": {
                    "f:containers": {
                        APP_ITEM: {
                            "f:env": {'k:{"name":"MODE"}': {".": {}, "f:name": {}, "f:value": {}}}
                        }
                    }
                }
            }
        }
    },
)


def test_a_list_made_outside_git_is_removed_whole_naming_every_manager() -> None:
    live = live_with(ENV_BY_PATCH, MODE_BY_SET, change=add_env)

    found = outside_git(live, MANIFEST, Drift(), "driftctl")

    [reverted] = found.reverted
    assert reverted.path == (*CONTAINERS, APP_ITEM, "f:env")
    assert reverted.managers == ("kubectl-patch", "kubectl-set")


def test_an_item_another_manager_owns_stays_and_only_the_persons_item_goes() -> None:
    controller = entry("env-injector", MODE_BY_SET["fieldsV1"])
    live = live_with(ENV_BY_PATCH, controller, change=add_env)

    [reverted] = outside_git(live, MANIFEST, Drift(), "driftctl").reverted

    assert reverted.path == (*CONTAINERS, APP_ITEM, "f:env", 'k:{"name":"DEBUG"}')


def test_labels_are_removed_key_by_key_even_when_the_person_made_the_map() -> None:
    def label(obj: dict[str, Any]) -> None:
        obj["metadata"]["annotations"]["team"] = "payments"

    by_annotate = entry(
        "kubectl-annotate", {"f:metadata": {"f:annotations": {".": {}, "f:team": {}}}}
    )
    live = live_with(by_annotate, change=label)

    [reverted] = outside_git(live, MANIFEST, Drift(), "driftctl").reverted

    assert reverted.path == ("f:metadata", "f:annotations", "f:team")


def restarted(obj: dict[str, Any]) -> None:
    template = obj["spec"]["template"]["metadata"]
    template["annotations"] = {RESTARTED_AT: "2026-12-02T09:00:00Z", "team": "payments"}


def template_annotations(*keys: str) -> dict[str, Any]:
    owned: dict[str, Any] = {".": {}, **{f"f:{key}": {} for key in keys}}
    return {"f:spec": {"f:template": {"f:metadata": {"f:annotations": owned}}}}


def test_a_rollout_restart_is_kept_but_another_template_annotation_is_drift() -> None:
    by_restart = entry("kubectl-rollout", template_annotations(RESTARTED_AT))
    by_patch = entry("kubectl-patch", template_annotations("team"))
    live = live_with(by_restart, by_patch, change=restarted)

    [reverted] = outside_git(live, MANIFEST, Drift(), "driftctl").reverted

    assert reverted.path == ("f:spec", "f:template", "f:metadata", "f:annotations", "f:team")
    assert reverted.managers == ("kubectl-patch",)


@pytest.mark.parametrize(
    "drift",
    [
        pytest.param(Drift(override_managers=("kubectl-edit",)), id="not-an-override-manager"),
        pytest.param(Drift(override_managers=()), id="override-none"),
    ],
)
def test_fields_of_managers_that_are_not_override_managers_are_theirs(drift: Drift) -> None:
    live = live_with(ENV_BY_PATCH, change=add_env)

    assert outside_git(live, MANIFEST, drift, "driftctl").reverted == ()


def test_a_field_git_declares_is_not_outside_git_whoever_set_it() -> None:
    image = entry(
        "kubectl-set",
        {"f:spec": {"f:template": {"f:spec": {"f:containers": {APP_ITEM: {"f:image": {}}}}}}},
    )

    assert outside_git(live_with(image), MANIFEST, Drift(), "driftctl").reverted == ()


def test_an_ignored_field_outside_git_is_kept_with_the_reason() -> None:
    live = live_with(ENV_BY_PATCH, MODE_BY_SET, change=add_env)
    ignored = (((*CONTAINERS, APP_ITEM, "f:env"), "ignored by --ignore Deployment:/x"),)

    found = outside_git(live, MANIFEST, Drift(), "driftctl", ignored)

    assert found.reverted == ()
    [kept] = found.kept
    assert (kept.path, kept.reason, kept.git) == (
        "spec.template.spec.containers[name=app].env",
        "ignored by --ignore Deployment:/x",
        None,
    )


def test_show_foreign_lists_other_managers_fields_and_nothing_else() -> None:
    def annotate(obj: dict[str, Any]) -> None:
        obj["metadata"]["annotations"]["owner"] = "ops"

    ops = entry("ops-bot", {"f:metadata": {"f:annotations": {"f:owner": {}}}})
    live = live_with(ops, change=annotate)

    quiet = outside_git(live, MANIFEST, Drift(), "driftctl")
    shown = outside_git(live, MANIFEST, Drift(show_foreign=True), "driftctl")

    assert quiet.foreign == ()
    assert [(f.path, f.managers, f.value) for f in shown.foreign] == [
        ("metadata.annotations.owner", ("ops-bot",), "ops")
    ]


def test_the_revert_patch_tests_the_version_and_removes_later_indexes_first() -> None:
    def two_containers(obj: dict[str, Any]) -> None:
        containers = obj["spec"]["template"]["spec"]["containers"]
        containers.insert(0, {"name": "debug", "image": "busybox"})
        containers[1]["env"] = [{"name": "DEBUG", "value": "1"}]

    sidecar = entry(
        "kubectl-edit",
        {
            "f:spec": {
                "f:template": {
                    "f:spec": {
                        "f:containers": {
                            'k:{"name":"debug"}': {".": {}, "f:image": {}, "f:name": {}}
                        }
                    }
                }
            }
        },
    )
    live = live_with(ENV_BY_PATCH, sidecar, change=two_containers)

    found = outside_git(live, MANIFEST, Drift(), "driftctl")
    patch = revert_patch(live, found.reverted)

    assert patch == (
        {
            "op": "test",
            "path": "/metadata/resourceVersion",
            "value": live["metadata"]["resourceVersion"],
        },
        {"op": "remove", "path": "/spec/template/spec/containers/1/env"},
        {"op": "remove", "path": "/spec/template/spec/containers/0"},
    )
    result = jsonpatch.apply_patch(copy.deepcopy(live), list(patch))
    [app] = result["spec"]["template"]["spec"]["containers"]
    assert (app["name"], "env" in app) == ("app", False)


def test_a_removed_field_the_server_defaults_again_is_taken_from_the_reverts_answer() -> None:
    live = load_object({"$ref": "deployment-shop.json"})
    path = ("f:spec", "f:revisionHistoryLimit")
    applied = copy.deepcopy(live)
    applied["spec"]["revisionHistoryLimit"] = 3
    answered = copy.deepcopy(live)
    answered["spec"]["revisionHistoryLimit"] = 10

    after = with_reverts(applied, answered, [path])

    assert after["spec"]["revisionHistoryLimit"] == 10
