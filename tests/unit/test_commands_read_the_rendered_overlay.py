"""The commands that read Git without a cluster (validate, render, diff, check) read an overlay
at --path as rendered: a change to the shared base is a change of the overlay's WebApps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from driftctl.core.source.kustomize.configuration import WEBAPP_CONFIGURATION
from tests.support.clirun import Ran, run_driftctl
from tests.support.gitrepos import Repo
from tests.support.overlays import webapp

OVERLAY = (
    "resources:\n- ../../base\nnamespace: prod\nconfigurations:\n- webapp.yaml\n"
    "images:\n- name: nginx\n  newTag: '1.28'\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    made = Repo(tmp_path / "repo").write(
        {
            "base/apps.yaml": webapp("shop", "nginx:1.27", 2),
            "base/kustomization.yaml": "resources:\n- apps.yaml\n",
            "overlays/prod/kustomization.yaml": OVERLAY,
            "overlays/prod/webapp.yaml": WEBAPP_CONFIGURATION,
        }
    )
    made.commit("base and prod")
    made.git("branch", "before")
    made.write({"base/apps.yaml": webapp("shop", "nginx:1.27", 5)})
    made.commit("the base raises shop")
    return made


def _run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> Ran:
    return run_driftctl(args, capsys, monkeypatch)


def test_render_prints_the_rendered_webapps(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = _run(capsys, monkeypatch, "render", "--repo", str(repo.path), "--path", "overlays/prod")
    assert ran.code == 0, ran.err
    [shop] = list(yaml.safe_load_all(ran.out))
    assert shop["metadata"] == {"name": "shop", "namespace": "prod"}
    assert shop["spec"] == {"image": "nginx:1.28", "replicas": 5}


def test_render_prints_the_shipped_configuration(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = _run(capsys, monkeypatch, "render", "--configuration")
    assert (ran.code, ran.out) == (0, WEBAPP_CONFIGURATION)
    assert yaml.safe_load(ran.out) == {
        "images": [{"path": "spec/image", "kind": "WebApp"}],
        "replicas": [{"path": "spec/replicas", "kind": "WebApp"}],
    }


def test_validate_counts_the_rendered_webapps_and_the_files_read(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = _run(
        capsys, monkeypatch, "validate", "--repo", str(repo.path), "--path", "overlays/prod",
        "-o", "json",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    report = json.loads(ran.out)
    assert [(w["namespace"], w["name"]) for w in report["webapps"]] == [("prod", "shop")]


def test_diff_and_check_show_a_base_change_as_the_overlays(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    where = ("--repo", str(repo.path), "--path", "overlays/prod")
    diff = _run(capsys, monkeypatch, "diff", "--base", "before", "--head", "main", *where)
    assert diff.code == 1, diff.err
    assert "~ WebApp/prod/shop\n    spec.replicas: 2 -> 5\n" in diff.out
    check = _run(capsys, monkeypatch, "check", "--base", "before", "--head", "main", *where)
    assert check.code == 0, check.err
    assert "~ WebApp/prod/shop: changed" in check.out
