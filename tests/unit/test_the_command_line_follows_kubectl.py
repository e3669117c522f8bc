"""The command line as a kubectl user expects it, and what a newcomer's first mistakes get.

kubectl's conventions: global flags before or after the command; `-o json|yaml|text` and
`-o=json`; durations as `30s`/`5m` (plain seconds still work); `--no-color` besides
NO_COLOR; `-q/--quiet` and `-v/--verbose`; one output variable per command; examples and
grouped flag sections in every `--help`. And the answers a newcomer gets (issue 23, bugs 4
and 10): `DRIFTCTL_OUTPUT` no longer breaks `driftctl crd`, `--dry-run` says where the dry
run is, `unlock --help` lists only what unlock uses, `driftctl --help` never cuts a summary.
Nothing here needs a cluster.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from driftctl.cli import cli
from driftctl.cli.global_flags import moved_after_command
from driftctl.cli.options import Duration
from driftctl.durations import seconds_text
from driftctl.errors import UsageError
from driftctl.settings import Selection
from driftctl.settings.declare import from_written
from driftctl.settings.spans import Seconds
from tests.support.builders import webapp
from tests.support.clirun import driftctl_alone
from tests.support.gitrepos import Repo
from tests.support.paths import ROOT

COMMANDS = sorted(cli.commands)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    made = Repo(tmp_path / "repo").write({"apps/shop.yaml": webapp("shop")})
    made.commit("one webapp")
    return made


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> object:
    return driftctl_alone(capsys, monkeypatch, "KUBECONFIG")


def help_of(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


# ---- issue 23, bug 4: one output variable per command ------------------------------------


def test_each_command_reads_its_own_output_variable(run) -> None:  # type: ignore[no-untyped-def]
    shared = run("crd", DRIFTCTL_OUTPUT="text")  # another command's variable: not crd's
    own = run("crd", DRIFTCTL_CRD_OUTPUT="json")
    others = run("crd", DRIFTCTL_PLAN_OUTPUT="json")

    assert shared.code == 0, shared.err
    assert shared.out.startswith("# ")  # YAML, with the generated notice
    assert json.loads(own.out)["kind"] == "CustomResourceDefinition"
    assert others.out == shared.out
    assert "DRIFTCTL_PLAN_OUTPUT" in help_of("plan")
    assert "DRIFTCTL_CRD_OUTPUT" in help_of("crd")


def test_a_set_shared_output_variable_is_warned_of_naming_the_commands_own(  # type: ignore[no-untyped-def]
    run, repo: Repo, tmp_path: Path
) -> None:
    """Issue 34: DRIFTCTL_OUTPUT=json was ignored in silence (a CronJob that sets it must
    keep running: a warning, not a refusal)."""
    crd = run("crd", DRIFTCTL_OUTPUT="json")
    validated = run("validate", "--repo", str(repo.path), "--path", "apps", DRIFTCTL_OUTPUT="json")
    missing = str(tmp_path / "no-kubeconfig")
    logged = run("plan", "--repo", str(repo.path), "--path", "apps", "--kubeconfig", missing,
                 "--log-format", "json", DRIFTCTL_OUTPUT="json")  # fmt: skip
    unset = run("crd")

    assert crd.code == 0, crd.err
    assert crd.out.startswith("# ")  # YAML still: crd's -o reads DRIFTCTL_CRD_OUTPUT
    assert crd.err == (
        "warning: DRIFTCTL_OUTPUT is set, but no command reads it: -o/--output of `driftctl "
        "crd` reads DRIFTCTL_CRD_OUTPUT (each command has formats of its own)\n"
    )
    assert validated.code == 0, validated.err
    assert "reads DRIFTCTL_VALIDATE_OUTPUT" in validated.err
    first = json.loads(logged.err.splitlines()[0])  # the JSON log says it, as a JSON line
    assert (first["level"], first["event"]) == ("warning", "warning")
    assert "-o/--output of `driftctl plan` reads DRIFTCTL_PLAN_OUTPUT" in first["message"]
    assert unset.err == ""


# ---- issue 23, bug 10: what a newcomer's first mistakes get ------------------------------


@pytest.mark.parametrize("spelling", ["--dry-run", "--dry-run=server", "--dry-run=client"])
def test_dry_run_is_answered_with_where_the_dry_run_is(run, spelling: str) -> None:  # type: ignore[no-untyped-def]
    ran = run("apply", spelling)

    assert ran.code == 2
    assert "Did you mean" not in ran.err
    assert ran.err.splitlines()[0] == (
        "error: apply has no --dry-run: `driftctl plan` with the same flags is its dry run: it "
        "dry-runs every change on the API server and prints exactly what apply would do "
        "(`-o json` for a machine)"
    )


def test_unlock_lists_only_the_flags_it_uses() -> None:
    shown = help_of("unlock")

    for unused in ("--field-manager", "--concurrency", "--target-namespaces", "--repo"):
        assert unused not in shown
    for used in ("--kubeconfig", "--context", "--instance", "--timeout", "--lock-namespace"):
        assert used in shown


def test_the_top_level_help_shows_each_summary_whole() -> None:
    shown = help_of()
    listed = " ".join(shown.split("\nBasic commands:\n", 1)[1].split("\nOptions:\n", 1)[0].split())

    assert "..." not in listed
    for name in COMMANDS:
        first = cli.commands[name].help or ""
        assert " ".join(first.split("\n\n", 1)[0].split()) in listed, name


def test_the_status_says_its_seed_names_are_kept_on_purpose(run) -> None:  # type: ignore[no-untyped-def]
    crd = yaml.safe_load(run("crd").out)
    status = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]

    assert "on purpose" in status["properties"]["available_replicas"]["description"]


# ---- kubectl's conventions ---------------------------------------------------------------


def test_global_flags_may_come_before_or_after_the_command(run) -> None:  # type: ignore[no-untyped-def]
    before = run("--kubeconfig", "/nope/config", "-q", "unlock")
    after = run("unlock", "--kubeconfig", "/nope/config", "-q")
    equals = run("--kubeconfig=/nope/config", "unlock")

    assert before.code == after.code == equals.code == 4
    assert before.err == after.err == equals.err
    assert before.err.startswith("error: kubeconfig /nope/config does not exist")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(["--context", "x", "plan"], ["plan", "--context", "x"], id="value"),
        pytest.param(
            ["--context=x", "-v", "plan", "a"], ["plan", "--context=x", "-v", "a"], id="eq"
        ),
        pytest.param(["--help"], ["--help"], id="help-stays"),
        pytest.param(["--version", "plan"], ["--version", "plan"], id="version-stays"),
        pytest.param(["--ref", "main", "plan"], ["--ref", "main", "plan"], id="not-global"),
    ],
)
def test_only_global_flags_are_moved_after_the_command(
    args: list[str], expected: list[str]
) -> None:
    assert moved_after_command(args, {"plan", "apply"}) == expected


@pytest.mark.parametrize("spelling", [["-o", "json"], ["-ojson"], ["-o=json"], ["--output=json"]])
def test_output_is_chosen_as_kubectl_chooses_it(  # type: ignore[no-untyped-def]
    run, repo: Repo, spelling: list[str]
) -> None:
    ran = run("validate", "--repo", str(repo.path), "--path", "apps", *spelling)

    assert ran.code == 0, ran.err
    assert json.loads(ran.out)["valid"] is True


def test_yaml_output_is_the_json_document_as_yaml(run, repo: Repo) -> None:  # type: ignore[no-untyped-def]
    as_json = run("validate", "--repo", str(repo.path), "--path", "apps", "-o", "json")
    as_yaml = run("validate", "--repo", str(repo.path), "--path", "apps", "-o", "yaml")

    assert yaml.safe_load(as_yaml.out) == json.loads(as_json.out)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30),
        ("5m", 300),
        ("1h30m", 5400),
        ("500ms", 0.5),
        ("2d", 172_800),
        ("300", 300),
        ("0.5", 0.5),
    ],
)
def test_durations_are_read_as_kubectl_writes_them(text: str, seconds: float) -> None:
    assert Duration(Seconds()).convert(text, None, None) == seconds


@pytest.mark.parametrize("text", ["5 minutes", "m5", "5y", "-1s", ""])
def test_a_duration_that_is_none_is_refused(text: str) -> None:
    with pytest.raises(click.BadParameter):
        Duration(Seconds()).convert(text, None, None)


def test_durations_print_as_they_are_written() -> None:
    assert [seconds_text(s) for s in (1, 30, 300, 5400, 0.5, 86_400)] == [
        "1s",
        "30s",
        "5m",
        "1h30m",
        "500ms",
        "1d",
    ]


def test_a_bad_duration_flag_exits_2_naming_it(run) -> None:  # type: ignore[no-untyped-def]
    ran = run("unlock", "--timeout", "5 minutes")

    assert ran.code == 2
    assert (
        "'5 minutes' is not a duration: write 500ms, 30s, 5m, 1h30m, 2d or plain seconds" in ran.err
    )


def test_quiet_and_verbose_together_are_refused(run) -> None:  # type: ignore[no-untyped-def]
    ran = run("unlock", "-q", "-v", "--kubeconfig", "/nope/config")

    assert ran.code == 2
    assert "-q/--quiet and -v/--verbose cannot be used together" in ran.err


@pytest.mark.parametrize(
    ("flags", "env", "coloured"),
    [
        pytest.param([], {}, True, id="terminal"),
        pytest.param(["--no-color"], {}, False, id="no-color-flag"),
        pytest.param([], {"NO_COLOR": "1"}, False, id="NO_COLOR"),
        pytest.param([], {"DRIFTCTL_NO_COLOR": "true"}, False, id="its-variable"),
    ],
)
def test_colour_on_a_terminal_unless_no_color_says_otherwise(
    repo: Repo, flags: list[str], env: dict[str, str], coloured: bool
) -> None:
    master, slave = os.openpty()
    clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR",) and "DRIFTCTL" not in k}
    argv = [sys.executable, "-m", "driftctl", "validate", "--repo", str(repo.path), *flags]
    done = subprocess.run(
        argv, stdout=slave, stderr=slave, env={**clean, **env}, cwd=ROOT, timeout=60, check=False
    )
    os.close(slave)
    screen = os.read(master, 65536).decode()
    os.close(master)

    assert done.returncode == 0, screen
    assert ("\x1b[32mvalid\x1b[0m" in screen) is coloured, screen


@pytest.mark.parametrize("name", COMMANDS)
def test_every_help_has_examples_and_its_flags_grouped(name: str) -> None:
    shown = help_of(name)

    assert "\nExamples:\n" in shown
    assert f"$ driftctl {name}" in shown.split("\nExamples:\n", 1)[1]
    assert "\nGlobal flags:\n" in shown
    assert "\nOptions:\n" not in shown


@pytest.mark.parametrize(
    ("selector", "labels", "picked"),
    [
        pytest.param("team=a", {"team": "a"}, True, id="equals"),
        pytest.param("team==a", {"team": "b"}, False, id="double-equals"),
        pytest.param("team!=a", {}, True, id="not-equals-without-the-label"),
        pytest.param("env in (prod, staging)", {"env": "staging"}, True, id="in"),
        pytest.param("env notin (prod)", {"env": "prod"}, False, id="notin"),
        pytest.param("canary", {"canary": ""}, True, id="exists"),
        pytest.param("!legacy,team=a", {"team": "a", "legacy": "1"}, False, id="lacks-and"),
    ],
)
def test_a_selector_is_read_as_kubectl_reads_it(
    selector: str, labels: dict[str, str], picked: bool
) -> None:
    selection = from_written(Selection, requirements=selector)

    assert all(each.matches(labels) for each in selection.requirements) is picked


@pytest.mark.parametrize(
    ("names", "selector", "reason"),
    [
        pytest.param((), "team=(a", "is not a label requirement", id="garbled"),
        pytest.param((), "Team Name=a", "is not a label requirement", id="spaces"),
        pytest.param(("Shop",), None, "NAME 'Shop': must be a lowercase", id="bad-name"),
        pytest.param(("shop",), "team=a", "name WebApps or give --selector, not both", id="both"),
    ],
)
def test_a_selection_that_cannot_work_is_refused(
    names: tuple[str, ...], selector: str | None, reason: str
) -> None:
    with pytest.raises(UsageError, match=re.escape(reason)):
        from_written(Selection, names=names, requirements=selector)


def test_version_prints_the_clients_before_a_cluster_it_cannot_read(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """As `kubectl version`: the client's line first, then why the server's is missing."""
    ran = run("version", "--kubeconfig", str(tmp_path / "nope" / "config"))

    assert ran.code == 4
    assert re.fullmatch(r"Client: driftctl \S+ \(Python \S+\)\n", ran.out)
    assert "does not exist" in ran.err


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_a_script_that_asks_driftctl(run, shell: str) -> None:  # type: ignore[no-untyped-def]
    ran = run("completion", shell)

    assert ran.code == 0, ran.err
    assert "_DRIFTCTL_COMPLETE" in ran.out
    assert f"{shell}_complete" in ran.out


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        pytest.param("driftctl st", ["status"], id="command"),
        pytest.param("driftctl plan -o ", ["text", "json", "yaml", "markdown"], id="choices"),
        pytest.param("driftctl completion ", ["bash", "zsh", "fish"], id="shells"),
    ],
)
def test_completion_completes_commands_and_choices(words: str, expected: list[str]) -> None:
    installed = Path(sys.executable).parent / "driftctl"
    env = {
        **os.environ,
        "_DRIFTCTL_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }

    done = subprocess.run([installed], env=env, capture_output=True, text=True, check=True)

    assert [line.split(",", 1)[1] for line in done.stdout.splitlines()] == expected
