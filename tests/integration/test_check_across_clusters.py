"""`driftctl check --target ...` across two real control planes: staging (the session's)
and prod (this module's own), and a third target no cluster answers for.

One repository holds a base and an overlay per environment (`base/`, `overlays/staging/`,
`overlays/prod/`), and each cluster has applied its own overlay. staging pins the image
(`images:`), prod the replicas of `shop` (`replicas:`). On prod a person scaled `blog` by
hand. The pull request (branch `feature`) changes the base alone: `shop`'s image and
replicas. Through the overlays, that raises staging's replicas and changes prod's image,
and one check shows each per target: staging's replicas, prod's image (a rollout), prod's
hand scale as drift, not as the change; staging's report knows nothing of prod's drift.
The third target is a line of the report and does not fail the check, unless --fail-on
unreachable. Nothing is written to either cluster.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane import launcher
from tests.support.builders import webapps_yaml
from tests.support.control_plane import (
    STREAMED_LIST,
    Requests,
    delta,
    grant,
    own_control_plane,
    quiet,
    request_counts,
)
from tests.support.fleet import merged_kubeconfig, unreachable_kubeconfig
from tests.support.gitrepos import Repo
from tests.support.harness import LOCK_NAMESPACE, Harness, Ran, driftctl_env
from tests.support.kustomize import account
from tests.support.markdown import well_formed
from tests.support.paths import ROOT

MAIN = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.27", 1)}
FEATURE = {"shop": ("nginx:1.28", 3), "blog": ("nginx:1.27", 1)}
CONFIGURATION = """\
images:
- path: spec/image
  kind: WebApp
replicas:
- path: spec/replicas
  kind: WebApp
"""


def overlays(namespace: str) -> dict[str, str]:
    """The base's kustomization and the two overlays: staging pins the image, prod the
    replicas of shop; both put the WebApps in `namespace`."""
    own = {
        "staging": 'images:\n- name: nginx\n  newTag: "1.27"\n',
        "prod": "replicas:\n- name: shop\n  count: 2\n",
    }
    files = {"base/kustomization.yaml": "resources:\n- webapps.yaml\n"}
    for env, transformer in own.items():
        files[f"overlays/{env}/webapp-configuration.yaml"] = CONFIGURATION
        files[f"overlays/{env}/kustomization.yaml"] = (
            f"namespace: {namespace}\nresources:\n- ../../base\n"
            f"configurations:\n- webapp-configuration.yaml\n{transformer}"
        )
    return files


@pytest.fixture(scope="module")
def prod_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[launcher.ControlPlane]:
    """The second cluster, prod: this module's own control plane."""
    with own_control_plane(tmp_path_factory.mktemp("prod-plane")) as plane:
        yield plane


@pytest.fixture(scope="module")
def prod_account(
    prod_plane: launcher.ControlPlane, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[str], Path]:
    """prod's admin kubectl, and a kubeconfig of the CronJob's ServiceAccount there."""
    kubectl = [str(prod_plane.bin_dir / "kubectl"), f"--kubeconfig={prod_plane.kubeconfig}"]
    documents = account(prod_plane.bin_dir / "kubectl")
    return kubectl, grant(
        prod_plane, kubectl, documents, "driftctl", tmp_path_factory.mktemp("prod")
    )


@dataclass
class Fleet:
    """The repository, the two clusters as contexts of one kubeconfig, a third target's."""

    repo: Repo
    namespace: str
    kubeconfig: Path  # contexts staging and prod
    unreachable: Path
    staging: Harness
    prod: Harness

    def driftctl(self, *args: str) -> Ran:
        argv = [sys.executable, "-m", "driftctl", *args, "--repo", str(self.repo.path)]
        argv += ["--namespace", self.namespace, "--instance", self.namespace]
        argv += ["--lock-namespace", LOCK_NAMESPACE, "--kubeconfig", str(self.kubeconfig)]
        done = subprocess.run(
            argv,
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=driftctl_env(),
            timeout=180,
            check=False,
        )
        return Ran(done.returncode, done.stdout, done.stderr)

    def check(self, *args: str) -> Ran:
        return self.driftctl(
            "check", "--base", "main", "--head", "feature",
            "--target", "name=staging,context=staging,path=overlays/staging",
            "--target", "name=prod,context=prod,path=overlays/prod",
            "--target", f"name=lab,kubeconfig={self.unreachable},path=overlays/prod",
            "--timeout", "60", *args,
        )  # fmt: skip

    def versions(self) -> tuple[dict[str, str], dict[str, str]]:
        return self.staging.versions(), self.prod.versions()


