"""Which watch events call for a reconcile (core.watch.changes): never driftctl's own
status write or a bare new resourceVersion; every change of spec, metadata or, for a
Deployment, its status (the WebApp's status is made from it)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.watch.changes import place_of, worth_reconciling

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
