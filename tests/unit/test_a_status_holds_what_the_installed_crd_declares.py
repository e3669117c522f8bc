"""A run writes a status through the CRD the cluster has: only the fields it declares.

The installed CRD is judged against driftctl's own, by walking both schemas: the seed
operator's (committed as tests/seedoperator/crd.yaml) declares two status fields, so the
other five are left out and said once; a CRD that cannot hold a WebApp's spec is refused.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

import pytest
import yaml

from driftctl.core.planning.installed_crd import (
    OWN,
    fit,
    installed,
    lacking,
    notice,
    spec_refusal,
    unreadable,
)
from driftctl.core.planning.status import STATUS_FIELDS, status_update, webapp_status
from driftctl.core.source.crd import webapp_crd, webapp_schema
from tests.support.builders import status_deployment, status_webapp
from tests.support.seed_operator import SEED_CRD_FILE

NOW = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.UTC)
Obj = dict[str, Any]


def seed_crd() -> Obj:
    crd: Obj = yaml.safe_load(SEED_CRD_FILE.read_text())
    return crd


def with_status(status: Obj) -> Obj:
    """driftctl's own CRD with another status schema."""
    crd = webapp_crd()
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"] = status
    return crd


def own_status() -> Obj:
    return copy.deepcopy(webapp_schema()["properties"]["status"])


def test_driftctl_s_own_crd_leaves_nothing_out_and_says_nothing() -> None:
    judged = installed(webapp_crd())

    assert (judged.missing, judged.spec_problems) == ((), ())
    assert notice(judged) is None
    assert spec_refusal(judged) is None


def test_the_seed_operator_s_crd_lacks_every_status_field_but_its_two() -> None:
    judged = installed(seed_crd())

    assert judged.spec_problems == ()
    assert judged.missing == tuple(
        f"status.{name}" for name in STATUS_FIELDS if name not in ("available_replicas", "ready")
    )
    assert notice(judged) == (
        "the installed CRD webapps.example.com lacks status.observedGeneration, "
        "status.conditions, status.lastAppliedRevision, status.ignoredFields, "
        "status.lastVerifiedRevision, status.lastVerifiedKey, status.corrections, "
        "status.servingRevision, status.images, status.mixedDigests, status.imagesGeneration: "
        "status is written without them; `driftctl crd --diff` shows what an upgrade changes, "
        "`driftctl crd | kubectl apply --server-side -f -` makes it"
    )


def test_through_the_seed_operator_s_crd_a_status_keeps_its_two_fields() -> None:
    judged = installed(seed_crd())
    assert judged.status is not None
    status = webapp_status(status_webapp(), status_deployment(3), NOW)

    assert fit(status, judged.status) == {"available_replicas": 3, "ready": True}


def test_a_status_equal_in_the_declared_fields_is_not_written_again() -> None:
    """The operator's last status, equal in its two fields: nothing to write (a second
    run writes nothing), though driftctl's other five fields are absent."""
    schema = installed(seed_crd()).status
    operator_wrote = {"available_replicas": 3, "ready": True}

    same = status_update(
        status_webapp(status=operator_wrote), status_deployment(3), NOW, schema=schema
    )
    stale = status_update(
        status_webapp(status={"available_replicas": 1, "ready": False}),
        status_deployment(3),
        NOW,
        schema=schema,
    )

    assert not same.changed
    assert stale.changed
    assert stale.manifest["status"] == operator_wrote


def test_without_the_schema_the_same_status_would_be_written_with_all_its_fields() -> None:
    """What a run did before it read the CRD: a status the server refuses, every time."""
    update = status_update(
        status_webapp(status={"available_replicas": 3, "ready": True}), status_deployment(3), NOW
    )

    assert update.changed
    assert set(update.manifest["status"]) > {"available_replicas", "ready", "conditions"}


