"""A cluster without the WebApp CRD is a clear error (exit 4) that says how to install it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controlplane import launcher
from tests.support.builders import webapp
from tests.support.gitrepos import Repo
from tests.support.paths import ROOT


@pytest.fixture
def bare_plane(tmp_path: Path) -> Iterator[launcher.ControlPlane]:
    """A second, real control plane on which no CRD was ever installed."""
    plane = launcher.start(tmp_path / "plane", crds=[])
    try:
        yield plane
    finally:
        launcher.stop(tmp_path / "plane")


def test_plan_on_a_cluster_without_the_crd_says_how_to_install_it(
    bare_plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write({"shop.yaml": webapp("shop")})
    repo.commit()

    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "driftctl",
            "plan",
            "--repo",
            str(repo.path),
            "--kubeconfig",
            str(bare_plane.kubeconfig),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert ran.returncode == 4
    assert ran.stderr.splitlines() == [
        "error: the cluster has no WebApp resource (webapps.example.com is not installed)",
        "hint: install the CRD: driftctl crd | kubectl apply -f -",
    ]
