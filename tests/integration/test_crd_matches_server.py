"""The generated CRD is accepted by the real API server, and the offline validation and the
server agree on what a valid WebApp is: the same documents, run through both; installed,
`driftctl crd --diff` finds nothing to change."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from driftctl import conventions as c
from driftctl.core.source.crd import webapp_crd
from driftctl.core.source.documents import load_file
from driftctl.core.source.validate import validate
from driftctl.errors import InvalidDesiredState
from driftctl.settings import Source
from tests.support.clirun import run_driftctl

pytestmark = pytest.mark.integration

HEAD = "apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n  name: web\n"

# Each case: a spec (YAML) and whether a WebApp with it is valid. Only schema reasons: the
# naming and kind rules driftctl adds on top are not the CRD's to check.
CASES = [
    pytest.param("spec: {image: nginx, replicas: 2}", True, id="valid"),
    pytest.param("spec: {image: nginx, replicas: 0}", True, id="zero-replicas"),
    pytest.param("spec: {image: nginx, replicas: 2147483647}", True, id="int32-max"),
    pytest.param("spec: {image: '', replicas: 1}", False, id="empty-image"),
    pytest.param("spec: {image: nginx, replicas: -1}", False, id="negative-replicas"),
    pytest.param("spec: {image: nginx, replicas: 2147483648}", False, id="over-int32"),
    pytest.param("spec: {image: nginx, replicas: '3'}", False, id="replicas-string"),
    pytest.param("spec: {image: nginx, replicas: true}", False, id="replicas-boolean"),
    pytest.param("spec: {image: 42, replicas: 1}", False, id="image-number"),
    pytest.param("spec: {replicas: 1}", False, id="no-image"),
    pytest.param("spec: {image: nginx}", False, id="no-replicas"),
    pytest.param("spec: {image: nginx, replicas: ~}", False, id="null-replicas"),
    pytest.param("spec: {image: nginx, replicas: 1, port: 80}", False, id="unknown-field"),
    pytest.param("spec: [nginx]", False, id="spec-list"),
    pytest.param("other: 1", False, id="no-spec"),
]


def offline_accepts(text: str, namespace: str) -> bool:
    try:
        validate(load_file("case.yaml", text.encode()), Source(namespace=namespace))
    except InvalidDesiredState:
        return False
    return True


def server_accepts(api: client.ApiClient, text: str, namespace: str) -> bool:
    (document,) = load_file("case.yaml", text.encode()).documents
    body: dict[str, Any] = copy.deepcopy(dict(document.body))
    body["metadata"]["namespace"] = namespace
    try:
        client.CustomObjectsApi(api).create_namespaced_custom_object(
            c.GROUP, c.VERSION, namespace, c.PLURAL, body,
            dry_run="All", field_validation="Strict", _preload_content=False,
        )  # fmt: skip
    except ApiException as refused:
        if refused.status not in (400, 422):  # refused for the object's sake, not otherwise
            raise
        return False
    return True


@pytest.mark.usefixtures("crd_installed")
def test_the_generated_crd_is_established_as_committed(kube_client: client.ApiClient) -> None:
    live = client.ApiextensionsV1Api(kube_client).read_custom_resource_definition(c.CRD_NAME)
    assert live.status is not None
    conditions = {cond.type: cond.status for cond in live.status.conditions or []}
    assert conditions["Established"] == "True"
    served = live.spec.versions[0]
    assert (served.name, served.served, served.storage) == ("v1", True, True)
    assert live.spec.names.short_names == [c.SHORT_NAME]
    expected = webapp_crd()["spec"]["versions"][0]["additionalPrinterColumns"]
    assert [column.json_path for column in served.additional_printer_columns or []] == [
        column["jsonPath"] for column in expected
    ]


@pytest.mark.usefixtures("crd_installed")
@pytest.mark.parametrize(("spec", "valid"), CASES)
def test_offline_validation_and_the_server_agree(
    kube_client: client.ApiClient, namespace: str, spec: str, valid: bool
) -> None:
    text = HEAD + spec + "\n"
    assert offline_accepts(text, namespace) is valid
    assert server_accepts(kube_client, text, namespace) is valid


@pytest.mark.usefixtures("crd_installed")
def test_crd_diff_against_the_crd_it_installed_shows_nothing(
    kubeconfig: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the API server adds to a CRD it stores (its defaults) is no difference."""
    ran = run_driftctl(["crd", "--diff", "--kubeconfig", str(kubeconfig)], capsys, monkeypatch)

    assert (ran.code, ran.out, ran.err) == (0, "", "")