def test_a_nested_field_the_crd_lacks_is_left_out_of_each_list_item() -> None:
    status = own_status()
    del status["properties"]["conditions"]["items"]["properties"]["observedGeneration"]
    judged = installed(with_status(status))
    assert judged.status is not None

    written = fit(webapp_status(status_webapp(), status_deployment(3), NOW), judged.status)

    assert judged.missing == ("status.conditions[].observedGeneration",)
    assert written["conditions"] == [
        {
            "type": "Ready",
            "status": "True",
            "reason": "Available",
            "message": "3/3 replicas available",
            "lastTransitionTime": "2026-12-01T12:00:00Z",
        }
    ]
    assert written["observedGeneration"] == 4


def test_a_field_of_another_type_there_is_left_out_and_named_with_its_type() -> None:
    status = own_status()
    status["properties"]["ready"] = {"type": "string"}
    judged = installed(with_status(status))
    assert judged.status is not None

    written = fit(webapp_status(status_webapp(), status_deployment(3), NOW), judged.status)

    assert judged.missing == ("status.ready (string there)",)
    assert "ready" not in written
    assert written["available_replicas"] == 3


@pytest.mark.parametrize(
    "status",
    [
        pytest.param({"type": "object", "x-kubernetes-preserve-unknown-fields": True}, id="kept"),
        pytest.param({"type": "object", "additionalProperties": True}, id="any-member"),
    ],
)
def test_a_status_that_keeps_unknown_fields_holds_everything(status: Obj) -> None:
    judged = installed(with_status(status))
    assert judged.status is not None
    written = webapp_status(status_webapp(), status_deployment(3), NOW)

    assert judged.missing == ()
    assert fit(written, judged.status) == written


def test_a_field_the_model_gains_is_found_missing_without_a_list_of_names() -> None:
    """Walked, not listed: a new status field of the model is checked as it comes."""
    ours = own_status()
    ours["properties"]["futureField"] = {"type": "string"}

    assert lacking(ours, own_status(), "status") == ["status.futureField"]


def test_a_crd_without_a_status_subresource_gets_no_status_and_says_so() -> None:
    crd = webapp_crd()
    del crd["spec"]["versions"][0]["subresources"]

    judged = installed(crd)

    assert judged.status is None
    assert notice(judged) == (
        "the installed CRD webapps.example.com has no status subresource: no status is "
        "written; `driftctl crd --diff` shows what an upgrade changes, "
        "`driftctl crd | kubectl apply --server-side -f -` makes it"
    )


def spec_without(name: str) -> Obj:
    crd = webapp_crd()
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    del spec["properties"][name]
    spec["required"] = [each for each in spec["required"] if each != name]
    return crd


def spec_requiring(name: str) -> Obj:
    crd = webapp_crd()
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"][name] = {"type": "integer"}
    spec["required"] = [*spec["required"], name]
    return crd


def not_serving_v1() -> Obj:
    crd = webapp_crd()
    crd["spec"]["versions"][0]["name"] = "v2"
    return crd


@pytest.mark.parametrize(
    ("crd", "problem"),
    [
        pytest.param(spec_without("image"), "spec.image is not declared", id="no-image"),
        pytest.param(
            spec_requiring("port"),
            "spec.port is required there, and driftctl does not write it",
            id="requires-more",
        ),
        pytest.param(not_serving_v1(), "it does not serve example.com/v1", id="no-v1"),
    ],
)
def test_a_crd_that_cannot_hold_a_webapp_s_spec_is_refused(crd: Obj, problem: str) -> None:
    assert spec_refusal(installed(crd)) == (
        f"the installed CRD webapps.example.com cannot hold what driftctl applies: {problem}"
    )


def test_a_crd_that_could_not_be_read_is_assumed_to_be_driftctl_s_and_said() -> None:
    judged = unreadable("403 Forbidden: customresourcedefinitions is forbidden")

    assert judged.status == OWN.status
    assert judged.missing == ()
    assert notice(judged) == (
        "could not read the installed CRD webapps.example.com (403 Forbidden: "
        "customresourcedefinitions is forbidden): status is written as driftctl's own CRD "
        "declares it; grant get on customresourcedefinitions/webapps.example.com to know"
    )