@pytest.fixture
def fleet(harness: Harness, prod_account: tuple[list[str], Path], tmp_path: Path) -> Fleet:
    """main applied to each cluster from its own overlay; prod's blog scaled by a person;
    the branch `feature` with the pull request: a change of the base alone."""
    kubectl, prod_kubeconfig = prod_account
    prod = Harness(harness.repo, harness.namespace, harness.instance, prod_kubeconfig, kubectl)
    prod.kubectl("create", "namespace", harness.namespace)
    kubeconfig = merged_kubeconfig(
        {"staging": harness.kubeconfig, "prod": prod_kubeconfig}, tmp_path / "kubeconfig"
    )
    unreachable = unreachable_kubeconfig(harness.kubeconfig, tmp_path / "lab-kubeconfig")
    fleet = Fleet(harness.repo, harness.namespace, kubeconfig, unreachable, harness, prod)
    harness.repo.write({"base/webapps.yaml": webapps_yaml(MAIN), **overlays(harness.namespace)})
    harness.repo.commit("main")
    for env in ("staging", "prod"):
        path = f"overlays/{env}"
        applied = fleet.driftctl("apply", "--ref", "main", "--context", env, "--path", path)
        assert applied.code == 0, applied.err
    prod.kubectl("scale", "deployment/blog", "--replicas=3", "-n", harness.namespace)
    harness.repo.git("checkout", "--quiet", "-b", "feature")
    harness.repo.write({"base/webapps.yaml": webapps_yaml(FEATURE)})
    harness.repo.commit("the pull request: the base alone")
    harness.repo.git("checkout", "--quiet", "main")
    return fleet


def objects(target: dict[str, Any]) -> dict[str, tuple[str, dict[str, bool]]]:
    """Each object of a target's check: its category, and each field's drift mark."""
    return {
        f"{o['kind']}/{o['name']}": (o["category"], {f["path"]: f["drift"] for f in o["fields"]})
        for o in target["check"]["cluster"]["objects"]
    }


def writes(before: Requests, after: Requests) -> set[tuple[str, str, str]]:
    """Each (resource, verb, dry run) of WebApps and Deployments between two snapshots."""
    requests = delta(before, after, ("webapps", "deployments"))
    return {(resource, verb, dry) for (resource, _, verb, _, dry, _) in requests}


def test_one_check_shows_each_clusters_change_apart_from_its_drift(
    fleet: Fleet, control_plane: launcher.ControlPlane, prod_plane: launcher.ControlPlane
) -> None:
    before = fleet.versions()
    quiet(fleet.staging)
    counted = request_counts(control_plane), request_counts(prod_plane)

    ran = fleet.check("-o", "json")

    assert ran.code == 0, ran.err
    assert fleet.versions() == before, "check writes nothing to any cluster"
    for plane, earlier in zip((control_plane, prod_plane), counted, strict=True):
        assert writes(earlier, request_counts(plane)) == {
            ("webapps", STREAMED_LIST, ""),
            ("deployments", STREAMED_LIST, ""),
            ("webapps", "LIST", ""),  # of other owners, where Git adds names
            ("deployments", "LIST", ""),
            ("webapps", "APPLY", "All"),
            ("deployments", "APPLY", "All"),
        }, "lists and dry-runs only, on each cluster"
    staging, prod, lab = json.loads(ran.out)["targets"]
    assert objects(staging) == {
        "WebApp/shop": ("change", {"spec.replicas": False}),
        "Deployment/shop": ("change", {"spec.replicas": False}),
    }
    image = "spec.template.spec.containers[name=app].image"
    assert objects(prod) == {
        "WebApp/shop": ("change", {"spec.image": False}),
        "Deployment/shop": ("change", {image: False}),
        "Deployment/blog": ("drift", {"spec.replicas": True}),
    }
    assert staging["summary"] == {"creates": 0, "updates": 2, "prunes": 0, "held": 0, "drift": 0}
    assert prod["summary"] == {"creates": 0, "updates": 2, "prunes": 0, "held": 0, "drift": 1}
    assert staging["rollouts"] == []
    assert prod["rollouts"] == [f"Deployment/{fleet.namespace}/shop"]
    assert (staging["path"], prod["path"]) == ("overlays/staging", "overlays/prod")
    [shop] = [o for o in staging["check"]["cluster"]["objects"] if o["kind"] == "WebApp"]
    assert [(f["before"], f["after"]) for f in shop["fields"]] == [(2, 3)]
    assert lab["summary"] is None
    assert "unreachable" in lab["unreachable"] or "refused" in lab["unreachable"], lab
    assert lab["check"]["git"]["summary"]["changed"] == 1, "its Git change is still told"


def test_an_unreachable_target_fails_the_markdown_report_only_when_asked(fleet: Fleet) -> None:
    passing = fleet.check("-o", "markdown")
    failing = fleet.check("-o", "markdown", "--fail-on", "unreachable")

    assert passing.code == 0, passing.err
    assert failing.code == 4, failing.err
    markdown = passing.out
    assert well_formed(markdown)
    assert markdown.startswith("<!-- driftctl-check targets=staging,prod,lab -->\n")
    assert "| `staging` | 0 | 2 | 0 | 0 | 0 |" in markdown
    assert "| `prod` | 0 | 2 | 0 | 0 | 1 |" in markdown
    assert "| `lab` | unreachable: " in markdown
    assert (
        f"**Rollouts**: merging starts 1 rollout: `Deployment/{fleet.namespace}/shop`." in markdown
    )
    assert ":x: **Fails** on `unreachable`" in failing.out
