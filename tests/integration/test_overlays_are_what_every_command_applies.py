"""An overlay at --path is what plan, apply and saved plans see on the real cluster: the
rendered WebApps are applied, a base change is planned as a change, a saved plan of an
overlay applies exactly, a working tree whose base changed is dirty, and a WebApp made
invalid by a patch is refused at the patch's line with nothing written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from driftctl.core.source.kustomize.configuration import WEBAPP_CONFIGURATION
from tests.support.harness import Harness, driftctl_env
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration

WEBAPP = """\
apiVersion: example.com/v1
kind: WebApp
metadata:
  name: {name}
spec:
  image: nginx:1.26
  replicas: {replicas}
"""
BASE = WEBAPP.format(name="shop", replicas=1) + "---\n" + WEBAPP.format(name="blog", replicas=1)


def overlay(harness: Harness, extra: str = "") -> str:
    """Git declares base/ and the overlay apps/ (what --path names); return the commit."""
    harness.repo.write(
        {
            "base/webapps.yaml": BASE,
            "base/kustomization.yaml": "resources:\n- webapps.yaml\n",
            "apps/webapp-configuration.yaml": WEBAPP_CONFIGURATION,
            "apps/kustomization.yaml": (
                f"resources:\n- ../base\nnamespace: {harness.namespace}\nnamePrefix: prod-\n"
                "commonLabels:\n  env: prod\nconfigurations:\n- webapp-configuration.yaml\n"
                "images:\n- name: nginx\n  newTag: '1.27'\nreplicas:\n- name: shop\n  count: 3\n"
                + extra
            ),
        }
    )
    return harness.repo.commit("an overlay")


def test_apply_makes_the_cluster_equal_to_the_rendered_overlay(harness: Harness) -> None:
    overlay(harness)
    applied = harness.driftctl("apply")
    assert applied.code == 0, applied.err
    shop = harness.get("webapp", "prod-shop")
    assert shop is not None
    assert (shop["spec"], shop["metadata"]["labels"]["env"]) == (
        {"image": "nginx:1.27", "replicas": 3},
        "prod",
    )
    assert harness.names("webapps") == ["prod-blog", "prod-shop"]
    assert harness.driftctl("plan").code == 0, "nothing left to change"

    raised = (
        WEBAPP.format(name="shop", replicas=1) + "---\n" + WEBAPP.format(name="blog", replicas=4)
    )
    harness.repo.write({"base/webapps.yaml": raised})
    harness.repo.commit("the base raises blog")
    planned = harness.driftctl("plan", "-o", "json")
    assert planned.code == 1, planned.err
    changed = {
        (o["kind"], o["name"])
        for o in json.loads(planned.out)["objects"]
        if o["action"] == "update"
    }
    assert changed == {("WebApp", "prod-blog"), ("Deployment", "prod-blog")}


def test_a_saved_plan_of_an_overlay_applies_exactly(harness: Harness, tmp_path: Path) -> None:
    overlay(harness)
    saved = tmp_path / "plan.json"
    planned = harness.driftctl("plan", "--out", str(saved))
    assert planned.code == 1, planned.err
    applied = harness.driftctl("apply", "--plan", str(saved))
    assert applied.code == 0, applied.err
    assert harness.names("webapps") == ["prod-blog", "prod-shop"]


def test_a_base_changed_in_the_working_tree_makes_it_dirty(
    harness: Harness, tmp_path: Path
) -> None:
    overlay(harness)
    (harness.repo.path / "base/webapps.yaml").write_text(BASE.replace("nginx:1.26", "nginx:1.25"))
    argv = harness.argv("plan", "--out", str(tmp_path / "plan.json"), "--ref", "main")
    argv = argv[: argv.index("--ref")] + argv[argv.index("--ref") + 2 :]  # the working tree
    done = subprocess.run(
        argv, cwd=ROOT, capture_output=True, text=True, env=driftctl_env(), check=False
    )
    assert done.returncode == 2, done.stderr
    assert "-dirty" in done.stderr or "not committed" in done.stderr, done.stderr


def test_a_webapp_made_invalid_by_a_patch_is_refused_at_the_patch(harness: Harness) -> None:
    patch = "    kind: WebApp\n    metadata:\n      name: shop\n    spec:\n      image: ''\n"
    overlay(harness, "patches:\n- patch: |-\n" + patch)
    before = harness.names("webapps")
    applied = harness.driftctl("apply")
    assert applied.code == 3, applied.err
    assert "apps/kustomization.yaml:" in applied.err
    line = next(line for line in applied.err.splitlines() if "spec.image" in line)
    assert line.strip().startswith("apps/kustomization.yaml:21:14: WebApp/"), line
    assert harness.names("webapps") == before == []
