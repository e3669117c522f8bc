"""Ignore rules: which rules are accepted, which fields they ignore, and how the manifest
follows them: kept when Git did not change them, applied when Git did."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.planning import ignoring
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.errors import UsageError
from driftctl.ignore_rules import IgnoreRule
from driftctl.settings import DEFAULT_OVERRIDE_MANAGERS, Drift
from driftctl.settings.declare import from_written
from tests.support.builders import captured_deployment
from tests.support.goldens import load_object

APP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3))
OWNER = "4b6f2c1e-8a3d-4f5e-9c70-1d2e3f4a5b6c"
REPLICAS = ("f:spec", "f:replicas")
STAMP = Stamp("default", "1" * 40, "repo#apps")


@pytest.mark.parametrize(
    "text",
    [
        "Deployment:/spec/replicas",
        "Deployment:/spec/template/spec/containers/0/env",
        "WebApp:/metadata/annotations/argocd.argoproj.io~1tracking-id",
        "Deployment:/metadata/labels/team",
    ],
)
def test_a_rule_names_a_kind_and_a_json_pointer(text: str) -> None:
    rule = IgnoreRule.parse(text)

    assert str(rule) == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("spec/replicas", "is not Kind:/json/pointer", id="no-kind"),
        pytest.param("Pod:/spec", "names kind 'Pod'", id="other-kind"),
        pytest.param("Deployment:spec", "needs a JSON pointer", id="no-slash"),
        pytest.param("Deployment:/a~2b", "invalid JSON pointer escape", id="bad-escape"),
        pytest.param(
            "WebApp:/spec/replicas", "ignore the field of its Deployment", id="webapp-spec"
        ),
        pytest.param("Deployment:/spec/selector", "is immutable", id="selector"),
        pytest.param("Deployment:/metadata/ownerReferences", "ties the Deployment", id="owner"),
        pytest.param(
            "Deployment:/metadata/labels",
            "covers /metadata/labels/driftctl.example.com~1instance, which is driftctl's own",
            id="covers-our-labels",
        ),
        pytest.param("WebApp:/metadata/finalizers/0", "holds the WebApp", id="finalizer"),
        pytest.param("Deployment:/status", "is not compared", id="status"),
    ],
)
def test_a_rule_that_cannot_work_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        IgnoreRule.parse(text)


def test_flags_become_drift_settings_or_a_usage_error() -> None:
    assert from_written(Drift).override_managers == DEFAULT_OVERRIDE_MANAGERS
    assert from_written(Drift, override_managers=["ops", "ops"]).override_managers == ("ops",)
    assert from_written(Drift, override_managers=["none"]).override_managers == ()
    assert (
        from_written(Drift, ignore=["Deployment:/spec/replicas"]).ignore[0].pointer
        == "/spec/replicas"
    )
    with pytest.raises(UsageError, match="--ignore 'Pod:/x' names kind"):
        from_written(Drift, ignore=["Pod:/x"])
    with pytest.raises(UsageError, match="--ignore-manager must be 1 to 128"):
        from_written(Drift, ignore_managers=[""])


def scaled_by(manager: str, replicas: int) -> dict[str, Any]:
    """The Deployment after `manager` set its replicas: driftctl no longer owns them."""
    obj = captured_deployment(replicas=replicas)
    del obj["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:replicas"]
    obj["metadata"]["managedFields"].append(
        {
            "manager": manager,
            "operation": "Update",
            "subresource": "scale",
            "apiVersion": "apps/v1",
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
        }
    )
    return obj


def test_rules_managers_and_an_autoscaler_each_give_the_reason() -> None:
    manifest = build_deployment(APP, "default", OWNER)
    rule = IgnoreRule.parse("Deployment:/spec/template/spec/containers/0/image")
    live = scaled_by("kube-controller-manager", 5)

    found = dict(
        ignoring.ignored_fields(
            live,
            manifest,
            [rule, IgnoreRule.parse("WebApp:/metadata/labels/team")],
            Drift(ignore_managers=("kube-controller-manager",)),
            "driftctl",
            autoscaler="HorizontalPodAutoscaler/web/shop",
        )
    )

    image = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"app"}', "f:image")
    assert found == {
        image: "ignored by --ignore Deployment:/spec/template/spec/containers/0/image",
        REPLICAS: "scaled by HorizontalPodAutoscaler/web/shop",
    }


def test_on_a_webapp_only_fields_git_does_not_declare_are_ignored() -> None:
    app = WebApp("shop", "web", WebAppSpec("nginx:1.27", 3), labels={"team": "a"})
    manifest = webapp_manifest(app, STAMP)
    rules = [
        IgnoreRule.parse("WebApp:/metadata/labels/team"),
        IgnoreRule.parse("WebApp:/metadata/labels/tier"),
    ]

    found = ignoring.ignored_fields(
        load_object({"$ref": "webapp-shop.json"}), manifest, rules, Drift(), "driftctl"
    )

    assert [path for path, _ in found] == [("f:metadata", "f:labels", "f:tier")]


def test_an_ignored_field_another_manager_set_is_left_out_of_the_apply() -> None:
    manifest = build_deployment(APP, "default", OWNER)
    live = scaled_by("kubectl", 5)

    followed = ignoring.follow(manifest, live, ((REPLICAS, "why"),), manifest, "driftctl")

    assert "replicas" not in followed.manifest["spec"]
    [kept] = followed.kept
    assert (kept.path, kept.live, kept.git) == ("spec.replicas", 5, 3)
    assert followed.applied == ()


def test_an_ignored_field_driftctl_still_owns_is_sent_as_it_is() -> None:
    manifest = build_deployment(APP, "default", OWNER)
    live = captured_deployment(replicas=3)

    followed = ignoring.follow(manifest, live, ((REPLICAS, "why"),), manifest, "driftctl")

    assert followed.manifest == manifest
    assert followed.kept == ()


def test_a_git_change_of_an_ignored_field_is_applied_and_says_so() -> None:
    manifest = build_deployment(APP, "default", OWNER)
    before = copy.deepcopy(manifest)
    before["spec"]["replicas"] = 2
    live = scaled_by("kubectl", 5)

    followed = ignoring.follow(manifest, live, ((REPLICAS, "why"),), before, "driftctl")

    assert followed.manifest["spec"]["replicas"] == 3
    assert followed.applied == ((REPLICAS, "why; applied because Git changed it"),)


def test_git_as_last_applied_is_read_from_the_fields_driftctl_owns_on_the_webapp() -> None:
    webapp = load_object({"$ref": "webapp-shop.json"})
    webapp["spec"]["replicas"] = 2
    edited = copy.deepcopy(webapp)
    edited["spec"]["replicas"] = 7
    spec_fields = edited["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]
    del spec_fields["f:replicas"]  # a person took it: its value is not Git's

    assert ignoring.previous_declaration(webapp, APP, c.FIELD_MANAGER).spec.replicas == 2
    assert ignoring.previous_declaration(edited, APP, c.FIELD_MANAGER).spec.replicas == 3
    assert ignoring.previous_declaration(None, APP, c.FIELD_MANAGER) == APP
