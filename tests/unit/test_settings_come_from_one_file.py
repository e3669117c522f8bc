"""`--config FILE`: every setting of every command from one YAML file, keys named as the flags.

A flag beats its variable, which beats the file, which beats the default. A key the
command does not take is set aside (and shown by `config view`); a key no command takes, a
value its setting refuses, a value of the wrong type and a secret are each refused with
file:line:column, exit 2, before Git or the cluster is read. A file holding each setting's
default changes nothing, for every command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner

from driftctl.cli import cli
from driftctl.cli.options import build_request
from driftctl.settings.declare import taken_by
from driftctl.settings.requests import REQUESTS, groups_taken_by
from tests.support.clirun import run_driftctl

# Neither exists: reading either would fail with exit 4, so exit 2 proves nothing was read.
NOWHERE = ["--repo", "/nonexistent/repo", "--kubeconfig", "/nonexistent/kubeconfig"]


def settings_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        pytest.param(
            "max-prune: 25%\nmax-prunes: 3\n", "2:13", "unknown key 'max-prunes'", id="key"
        ),
        pytest.param(
            "prune-policy: sometimes\n",
            "1:15",
            "prune-policy must be one of delete, orphan, confirm, quarantine, not 'sometimes'",
            id="value",
        ),
        pytest.param(
            "concurrency: eight\n", "1:14", "concurrency must be a whole number", id="type"
        ),
        pytest.param("prune: [yes]\n", "1:8", "prune must be true or false, not a list", id="list"),
        pytest.param(
            "window:\n  - deny @daily for 1h\n  - deny 0 18 * * 5 for 1y\n",
            "3:5",
            "window '1y' is not a duration",
            id="a list's item",
        ),
        pytest.param(
            "repo: https://bot:hunter2@git.example.com/apps.git\n",
            "1:7",
            "repo holds a password in its URL",
            id="secret",
        ),
        pytest.param("plan: plan.json\n", "1:7", "plan names one run's input", id="run-only"),
        pytest.param("timeout: -5\n", "1:10", "timeout must be at least 1s, got -5", id="negative"),
    ],
)
def test_a_bad_file_exits_2_naming_file_line_and_column(
    text: str,
    where: str,
    reason: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = settings_file(tmp_path, text)

    ran = run_driftctl(["plan", *NOWHERE, "--config", str(path)], capsys, monkeypatch)

    assert ran.code == 2, ran.err
    assert f"{path}:{where}: {reason}" in ran.err
    assert "Traceback" not in ran.err
    assert "/nonexistent" not in ran.err  # nothing was read


def test_every_problem_of_a_file_is_named_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(tmp_path, "max-prune: lots\nresyncs: 1m\nprune: maybe\n")

    ran = run_driftctl(["apply", *NOWHERE, "--config", str(path)], capsys, monkeypatch)

    assert ran.code == 2
    assert ran.err.splitlines() == [
        f"error: {path}: invalid settings (3 problems)",
        f"  {path}:1:12: max-prune must be a count N or a percentage P%, not 'lots'",
        f"  {path}:2:10: unknown key 'resyncs' (did you mean 'resync'?)",
        f"  {path}:3:8: prune must be true or false, not a string",
    ]


def test_unreadable_yaml_is_refused_with_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(tmp_path, "ref: main\nref: next\n")

    ran = run_driftctl(["plan", *NOWHERE, "--config", str(path)], capsys, monkeypatch)

    assert ran.code == 2
    assert f"{path}:2:1:" in ran.err
    assert "duplicate key" in ran.err


def test_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run_driftctl(["plan", "--config", str(tmp_path / "none.yaml")], capsys, monkeypatch)

    assert ran.code == 2
    assert f"--config {tmp_path / 'none.yaml'}: cannot be read" in ran.err


def resolved(argv: list[str], monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    """`config view`'s settings of a command, by name: value and origin."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ran = CliRunner().invoke(cli, ["config", "view", *argv, "-o", "json"])
    assert ran.exit_code == 0, ran.output
    document: dict[str, Any] = json.loads(ran.output)
    return {row["name"]: (row["value"], row["from"]) for row in document["settings"]} | {
        "unused": [row["key"] for row in document["unused"]]
    }


