"""cronjob/ as a cluster operator installs it: `kubectl apply -k` on the real control plane.

- Every object of both RBAC variants (and the sharded Component, the example Secret, and
  operator/'s two variants) is accepted by the API server; the default one is created
  for real.
- The CronJob's Pod, built from its template, is admitted by its namespace, which enforces
  the `restricted` Pod Security Standard; the test node's overlay is refused there for
  hostNetwork and for nothing else, so it changes nothing else about the Pod's security.
- The RBAC of every variant (operator/'s too) has no wildcard and no access to Secrets
  beyond reading the one named Git Secret; the check is shown to catch each kind of grant
  it refuses.
- The Pod's settings file (the ConfigMap's settings.yaml) names only settings apply takes,
  and its variables are only ones driftctl reads.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftctl import __version__, durations
from driftctl.cli import cli
from driftctl.settings.declare import Setting
from driftctl.settings.file import catalogue
from driftctl.settings.requests import GROUPS
from tests.support.harness import Harness
from tests.support.kustomize import (
    CRONJOB,
    NAMESPACE,
    Obj,
    named,
    of_kind,
    relative,
    render,
    write_overlay,
)
from tests.support.paths import ROOT

GIT_SECRET = "driftctl-git"
READ_ONLY = {"get"}
ESCALATING = {"bind", "escalate", "impersonate"}
NODE_OVERLAY = ROOT / "tests" / "node" / "overlay"
OPERATOR = ROOT / "operator"  # watch's variants: cluster-wide, and namespaced/


def kubectl_binary(harness: Harness) -> Path:
    return Path(harness.kubectl_argv[0])


def kubectl(
    harness: Harness, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """kubectl as admin, with its stderr (where the API server's warnings are printed)."""
    return subprocess.run(
        [*harness.kubectl_argv, *args], input=stdin, capture_output=True, text=True, check=False
    )


def as_list(documents: Sequence[Obj]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(documents)})


def pod_of(cronjob: Obj, name: str) -> Obj:
    """The Pod a Job of this CronJob would create (its template, named)."""
    template = cronjob["spec"]["jobTemplate"]["spec"]["template"]
    metadata = {**template.get("metadata", {}), "name": name, "namespace": NAMESPACE}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]}


@pytest.fixture
def webapps_namespace(harness: Harness) -> str:
    """The namespace cronjob/namespaced/ grants. It is left in place, empty: deleted, it
    would still be terminating when a reused control plane runs this test again."""
    if not harness.get("namespace", "webapps", namespace="default"):
        harness.kubectl("create", "namespace", "webapps")
    return "webapps"


def test_kubectl_apply_k_creates_every_object_without_a_warning(harness: Harness) -> None:
    applied = kubectl(harness, "apply", "--server-side", "-k", str(CRONJOB))

    assert applied.returncode == 0, applied.stderr
    assert "Warning" not in applied.stderr  # e.g. a PodSecurity warning for the CronJob
    for document in render(kubectl_binary(harness), CRONJOB):
        kind, meta = document["kind"], document["metadata"]
        namespace = ["-n", meta["namespace"]] if "namespace" in meta else []
        assert kubectl(harness, "get", kind, meta["name"], *namespace).returncode == 0
    namespace = json.loads(harness.kubectl("get", "namespace", NAMESPACE, "-o", "json"))
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


def test_the_other_variants_and_the_example_secret_are_accepted(
    harness: Harness, webapps_namespace: str, tmp_path: Path
) -> None:
    sharded = write_overlay(
        tmp_path / "sharded",
        [CRONJOB],
        components=[relative(tmp_path / "sharded", CRONJOB / "sharded")],
    )
    for folder in (CRONJOB / "namespaced", sharded, OPERATOR, OPERATOR / "namespaced"):
        documents = render(kubectl_binary(harness), folder)
        accepted = kubectl(
            harness,
            "apply",
            "--server-side",
            "--dry-run=server",
            "-f",
            "-",
            stdin=as_list(documents),
        )
        assert accepted.returncode == 0, f"{folder}: {accepted.stderr}"
        assert "Warning" not in accepted.stderr
    secret = kubectl(
        harness, "apply", "--dry-run=server", "-f", str(CRONJOB / "git-secret.example.yaml")
    )
    assert secret.returncode == 0, secret.stderr


