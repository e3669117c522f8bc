"""`driftctl install --dry-run` prints what it would apply and reads no cluster; flags that
cannot make an installation are refused before one is touched (exit 2)."""

from __future__ import annotations

import pytest
import yaml

from tests.support.clirun import run_driftctl

REPO = ["--repo", "https://git.example.com/you/webapps.git"]
NOWHERE = ["--kubeconfig", "/nonexistent/kubeconfig"]  # reading it would exit 4


def test_a_dry_run_prints_every_object_in_the_order_it_applies_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run_driftctl(
        ["install", *REPO, "--path", "apps", "--form", "operator", "--dry-run", *NOWHERE],
        capsys,
        monkeypatch,
    )

    assert ran.code == 0, ran.err
    objects = [each for each in yaml.safe_load_all(ran.out) if each]
    assert [o["kind"] for o in objects] == [
        "CustomResourceDefinition", "Namespace", "ServiceAccount", "Role", "RoleBinding",
        "ClusterRole", "ClusterRoleBinding", "ClusterRole", "ClusterRoleBinding", "ConfigMap",
        "Deployment",
    ]  # fmt: skip
    assert objects[-2]["data"]["DRIFTCTL_PATH"] == "apps"


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        pytest.param(
            ["--rbac", "namespaced"], "--rbac namespaced needs --target-namespaces", id="ns"
        ),
        pytest.param(["--target-namespaces", "web"], "needs --rbac namespaced", id="scope"),
        pytest.param(["--schedule", "every minute"], "five fields", id="schedule"),
    ],
)
def test_flags_that_cannot_make_an_installation_exit_2(
    flags: list[str],
    reason: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran = run_driftctl(["install", *REPO, *flags, *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert reason in ran.err


def test_a_local_repository_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run_driftctl(["install", "--repo", ".", *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert "--repo must be a URL the cluster can reach" in ran.err