def test_a_variable_wins_over_the_file_which_wins_over_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(tmp_path, "ref: main\ntimeout: 90s\nwindow: [deny @daily for 1h]\n")

    found = resolved(["--config", str(path)], monkeypatch, DRIFTCTL_TIMEOUT="2m")

    assert found["ref"] == ("main", f"{path}:1")
    assert found["timeout"] == ("2m", "DRIFTCTL_TIMEOUT")
    assert found["window"] == ("deny @daily for 1h", f"{path}:3")
    assert found["prune-policy"] == ("delete", "default")


def test_a_flag_wins_over_the_variable_and_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(tmp_path, "instance: from-the-file\nmax-prune: 5\n")
    monkeypatch.setenv("DRIFTCTL_MAX_PRUNE", "lots")

    from_variable = run_driftctl(["plan", *NOWHERE, "--config", str(path)], capsys, monkeypatch)
    from_flag = run_driftctl(
        ["plan", *NOWHERE, "--config", str(path), "--max-prune", "many"], capsys, monkeypatch
    )

    assert from_variable.code == from_flag.code == 2
    assert "not 'lots'" in from_variable.err
    assert "not 'many'" in from_flag.err


def test_the_file_is_read_when_nothing_else_sets_a_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSON log names the instance the file gave, and its own format is the file's."""
    path = settings_file(tmp_path, "instance: from-the-file\nlog-format: json\n")

    ran = run_driftctl(["plan", *NOWHERE, "--config", str(path)], capsys, monkeypatch)

    assert ran.code == 4
    [*_, summary] = [json.loads(line) for line in ran.err.splitlines()]
    assert summary["instance"] == "from-the-file"


def test_a_variable_names_the_file_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_CONFIG", str(settings_file(tmp_path, "max-prune: lots\n")))

    ran = run_driftctl(["plan", *NOWHERE], capsys, monkeypatch)

    assert ran.code == 2
    assert "max-prune must be a count N or a percentage P%, not 'lots'" in ran.err


def test_a_key_the_command_does_not_take_is_set_aside_and_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(tmp_path, "resync: 1m\nfail-on: prune\nmax-prune: 10%\n")

    found = resolved(["apply", "--config", str(path)], monkeypatch)
    path.write_text("resync: 1m\nfail-on: prune\nmax-prune: lots\n")
    ran = run_driftctl(["apply", *NOWHERE, "--config", str(path)], capsys, monkeypatch)

    assert found["unused"] == ["resync", "fail-on"]
    assert "resync" not in found
    assert found["max-prune"] == ("10%", f"{path}:3")
    assert ran.code == 2
    assert "max-prune must be a count" in ran.err  # taken, and refused
    assert "resync" not in ran.err


ARGUMENTS = {"show": ["plan.json"]}  # what a command needs beside its settings


def parsed(command: str, args: list[str]) -> object:
    """The request `command` builds from `args`, as click parses them."""
    # As the CLI makes them: click keeps a command's help option from its first context.
    with click.Context(cli, info_name="driftctl", **cli.context_settings) as root:
        found = cli.get_command(root, command)
        assert isinstance(found, click.Command)
        context = found.make_context(command, [*args, *ARGUMENTS.get(command, [])], parent=root)
    return build_request(REQUESTS[command], command, context.params)


def defaults_of(command: str) -> dict[str, object]:
    """Every setting `command` takes that a file may hold, at its default, as a file holds it."""
    out: dict[str, object] = {}
    for group in groups_taken_by(command):
        for each in taken_by(group, command):
            if each.in_file and not each.argument and each.default is not None:
                value = each.default
                out[each.name] = (
                    [each.kind.to_plain(item) for item in value]
                    if each.many
                    else each.kind.to_plain(value)
                )
    return out


@pytest.mark.parametrize("command", sorted(set(REQUESTS) - {"diff", "check", "install"}))
def test_a_file_of_every_default_builds_the_same_request(command: str, tmp_path: Path) -> None:
    path = settings_file(tmp_path, yaml.safe_dump(defaults_of(command)))

    assert parsed(command, ["--config", str(path)]) == parsed(command, [])


def test_a_key_names_one_setting_of_each_command_that_takes_it() -> None:
    """`repo` is install's and a run's, `shard-index` watch's and apply's: one file serves
    both, so no command may take two settings of one name."""
    for command in REQUESTS:
        names = [
            each.name for group in groups_taken_by(command) for each in taken_by(group, command)
        ]
        assert len(names) == len(set(names)), command
