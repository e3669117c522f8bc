"""The CRD comes from the model: its schema, names and columns, and the committed copy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from driftctl.cli import cli
from driftctl.core.source.crd import webapp_crd
from driftctl.core.source.model import INT32_MAX, WebAppSpec, WebAppStatus
from driftctl.core.source.schema import json_name

ROOT = Path(__file__).resolve().parents[2]


def version() -> dict[str, Any]:
    only: dict[str, Any] = webapp_crd()["spec"]["versions"][0]
    return only


def properties(part: str) -> dict[str, Any]:
    found: dict[str, Any] = version()["schema"]["openAPIV3Schema"]["properties"][part]
    return found


def test_names_scope_and_subresource_match_the_design() -> None:
    crd = webapp_crd()
    assert crd["metadata"]["name"] == "webapps.example.com"
    assert crd["spec"]["group"] == "example.com"
    assert crd["spec"]["scope"] == "Namespaced"
    assert crd["spec"]["names"]["shortNames"] == ["wa"]
    assert crd["spec"]["names"]["kind"] == "WebApp"
    assert crd["spec"]["names"]["plural"] == "webapps"
    assert version()["name"] == "v1"
    assert version()["served"] is True
    assert version()["storage"] is True
    assert version()["subresources"] == {"status": {}}


def test_spec_requires_a_non_empty_image_and_int32_replicas_from_zero() -> None:
    spec = properties("spec")
    assert spec["required"] == ["image", "replicas"]
    assert spec["properties"]["image"]["type"] == "string"
    assert spec["properties"]["image"]["minLength"] == 1
    replicas = spec["properties"]["replicas"]
    assert (replicas["type"], replicas["format"]) == ("integer", "int32")
    assert (replicas["minimum"], replicas["maximum"]) == (0, INT32_MAX)


@pytest.mark.parametrize(
    ("field", "expected_type"),
    [
        pytest.param("available_replicas", "integer", id="seed-operator-name-kept"),
        pytest.param("ready", "boolean", id="ready"),
        pytest.param("observedGeneration", "integer", id="observed-generation"),
        pytest.param("conditions", "array", id="conditions"),
        pytest.param("lastAppliedRevision", "string", id="last-applied-revision"),
    ],
)
def test_status_has_each_field_with_its_wire_name(field: str, expected_type: str) -> None:
    status = properties("status")
    assert status["properties"][field]["type"] == expected_type
    assert "required" not in status, "status is written piece by piece; nothing is required"


def test_conditions_follow_the_kstatus_shape_and_merge_by_type() -> None:
    conditions = properties("status")["properties"]["conditions"]
    item = conditions["items"]
    assert set(item["required"]) == {"type", "status", "reason", "message", "lastTransitionTime"}
    assert item["properties"]["status"]["enum"] == ["True", "False", "Unknown"]
    assert conditions["x-kubernetes-list-type"] == "map"
    assert conditions["x-kubernetes-list-map-keys"] == ["type"]


def test_printer_columns_show_image_replicas_available_ready_age() -> None:
    columns = {
        column["name"]: column["jsonPath"] for column in version()["additionalPrinterColumns"]
    }
    assert columns == {
        "Image": ".spec.image",
        "Replicas": ".spec.replicas",
        "Available": ".status.available_replicas",
        "Ready": ".status.ready",
        "Age": ".metadata.creationTimestamp",
    }


def test_wire_names_come_from_the_model() -> None:
    assert json_name(WebAppSpec, "image") == "image"
    assert json_name(WebAppStatus, "available_replicas") == "available_replicas"
    assert json_name(WebAppStatus, "last_applied_revision") == "lastAppliedRevision"


def test_committed_spec_file_is_exactly_the_crd_command_output() -> None:
    result = CliRunner().invoke(cli, ["crd"])
    assert result.exit_code == 0
    committed = (ROOT / "specs" / "webapp-crd.yaml").read_text(encoding="utf-8")
    assert committed == result.output, "regenerate with: driftctl crd > specs/webapp-crd.yaml"


@pytest.mark.parametrize("output", ["yaml", "json"])
def test_crd_command_prints_the_same_crd_in_both_formats(output: str) -> None:
    result = CliRunner().invoke(cli, ["crd", "-o", output])
    assert result.exit_code == 0
    parsed = json.loads(result.output) if output == "json" else yaml.safe_load(result.output)
    assert parsed == webapp_crd()