def test_the_cronjobs_pod_is_admitted_where_restricted_is_enforced(harness: Harness) -> None:
    assert kubectl(harness, "apply", "--server-side", "-k", str(CRONJOB)).returncode == 0
    cronjob = named(render(kubectl_binary(harness), CRONJOB), "CronJob", "driftctl")

    admitted = kubectl(
        harness, "create", "--dry-run=server", "-o", "json", "-f", "-",
        stdin=json.dumps(pod_of(cronjob, "driftctl-admitted")),
    )  # fmt: skip

    assert admitted.returncode == 0, admitted.stderr
    assert "Warning" not in admitted.stderr
    spec = json.loads(admitted.stdout)["spec"]
    [container] = spec["containers"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert spec["securityContext"]["runAsNonRoot"] is True


def test_the_node_overlay_is_refused_there_for_host_network_only(harness: Harness) -> None:
    assert kubectl(harness, "apply", "--server-side", "-k", str(CRONJOB)).returncode == 0
    cronjob = named(render(kubectl_binary(harness), NODE_OVERLAY), "CronJob", "driftctl")

    refused = kubectl(
        harness, "create", "--dry-run=server", "-f", "-",
        stdin=json.dumps(pod_of(cronjob, "driftctl-on-the-node")),
    )  # fmt: skip

    assert refused.returncode != 0
    assert 'violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true)\n' in (
        refused.stderr
    ), refused.stderr


def test_the_image_is_named_for_users_to_retag_at_driftctls_version(harness: Harness) -> None:
    cronjob = named(render(kubectl_binary(harness), CRONJOB), "CronJob", "driftctl")

    [container] = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]

    assert container["image"] == f"driftctl:{__version__}"


def settings_of(documents: Sequence[Obj]) -> dict[str, Any]:
    """The settings file the ConfigMap holds (the --config file the Pod reads)."""
    configmap = named(documents, "ConfigMap", "driftctl-settings")
    found: dict[str, Any] = yaml.safe_load(configmap["data"]["settings.yaml"])
    return found


def taken(setting: Setting) -> bool:
    return "apply" in (setting.commands or ())


def test_the_pod_reads_only_settings_driftctl_takes(harness: Harness) -> None:
    documents = render(kubectl_binary(harness), CRONJOB / "namespaced")
    settings = settings_of(documents)
    [container] = named(documents, "CronJob", "driftctl")["spec"]["jobTemplate"]["spec"][
        "template"
    ]["spec"]["containers"]
    apply = cli.commands["apply"]
    known = {var for param in apply.params for var in _envvars(param.envvar)}
    keys = {key for key, each in catalogue(GROUPS).items() if any(taken(s) for s in each)}

    variables = {item["name"] for item in container["env"]}

    assert {name for name in variables if name.startswith("DRIFTCTL_")} <= known
    assert "DRIFTCTL_CONFIG" in variables
    assert set(settings) <= keys
    assert settings["target-namespaces"] == ["webapps"]


def test_waiting_for_rollouts_fits_within_the_jobs_deadline(harness: Harness) -> None:
    """Turned on (wait), the run's timeout and the wait's end before the Job's deadline
    stops the Pod, with a minute left for the Git fetch."""
    documents = render(kubectl_binary(harness), CRONJOB)
    settings = settings_of(documents)
    job = named(documents, "CronJob", "driftctl")["spec"]["jobTemplate"]["spec"]

    budget = durations.seconds(settings["timeout"]) + durations.seconds(settings["wait-timeout"])

    assert settings["wait"] in (False, True)
    assert budget + 60 <= job["activeDeadlineSeconds"]


def _envvars(envvar: Any) -> list[str]:
    if envvar is None:
        return []
    return [envvar] if isinstance(envvar, str) else list(envvar)


