"""`driftctl install` applies what the shipped kustomizations hold, object for object.

A CLI installed with pipx carries no kustomization folder, so `driftctl install` builds the
objects itself (core.installation), and the folders are made from that code
(render.shipped; tests/unit/test_the_shipped_manifests_are_made_from_the_code.py holds the
committed files equal to it). Here kubectl's kustomize, the tool people apply them with,
renders each variant's folder: cronjob/ (cluster-wide RBAC), cronjob/namespaced/ (Roles in
its namespace `webapps`), operator/ and operator/namespaced/, each equal to what install
builds with the same settings. Only kubectl is needed (its kustomize), no API server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from driftctl.core.installation import Installation, manifests
from driftctl.render.shipped import VARIANTS
from tests.support.kustomize import render
from tests.support.paths import ROOT


def by_name(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        f"{o['kind']}/{o['metadata'].get('namespace', '')}/{o['metadata']['name']}": o
        for o in objects
    }


@pytest.mark.parametrize(
    ("folder", "installation"),
    [pytest.param(ROOT / folder, install, id=folder) for folder, install in VARIANTS.items()],
)
def test_each_variant_is_what_kubectl_kustomize_renders_of_its_folder(
    kubectl: list[str], folder: Path, installation: Installation
) -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}
    built = manifests(installation, crd)

    assert built[0] is crd
    assert by_name(built[1:]) == by_name(render(Path(kubectl[0]), folder))
