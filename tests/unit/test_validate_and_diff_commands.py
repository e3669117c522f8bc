"""`driftctl validate` and `driftctl diff`: exit codes, text, JSON and Markdown output."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.builders import webapp
from tests.support.clirun import Ran, run_driftctl
from tests.support.gitrepos import Repo

Cli = Callable[..., Ran]


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    made = Repo(tmp_path / "repo").write(
        {"deploy/web.yaml": webapp("web"), "deploy/api.yaml": webapp("api", replicas=1)}
    )
    made.commit("base")
    made.git("branch", "base")
    return made


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("NO_COLOR", raising=False)

    def run(*args: str) -> Ran:
        return run_driftctl(args, capsys, monkeypatch)

    return run


def test_validate_a_valid_repository_prints_one_line_and_exits_0(repo: Repo, cli: Cli) -> None:
    ran = cli("validate", "--repo", str(repo.path), "--path", "deploy")
    assert ran.code == 0
    sha = repo.git("rev-parse", "HEAD")[:12]
    assert ran.out == f"valid: 2 WebApps in 2 files ({repo.path}#deploy at {sha})\n"
    assert "\033[" not in ran.out, "no colour when not a terminal"


def test_validate_an_invalid_repository_lists_every_problem_and_exits_3(
    repo: Repo, cli: Cli
) -> None:
    repo.write({"deploy/bad.yaml": "a: &x 1\n", "deploy/web.yaml": webapp("web", replicas=-2)})
    ran = cli("validate", "--repo", str(repo.path))
    assert ran.code == 3
    lines = ran.err.splitlines()
    assert lines[0] == "deploy/bad.yaml:1:4: anchors are refused (&x): write the value out"
    assert lines[1].startswith("deploy/web.yaml:7:13: WebApp/default/web: spec.replicas must be")
    assert lines[2].startswith("invalid: 2 problems")


def test_validate_json_is_stable_and_complete(repo: Repo, cli: Cli) -> None:
    ran = cli("validate", "--repo", str(repo.path), "--ref", "main", "-o", "json")
    assert ran.code == 0
    document = json.loads(ran.out)
    keys = "version valid source revision dirty files webapps problems warnings"
    assert list(document) == keys.split()
    assert document["webapps"][0] == {
        "namespace": "default",
        "name": "api",
        "image": "nginx:1.27",
        "replicas": 1,
        "labels": {},
        "annotations": {},
        "file": "deploy/api.yaml",
        "line": 1,
    }


def test_validate_json_reports_problems_with_exit_3(repo: Repo, cli: Cli) -> None:
    repo.write({"deploy/x.yaml": "- 1\n"})
    ran = cli("validate", "--repo", str(repo.path), "-o", "json")
    assert ran.code == 3
    assert json.loads(ran.out)["problems"][0]["file"] == "deploy/x.yaml"


def test_validate_takes_its_settings_from_the_environment(
    repo: Repo,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DRIFTCTL_REPO", str(repo.path))
    monkeypatch.setenv("DRIFTCTL_REF", "main")
    monkeypatch.setenv("DRIFTCTL_PATH", "deploy")
    ran = cli("validate", "--namespace", "shop", "-o", "json")
    document = json.loads(ran.out)
    assert document["source"].endswith("#deploy")
    assert {app["namespace"] for app in document["webapps"]} == {"shop"}


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        pytest.param(["--repo", "ext::sh -c id"], 4, "transport helpers", id="refused-url"),
        pytest.param(["--ref", "nope"], 4, "ref 'nope' not found", id="missing-ref"),
        pytest.param(["--path", "../x"], 2, "must be a folder inside", id="escaping-path"),
        pytest.param(["--namespace", "Bad_NS"], 2, "--namespace must be", id="bad-namespace"),
        pytest.param(["-o", "xml"], 2, "error: --output: 'xml'", id="bad-output"),
    ],
)
def test_validate_errors_have_their_exit_code_and_no_traceback(
    repo: Repo, cli: Cli, args: list[str], code: int, message: str
) -> None:
    ran = cli("validate", "--repo", str(repo.path), *args)
    assert ran.code == code
    assert message in ran.err
    assert "Traceback" not in ran.err


def test_diff_of_equal_commits_exits_0(repo: Repo, cli: Cli) -> None:
    ran = cli("diff", "--repo", str(repo.path), "--base", "base", "--head", "main")
    assert ran.code == 0
    assert ran.out.startswith("no changes: 2 WebApps the same")


@pytest.fixture
def changed(repo: Repo) -> Repo:
    repo.write({"deploy/web.yaml": webapp("web", image="nginx:1.28", replicas=3)})
    repo.write({"deploy/new.yaml": webapp("new")}).remove("deploy/api.yaml")
    repo.commit("change")
    return repo


def test_diff_text_shows_added_removed_and_changed_fields(changed: Repo, cli: Cli) -> None:
    ran = cli("diff", "--repo", str(changed.path), "--base", "base", "--head", "main")
    assert ran.code == 1
    assert ran.out.splitlines()[:8] == [
        "+ WebApp/default/new",
        "    spec.image: nginx:1.27",
        "    spec.replicas: 2",
        "- WebApp/default/api",
        "~ WebApp/default/web",
        "    spec.image: nginx:1.27 -> nginx:1.28",
        "    spec.replicas: 2 -> 3",
        ran.out.splitlines()[7],
    ]
    assert ran.out.splitlines()[7].startswith("1 added, 1 removed, 1 changed, 0 unchanged  [base (")


def test_diff_json_lists_changes_field_by_field(changed: Repo, cli: Cli) -> None:
    ran = cli("diff", "--repo", str(changed.path), "--base", "base", "--head", "main", "-o", "json")
    document = json.loads(ran.out)
    assert document["equal"] is False
    assert document["summary"] == {"added": 1, "removed": 1, "changed": 1, "unchanged": 0}
    assert document["changed"][0]["fields"] == [
        {"field": "spec.image", "old": "nginx:1.27", "new": "nginx:1.28"},
        {"field": "spec.replicas", "old": 2, "new": 3},
    ]
    assert document["base"]["ref"] == "base"
    assert document["head"]["revision"] == changed.git("rev-parse", "HEAD")


def test_diff_markdown_is_a_table_for_a_pull_request(changed: Repo, cli: Cli) -> None:
    ran = cli(
        "diff", "--repo", str(changed.path), "--base", "base", "--head", "main", "-o", "markdown"
    )
    lines = ran.out.splitlines()
    assert lines[0] == "### driftctl: desired state changes"
    assert "| change | WebApp | details |" in lines
    assert "| removed | `WebApp/default/api` |  |" in lines
    assert (
        "| changed | `WebApp/default/web` | `spec.image`: `nginx:1.27` → `nginx:1.28`<br>"
        "`spec.replicas`: `2` → `3` |"
    ) in lines


def test_diff_without_head_compares_with_the_working_tree(changed: Repo, cli: Cli) -> None:
    changed.write({"deploy/web.yaml": webapp("web", image="nginx:1.29", replicas=3)})
    ran = cli("diff", "--repo", str(changed.path), "--base", "main", "-o", "json")
    assert ran.code == 1
    document = json.loads(ran.out)
    assert document["head"]["dirty"] is True
    assert document["changed"][0]["fields"][0]["new"] == "nginx:1.29"


@pytest.mark.parametrize("side", ["base", "head"])
def test_diff_with_an_invalid_side_exits_3_naming_the_side(
    changed: Repo, cli: Cli, side: str
) -> None:
    changed.write({"deploy/web.yaml": "a: 1\na: 2\n"})
    broken = changed.commit("broken")
    refs = {"base": "base", "head": "base"} | {side: broken}
    ran = cli("diff", "--repo", str(changed.path), "--base", refs["base"], "--head", refs["head"])
    assert ran.code == 3
    assert ran.err.startswith(f"error: {side}: invalid desired state (1 problem)")
    assert "deploy/web.yaml:2:1: duplicate key 'a' (first at line 1)" in ran.err


def test_colour_is_used_on_a_terminal_unless_no_color_is_set(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = run_driftctl(["validate", "--repo", str(repo.path)], capsys, monkeypatch)
    monkeypatch.setenv("NO_COLOR", "1")
    plain = run_driftctl(["validate", "--repo", str(repo.path)], capsys, monkeypatch)
    assert "\033[32mvalid\033[0m" in coloured.out
    assert "\033[" not in plain.out


def test_help_texts_explain_each_command(cli: Cli) -> None:
    for command in ("validate", "diff", "crd"):
        ran = cli(command, "--help")
        assert ran.code == 0
        assert "Usage: driftctl" in ran.out