def rbac_problems(documents: Sequence[Obj]) -> list[str]:
    """Why these Roles and ClusterRoles grant more than driftctl may have (none: nothing)."""
    problems: list[str] = []
    for role in of_kind(documents, "Role", "ClusterRole"):
        where = f"{role['kind']}/{role['metadata']['name']}"
        if "aggregationRule" in role:
            problems.append(f"{where}: an aggregated role can gain any rule")
        for rule in role.get("rules") or []:
            problems += [f"{where}: {problem}" for problem in _rule_problems(rule)]
    return problems


def _rule_problems(rule: dict[str, Any]) -> Iterator[str]:
    for field in ("apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs"):
        if any("*" in value for value in rule.get(field) or []):
            yield f"a wildcard in {field}: {rule[field]}"
    if rule.get("nonResourceURLs"):
        yield f"non-resource URLs: {rule['nonResourceURLs']}"
    if ESCALATING & set(rule.get("verbs") or []):
        yield f"an escalating verb: {sorted(ESCALATING & set(rule['verbs']))}"
    core = not rule.get("apiGroups") or "" in rule["apiGroups"] or "*" in rule["apiGroups"]
    secrets = {"secrets", "*"} & set(rule.get("resources") or [])
    if core and secrets:
        if rule.get("resourceNames") != [GIT_SECRET]:
            yield f"Secrets other than {GIT_SECRET}: resourceNames {rule.get('resourceNames')}"
        if not set(rule.get("verbs") or []) <= READ_ONLY:
            yield f"more than reading Secret {GIT_SECRET}: {rule['verbs']}"


def test_no_variant_grants_a_wildcard_or_any_secret(harness: Harness, tmp_path: Path) -> None:
    sharded = write_overlay(
        tmp_path / "sharded",
        [CRONJOB],
        components=[relative(tmp_path / "sharded", CRONJOB / "sharded")],
    )
    variants = (CRONJOB, CRONJOB / "namespaced", sharded, NODE_OVERLAY)
    for folder in (*variants, OPERATOR, OPERATOR / "namespaced"):
        documents = render(kubectl_binary(harness), folder)
        assert of_kind(documents, "Role", "ClusterRole"), folder
        assert rbac_problems(documents) == [], folder


def role(*rules: dict[str, Any], kind: str = "ClusterRole", **extra: Any) -> Obj:
    return {"kind": kind, "metadata": {"name": "r"}, "rules": list(rules), **extra}


def rule(groups: list[str], resources: list[str], verbs: list[str], **extra: Any) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs, **extra}


@pytest.mark.parametrize(
    ("granted", "problem"),
    [
        pytest.param(
            role(rule(["apps"], ["deployments"], ["*"])), "a wildcard in verbs", id="verb"
        ),
        pytest.param(
            role(rule(["*"], ["webapps"], ["list"])), "a wildcard in apiGroups", id="group"
        ),
        pytest.param(
            role(rule(["apps"], ["*"], ["get"])), "a wildcard in resources", id="resource"
        ),
        pytest.param(
            role(rule([""], ["secrets"], ["get"])), "Secrets other than driftctl-git", id="secrets"
        ),
        pytest.param(
            role(rule([""], ["secrets"], ["list"], resourceNames=["driftctl-git"]), kind="Role"),
            "more than reading Secret driftctl-git",
            id="list-named-secret",
        ),
        pytest.param(
            role(rule([""], ["secrets"], ["get"], resourceNames=["other"])),
            "Secrets other than driftctl-git",
            id="other-secret",
        ),
        pytest.param(
            role({"nonResourceURLs": ["/metrics"], "verbs": ["get"]}), "non-resource", id="url"
        ),
        pytest.param(
            role(rule(["rbac.authorization.k8s.io"], ["clusterroles"], ["bind"])),
            "an escalating verb",
            id="bind",
        ),
        pytest.param(role(aggregationRule={}), "an aggregated role", id="aggregated"),
    ],
)
def test_the_rbac_check_catches_each_grant_it_refuses(granted: Obj, problem: str) -> None:
    problems = rbac_problems([granted])

    assert len(problems) >= 1
    assert problem in problems[0]


def test_reading_only_the_named_git_secret_would_pass_the_check() -> None:
    granted = role(rule([""], ["secrets"], ["get"], resourceNames=[GIT_SECRET]), kind="Role")

    assert rbac_problems([granted]) == []
