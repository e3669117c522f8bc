"""The CronJob's settings file (cronjob/settings.yaml: the ConfigMap's settings.yaml, the
repository over HTTP with its token file, the ref, the path, the timeout, JSON logs, the
wait), given as `apply --config FILE`, runs exactly as `apply` with the same settings as
DRIFTCTL_* variables does: the same requests, counted by the API server, and the same log,
event by event.

Lease writes are counted apart, each run's bounded by its time: a run renews its Lease every
10 s it runs, and the API server renews its own identity Lease (kube-system/apiserver-...)
every 10 s whatever runs, a PUT the request counts see whenever one falls within a run. On a
loaded machine one run may take 10 s and the other not. The rest must be equal: the
requests by kind and verb, what driftctl's ServiceAccount sent (its own renewals aside), and
the log.

Each run corrects one hand-scaled Deployment (a different one each time: the same one twice
would be a fight, and its second correction another story), so both send the same kinds of
request, as many of each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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

CRONJOB_SETTINGS = ROOT / "cronjob" / "settings.yaml"
TOKEN = "tok-5f1c0e77ab"
RESOURCES = ("webapps", "deployments", "events", "leases", "replicasets", "pods")
RENEWAL = ("leases", "", "PUT", "resource", "", "200")
TAKE_AND_RELEASE = 2  # the run's Lease PUTs besides its renewals
RENEW_EVERY = 10.0  # seconds: a third of the run's Lease's 30 s, and the API server's own
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


def cronjob_settings(url: str, token_file: Path, harness: Harness) -> dict[str, Any]:
    """The ConfigMap's settings file, pointed at this test's repository, token and cluster."""
    configmap = yaml.safe_load(CRONJOB_SETTINGS.read_text())
    shipped: dict[str, Any] = yaml.safe_load(configmap["data"]["settings.yaml"])
    here = {
        "repo": url,
        "git-token-file": str(token_file),
        "kubeconfig": str(harness.kubeconfig),
        "instance": harness.instance,
        "namespace": harness.namespace,
        "lock-namespace": LOCK_NAMESPACE,
    }
    assert {"repo", "git-token-file"} <= set(shipped), "the CronJob's own"
    return {**shipped, **here}


def as_variables(settings: dict[str, Any]) -> dict[str, str]:
    """The same settings as DRIFTCTL_* variables: each value read as the file holds it,
    written as its variable takes it."""
    by_name = {each.name: each for each in by_variable().values()}
    variables = {}
    for key, value in settings.items():
        setting = by_name[key]
        variables[setting.variable] = setting.text(setting.kind.from_plain(value))
    return variables


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


def test_the_cronjobs_settings_file_runs_as_its_settings_as_variables_do(
    harness: Harness, served: Repo, control_plane: launcher.ControlPlane, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    config = tmp_path / "settings.yaml"
    with http_git_server(served.path.parent, "x-access-token", TOKEN) as (base, seen):
        settings = cronjob_settings(f"{base}/apps.git", token_file, harness)
        config.write_text(yaml.safe_dump(settings, sort_keys=False))
        variables = as_variables(settings)
        first = apply(variables)
        assert first.returncode == 0, first.stderr
        runs = []
        for name, env, args in (("blog", variables, ()), ("docs", {}, ("--config", str(config)))):
            harness.kubectl("scale", f"deployment/{name}", "--replicas=3", "-n", harness.namespace)
            quiet(harness)
            before = request_counts(control_plane)
            started = time.monotonic()
            ran = apply(env, *args)
            renewals = int((time.monotonic() - started) // RENEW_EVERY)  # a bound, not a timing
            after = request_counts(control_plane)
            assert ran.returncode == 0, ran.stderr
            counted = delta(before, after, RESOURCES)
            puts = counted.pop(RENEWAL, 0)  # the run's and the API server's own
            assert TAKE_AND_RELEASE <= puts <= TAKE_AND_RELEASE + 2 * renewals + 1, puts
            sent = after.service_accounts - before.service_accounts
            runs.append((counted, (sent, renewals), events(ran.stderr)))

    assert any(header.startswith("Basic ") for header in seen), "the token file was read"
    (by_variables, (sent, renewed), said), (by_file, (sent_too, renewed_too), said_too) = runs
    assert by_file == by_variables
    assert abs(sent_too - sent) <= max(renewed, renewed_too)  # the runs' own renewals
    assert said_too == said
    assert said["object info configured Deployment"] == 1, said
