"""`driftctl install --dry-run` prints what it would apply and reads no cluster; flags that
cannot make an installation are refused before one is touched (exit 2)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from driftctl.core.installation import Installation, is_workload, manifests
from driftctl.core.installed_settings import scope_of
from driftctl.settings.install import Form
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
    assert yaml.safe_load(objects[-2]["data"]["settings.yaml"])["path"] == "apps"


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


@pytest.mark.parametrize(
    ("repo", "what"),
    [
        pytest.param(".", "a local path", id="path"),
        pytest.param("/srv/git/webapps.git", "a local path", id="absolute"),
        pytest.param("file:///srv/git/webapps.git", "a file:// URL of this machine", id="file"),
    ],
)
def test_a_repository_no_pod_can_read_is_refused(
    repo: str, what: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: a file:// repository was installed, and no run could ever read it."""
    ran = run_driftctl(["install", "--repo", repo, "--dry-run", *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert ran.out == ""
    assert ran.err.splitlines() == [
        f"error: --repo {repo!r} is {what}, which no Pod can read",
        "hint: give the URL the cluster reaches it at (https://, ssh://, git@host:...); a "
        "repository on this machine must be served to the cluster first",
    ]


def test_another_instance_has_its_own_workload_settings_and_account(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: `install --instance b` rendered the default instance's CronJob, ConfigMap
    and ServiceAccount, and so overwrote them. (The default instance's are what cronjob/
    and operator/ are made from: tests/unit/test_the_shipped_manifests_are_made_from_the_
    code.py.)"""
    names = {}
    for form in ("cronjob", "operator"):
        ran = run_driftctl(
            ["install", *REPO, "--instance", "b", "--form", form, "--dry-run", *NOWHERE],
            capsys,
            monkeypatch,
        )
        assert ran.code == 0, ran.err
        objects = [each for each in yaml.safe_load_all(ran.out) if each]
        names[form] = [
            "/".join((o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]))
            for o in objects[1:]
        ]
        workload = objects[-1]
        template = (workload["spec"].get("jobTemplate") or workload)["spec"]["template"]
        assert template["spec"]["serviceAccountName"] == "driftctl-b"
        volumes = {each["name"]: each for each in template["spec"]["volumes"]}
        assert volumes["settings"]["configMap"] == {"name": "driftctl-b-settings"}
        assert template["metadata"]["labels"]["app.kubernetes.io/instance"] == "b"
        assert yaml.safe_load(objects[-2]["data"]["settings.yaml"])["instance"] == "b"

    assert names["cronjob"] == [
        "Namespace//driftctl-system",  # shared
        "ServiceAccount/driftctl-system/driftctl-b",
        "Role/driftctl-system/driftctl-b-lock",
        "RoleBinding/driftctl-system/driftctl-b-lock",
        "ClusterRole//driftctl-crd",  # shared
        "ClusterRoleBinding//driftctl-b-crd",
        "ClusterRole//driftctl",  # shared
        "ClusterRoleBinding//driftctl-b",
        "ConfigMap/driftctl-system/driftctl-b-settings",
        "CronJob/driftctl-system/driftctl-b",
    ]
    assert names["operator"][-1] == "Deployment/driftctl-system/driftctl-b"


def test_an_instance_too_long_for_a_cronjob_name_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run_driftctl(
        ["install", *REPO, "--instance", "b" * 44, "--dry-run", *NOWHERE], capsys, monkeypatch
    )

    assert ran.code == 2
    assert "longer than the 52 characters the API server takes" in ran.err


def test_a_shared_cluster_role_grants_what_the_forms_beside_it_need() -> None:
    """Beside an operator, a CronJob's install keeps the autoscalers' `watch` in the
    ClusterRole they share (both forms watch WebApps and Deployments: streamed lists)."""
    crd: dict[str, Any] = {"kind": "CustomResourceDefinition", "metadata": {"name": "x"}}
    alone = manifests(Installation(REPO[1], instance="b"), crd)
    beside = manifests(Installation(REPO[1], instance="b"), crd, frozenset({Form.OPERATOR}))

    def verbs(objects: list[dict[str, Any]]) -> list[str]:
        [role] = [
            o for o in objects if o["kind"] == "ClusterRole" and o["metadata"]["name"] == "driftctl"
        ]
        [rule] = [r for r in role["rules"] if r["resources"] == ["horizontalpodautoscalers"]]
        return list(rule["verbs"])

    assert "watch" not in verbs(alone)
    assert verbs(beside) == [*verbs(alone), "watch"]


def test_every_instances_workload_is_found_by_its_pods_label() -> None:
    """The operator's Deployment has no label of its own (operator/ gives it none)."""
    crd: dict[str, Any] = {"kind": "CustomResourceDefinition", "metadata": {"name": "x"}}
    workloads = [
        manifests(Installation(REPO[1], instance=instance, form=form), crd)[-1]
        for instance in ("default", "b")
        for form in Form
    ]
    other = {"metadata": {"name": "driftctl-web"}, "spec": {"template": {"metadata": {}}}}

    assert [is_workload(each) for each in workloads] == [True] * 4
    assert not is_workload(other)


@pytest.mark.parametrize(
    ("data", "scope"),
    [
        pytest.param(
            {"settings.yaml": "repo: x\ntarget-namespaces: [web, api]\n"}, ("web", "api"), id="file"
        ),
        pytest.param({"settings.yaml": "repo: x\n"}, (), id="cluster-wide"),
        pytest.param({"DRIFTCTL_TARGET_NAMESPACES": "web,api"}, ("web", "api"), id="older"),
        pytest.param({"settings.yaml": "repo: [unclosed\n"}, (), id="unreadable"),
    ],
)
def test_uninstall_finds_an_instances_namespaces_in_its_settings(
    data: dict[str, str], scope: tuple[str, ...]
) -> None:
    """Its settings file's target-namespaces, or the variable an installation older than the
    file kept (the Roles uninstall takes away are in those namespaces)."""
    assert scope_of(data) == scope
