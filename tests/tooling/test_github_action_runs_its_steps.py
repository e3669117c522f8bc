"""action.yml, run the way the Actions runner runs a composite action, with no network.

Each step's `env:` is evaluated (`${{ inputs.x }}`, `github.action_path`, `a || b`) and its
`run:` script goes to `bash --noprofile --norc -eo pipefail`, with the runner's files:
GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_PATH (whose lines are put in front of PATH for
the next steps), RUNNER_TEMP, and GITHUB_ACTION_PATH pointing at a copy of this checkout
(what the runner downloads for `uses:`). The job has no network: pip is given no index and
finds driftctl's dependencies and its build backend on PYTHONPATH (this test environment's),
so driftctl is built and installed from the checkout itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.builders import webapp
from tests.support.gitrepos import Repo, git_env
from tests.support.paths import ROOT

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(template: str, context: Mapping[str, str]) -> str:
    """`${{ a || b }}` with dotted names from `context`; an unknown name is empty, as on the
    runner (e.g. github.event.pull_request outside a pull request)."""

    def one(match: re.Match[str]) -> str:
        for name in match.group(1).split("||"):
            value = context.get(name.strip(), "")
            if value:
                return value
        return ""

    return EXPRESSION.sub(one, template)


def checkout_copy(target: Path) -> Path:
    """The action's files as the runner would download them: what git tracks here."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, env=git_env()
    ).stdout.decode()
    for name in filter(None, tracked.split("\0")):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def run_action(inputs: Mapping[str, str], workspace: Path, tmp_path: Path) -> dict[str, Any]:
    """Every step of action.yml in order; the outputs, the summary and each step's code."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    given = {
        name: inputs.get(name, str(spec.get("default", "")))
        for name, spec in action["inputs"].items()
    }
    files = {name: tmp_path / name for name in ("summary.md", "output", "path")}
    for file in files.values():
        file.touch()
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    action_path = checkout_copy(tmp_path / "action")
    context = {"github.action_path": str(action_path), "github.sha": given["head"]}
    base_env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GIT_", "DRIFTCTL_", "KUBECONFIG", "PIP_", "GITHUB_"))
    } | {
        "GITHUB_STEP_SUMMARY": str(files["summary.md"]),
        "GITHUB_OUTPUT": str(files["output"]),
        "GITHUB_PATH": str(files["path"]),
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_WORKSPACE": str(workspace),
        "RUNNER_TEMP": str(runner_temp),
        "NO_COLOR": "1",
        # No network: no index; dependencies and setuptools come from this environment.
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
    }
    codes = []
    for step in action["runs"]["steps"]:
        expressions = context | {f"inputs.{k}": v for k, v in given.items()}
        env = base_env | {k: evaluate(str(v), expressions) for k, v in step["env"].items()}
        added = [line for line in files["path"].read_text().splitlines() if line]
        env["PATH"] = os.pathsep.join([*reversed(added), base_env["PATH"]])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        codes.append(done.returncode)
        if done.returncode != 0:
            break
    outputs = dict(
        line.split("=", 1) for line in files["output"].read_text().splitlines() if "=" in line
    )
    return {"codes": codes, "outputs": outputs, "summary": files["summary.md"].read_text()}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A pull request's checkout: main declares shop and docs; feature changes shop and
    removes docs."""
    repo = Repo(tmp_path / "workspace")
    repo.write({"apps/shop.yaml": webapp("shop"), "apps/docs.yaml": webapp("docs")}).commit()
    repo.git("checkout", "--quiet", "-b", "feature")
    repo.remove("apps/docs.yaml").write({"apps/shop.yaml": webapp("shop", "nginx:1.28")})
    repo.commit("the pull request")
    return repo.path


def test_the_action_installs_from_its_checkout_and_writes_the_job_summary(
    workspace: Path, tmp_path: Path
) -> None:
    inputs = {"base": "main", "head": "feature", "path": "apps", "fail-on": "invalid"}

    ran = run_action(inputs, workspace, tmp_path)

    assert ran["codes"] == [0, 0]
    assert ran["outputs"]["exit-code"] == "0"
    report = Path(ran["outputs"]["report"])
    assert ran["summary"] == report.read_text()
    assert ran["summary"].startswith("<!-- driftctl-check instance=default path=apps -->\n")
    assert "> **Merging prunes 1 WebApp**" in ran["summary"]
    assert (
        "**Cluster**: not checked (no cluster credentials were given, or --offline)."
        in ran["summary"]
    )


def test_the_action_fails_the_step_on_what_fail_on_names(workspace: Path, tmp_path: Path) -> None:
    inputs = {"base": "main", "head": "feature", "path": "apps", "fail-on": "prune"}

    ran = run_action(inputs, workspace, tmp_path)

    assert ran["codes"] == [0, 1]
    assert ran["outputs"]["exit-code"] == "1"
    assert ":x: **Fails** on `prune`" in ran["summary"]
