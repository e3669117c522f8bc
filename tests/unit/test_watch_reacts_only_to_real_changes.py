"""Which watch events call for a reconcile (core.watch.changes): never driftctl's own
status write or a bare new resourceVersion; every change of spec, metadata or, for a
Deployment, its status (the WebApp's status is made from it). How urgent: the Deployment
controller's own updates are a status refresh, anything else is drift, handled first."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.watch.changes import place_of, urgency_of, worth_reconciling
from driftctl.core.watch.queue import Urgency

Obj = dict[str, Any]


def webapp() -> Obj:
    return {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {
            "name": "shop",
            "namespace": "web",
            "generation": 1,
            "resourceVersion": "10",
            "labels": {c.INSTANCE_LABEL: "default"},
            "finalizers": [c.FINALIZER],
            "managedFields": [
                {"manager": "driftctl", "operation": "Apply", "time": "t1", "fieldsV1": {}},
                {
                    "manager": "driftctl",
                    "operation": "Apply",
                    "subresource": "status",
                    "time": "t1",
                    "fieldsV1": {"f:status": {}},
                },
            ],
        },
        "spec": {"image": "nginx:1.27", "replicas": 2},
        "status": {"ready": False},
    }


def deployment() -> Obj:
    obj = webapp()
    obj.update(apiVersion="apps/v1", kind=c.DEPLOYMENT_KIND, status={"replicas": 0})
    return obj


def changed(obj: Obj, edit: Callable[[Obj], None]) -> Obj:
    out = copy.deepcopy(obj)
    edit(out)
    out["metadata"]["resourceVersion"] = "11"
    return out


def own_status_write(obj: Obj) -> None:
    obj["status"] = {"ready": True, "available_replicas": 2}
    obj["metadata"]["managedFields"][1]["time"] = "t2"
    obj["metadata"]["managedFields"][1]["fieldsV1"] = {"f:status": {"f:ready": {}}}


IGNORED = [
    pytest.param(lambda obj: None, id="only-a-new-resourceVersion"),
    pytest.param(own_status_write, id="driftctl-writes-the-webapps-status"),
]
NOTICED = [
    pytest.param(lambda obj: obj["spec"].update(replicas=5), id="spec"),
    pytest.param(lambda obj: obj["metadata"].update(generation=2), id="generation"),
    pytest.param(lambda obj: obj["metadata"]["labels"].clear(), id="labels"),
    pytest.param(lambda obj: obj["metadata"].update(annotations={"a": "b"}), id="annotation"),
    pytest.param(lambda obj: obj["metadata"].update(deletionTimestamp="t3"), id="deleted"),
    pytest.param(lambda obj: obj["metadata"].update(finalizers=[]), id="finalizer-removed"),
    pytest.param(
        lambda obj: obj["metadata"]["managedFields"].append(
            {"manager": "kubectl-edit", "operation": "Update", "fieldsV1": {}}
        ),
        id="a-new-manager",
    ),
]


@pytest.mark.parametrize("edit", IGNORED)
def test_a_webapp_change_of_bookkeeping_alone_is_not_reconciled(
    edit: Callable[[Obj], None],
) -> None:
    before = webapp()
    assert not worth_reconciling(before, changed(before, edit))


@pytest.mark.parametrize("edit", NOTICED)
@pytest.mark.parametrize("make", [webapp, deployment], ids=["webapp", "deployment"])
def test_a_change_of_spec_or_metadata_is_reconciled(
    make: Callable[[], Obj], edit: Callable[[Obj], None]
) -> None:
    before = make()
    assert worth_reconciling(before, changed(before, edit))


def test_a_deployments_status_is_reconciled_as_the_webapps_status_is_made_from_it() -> None:
    before = deployment()
    after = changed(before, lambda obj: obj.update(status={"replicas": 2, "availableReplicas": 2}))
    assert worth_reconciling(before, after)


def test_creation_and_deletion_are_reconciled_at_the_place_of_the_webapp() -> None:
    assert worth_reconciling(None, webapp())
    assert worth_reconciling(deployment(), None)
    assert not worth_reconciling(None, None)
    assert place_of(deployment()) == place_of(webapp()) == ("web", "shop")


def controller_status_update(obj: Obj) -> None:
    """What the Deployment controller writes: its status, through the status subresource,
    and its rollout counter, through the main resource, each with its managedFields entry."""
    obj["status"] = {"replicas": 2, "observedGeneration": 1, "availableReplicas": 1}
    obj["metadata"]["annotations"] = {"deployment.kubernetes.io/revision": "1"}
    obj["metadata"]["managedFields"] += [
        {
            "manager": "kube-controller-manager",
            "operation": "Update",
            "subresource": "status",
            "fieldsV1": {"f:status": {"f:replicas": {}}},
        },
        {
            "manager": "kube-controller-manager",
            "operation": "Update",
            "fieldsV1": {"f:metadata": {"f:annotations": {}}},
        },
    ]


def test_the_deployment_controllers_updates_are_a_status_refresh() -> None:
    before = deployment()
    assert urgency_of(before, changed(before, controller_status_update)) is Urgency.STATUS


@pytest.mark.parametrize("edit", NOTICED)
@pytest.mark.parametrize("make", [webapp, deployment], ids=["webapp", "deployment"])
def test_a_change_of_spec_or_metadata_is_drift_even_beside_a_status_update(
    make: Callable[[], Obj], edit: Callable[[Obj], None]
) -> None:
    before = make()

    def both(obj: Obj) -> None:
        edit(obj)
        if obj["kind"] == c.DEPLOYMENT_KIND:
            obj["status"] = {"replicas": 1}

    assert urgency_of(before, changed(before, both)) is Urgency.DRIFT


def test_creation_and_deletion_are_drift() -> None:
    assert urgency_of(None, deployment()) is Urgency.DRIFT
    assert urgency_of(webapp(), None) is Urgency.DRIFT
    assert urgency_of(webapp(), changed(webapp(), lambda obj: None)) is None
