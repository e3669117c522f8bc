"""`apply --config FILE` with every setting the CronJob's ConfigMap sets (cronjob/base/
settings.yaml: the repository over HTTP with its token file, the ref, the path, the timeout,
JSON logs, the wait) runs exactly as `apply` with those variables does: the same requests,
counted by the API server, and the same log, event by event.

Each run corrects one hand-scaled Deployment (a different one each time: the same one twice
would be a fight, and its second correction another story), so both send the same kinds of
request, as many of each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftctl.settings.declare import Setting
from driftctl.settings.file import catalogue
from driftctl.settings.requests import GROUPS
from tests.controlplane import launcher
from tests.support.builders import webapps_yaml
from tests.support.control_plane import delta, quiet, request_counts
from tests.support.gitrepos import Repo, http_git_server
from tests.support.harness import LOCK_NAMESPACE, Harness
from tests.support.paths import ROOT

CRONJOB_SETTINGS = ROOT / "cronjob" / "base" / "settings.yaml"
TOKEN = "tok-5f1c0e77ab"
RESOURCES = ("webapps", "deployments", "events", "leases", "replicasets", "pods")
APPS = {"shop": ("nginx:1.27", 1), "blog": ("nginx:1.27", 1), "docs": ("nginx:1.27", 1)}


def by_variable() -> dict[str, Setting]:
    """Each setting of apply by the variable it reads."""
    known = catalogue(GROUPS)
    return {
        each.variable: each
        for settings in known.values()
        for each in settings
        if "apply" in (each.commands or ())
    }


def cronjob_variables(url: str, token_file: Path, harness: Harness) -> dict[str, str]:
    """The ConfigMap's variables, pointed at this test's repository, token and cluster."""
    shipped: dict[str, str] = yaml.safe_load(CRONJOB_SETTINGS.read_text())["data"]
    here = {
        "DRIFTCTL_REPO": url,
        "DRIFTCTL_GIT_TOKEN_FILE": str(token_file),
        "DRIFTCTL_KUBECONFIG": str(harness.kubeconfig),
        "DRIFTCTL_INSTANCE": harness.instance,
        "DRIFTCTL_NAMESPACE": harness.namespace,
        "DRIFTCTL_LOCK_NAMESPACE": LOCK_NAMESPACE,
    }
    assert set(here) - {"DRIFTCTL_REPO", "DRIFTCTL_GIT_TOKEN_FILE"} <= set(by_variable())
    assert {"DRIFTCTL_REPO", "DRIFTCTL_GIT_TOKEN_FILE"} <= set(shipped), "the CronJob's own"
    return {**shipped, **here}


def as_file(variables: dict[str, str]) -> str:
    """The same settings as one YAML file: a key per flag, each value as the file holds it."""
    settings = by_variable()
    document = {}
    for variable, text in variables.items():
        setting = settings[variable]
        document[setting.name] = setting.kind.to_plain(setting.kind.parse(text))
    return yaml.safe_dump(document, sort_keys=False)


def apply(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "DRIFTCTL_"))}
    return subprocess.run(
        [sys.executable, "-m", "driftctl", "apply", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def events(stderr: str) -> Counter[str]:
    """The run's JSON log, each line as what it says (times, durations and names aside)."""
    said: Counter[str] = Counter()
    for text in stderr.splitlines():
        line: dict[str, Any] = json.loads(text)
        what = (line["event"], line["level"], line.get("outcome", ""), line.get("kind", ""))
        said[" ".join(what)] += 1
    return said


@pytest.fixture
def served(harness: Harness, tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "served" / "apps.git")
    repo.write({"apps/webapps.yaml": webapps_yaml(APPS)}).commit()
    return repo


def test_a_settings_file_of_the_cronjobs_variables_runs_as_they_do(
    harness: Harness, served: Repo, control_plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    config = tmp_path / "settings.yaml"
    with http_git_server(served.path.parent, "x-access-token", TOKEN) as (base, seen):
        variables = cronjob_variables(f"{base}/apps.git", token_file, harness)
        config.write_text(as_file(variables))
        first = apply(variables)
        assert first.returncode == 0, first.stderr
        runs = []
        for name, env, args in (("blog", variables, ()), ("docs", {}, ("--config", str(config)))):
            harness.kubectl("scale", f"deployment/{name}", "--replicas=3", "-n", harness.namespace)
            quiet(harness)
            before = request_counts(control_plane)
            ran = apply(env, *args)
            after = request_counts(control_plane)
            assert ran.returncode == 0, ran.stderr
            sent = after.service_accounts - before.service_accounts
            runs.append((delta(before, after, RESOURCES), sent, events(ran.stderr)))

    assert any(header.startswith("Basic ") for header in seen), "the token file was read"
    (by_variables, sent, said), (by_file, sent_too, said_too) = runs
    assert by_file == by_variables
    assert sent_too == sent
    assert said_too == said
    assert said["object info configured Deployment"] == 1, said
