"""`driftctl install` applies what the shipped kustomizations hold, object for object.

A CLI installed with pipx carries no kustomization folder, so `driftctl install` builds the
objects itself (core.installation). Built with the shipped settings, each variant equals
what `kubectl kustomize` renders of its folder: cronjob/ (cluster-wide RBAC),
cronjob/namespaced/ (Roles in its namespace `webapps`), operator/ and operator/namespaced/.
A change to either side without the other fails here. Only kubectl is needed (its
kustomize), no API server.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from driftctl.core.installation import Installation, manifests
from driftctl.settings.install import Form, GitAuth, Rbac
from tests.support.kustomize import CRONJOB, render
from tests.support.paths import ROOT

# What cronjob/base/settings.yaml and cronjob.yaml say.
SHIPPED = Installation(
    repo="https://git.example.com/platform/webapps.git",
    ref="main",
    path="apps",
    image="driftctl:0.1.0",
    git_auth=GitAuth.TOKEN,
)
NAMESPACED = replace(SHIPPED, rbac=Rbac.NAMESPACED, target_namespaces=("webapps",))


def by_name(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        f"{o['kind']}/{o['metadata'].get('namespace', '')}/{o['metadata']['name']}": o
        for o in objects
    }


@pytest.mark.parametrize(
    ("folder", "installation"),
    [
        pytest.param(CRONJOB, SHIPPED, id="cronjob"),
        pytest.param(CRONJOB / "namespaced", NAMESPACED, id="namespaced"),
        pytest.param(ROOT / "operator", replace(SHIPPED, form=Form.OPERATOR), id="operator"),
        pytest.param(
            ROOT / "operator" / "namespaced",
            replace(NAMESPACED, form=Form.OPERATOR),
            id="operator-namespaced",
        ),
    ],
)
def test_each_variant_is_what_kubectl_kustomize_renders_of_its_folder(
    kubectl: list[str], folder: Path, installation: Installation
) -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}
    built = manifests(installation, crd)

    assert built[0] is crd
    assert by_name(built[1:]) == by_name(render(Path(kubectl[0]), folder))
