"""A value refused reads alike whoever refused it: `error: FLAG...` then `hint: ...`, and
names its environment variable only when the value came from it.

Issue 34, point 9: a value click refused read `Usage: ...` / `Try ...` / `Error: Invalid
value for '--timeout' (env var: 'DRIFTCTL_TIMEOUT'): ...`, naming the variable even when
the flag was typed, while one driftctl refused (`--window`) read `error: ...` / `hint: ...`.
Nothing here needs a cluster: every value is refused before Git or a cluster is read.
"""

from __future__ import annotations

import os

import pytest

from tests.support.clirun import Ran, run_driftctl

NOWHERE = ["--repo", "/nonexistent/repo", "--kubeconfig", "/nonexistent/kubeconfig"]


@pytest.fixture
def driftctl(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> object:
    for name in [name for name in os.environ if name.startswith("DRIFTCTL_")]:
        monkeypatch.delenv(name)
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)

    def run(*args: str, **env: str) -> Ran:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return run_driftctl(args, capsys, monkeypatch)

    return run


@pytest.mark.parametrize(
    ("args", "error"),
    [
        pytest.param(
            ["unlock", "--timeout", "5 minutes"],
            "error: --timeout: '5 minutes' is not a duration: write 500ms, 30s, 5m, 1h30m, 2d "
            "or plain seconds",
            id="click-duration",
        ),
        pytest.param(
            ["plan", *NOWHERE, "--concurrency", "0"],
            "error: --concurrency: 0 is not in the range 1<=x<=64",
            id="click-range",
        ),
        pytest.param(
            ["validate", "-o", "xml"],
            "error: --output: 'xml' is not one of 'text', 'json', 'yaml'",
            id="click-choice",
        ),
        pytest.param(
            ["apply", *NOWHERE, "--prune-policy", "keep"],
            "error: --prune-policy: 'keep' is not one of 'delete', 'orphan', 'confirm', "
            "'quarantine'",
            id="click-prune-policy",
        ),
        pytest.param(
            ["plan", *NOWHERE, "--window", "bad"],
            "error: --window: window 'bad' must start with deny or allow",
            id="driftctl-window",
        ),
        pytest.param(
            ["plan", *NOWHERE, "--max-prune", "x"],
            "error: --max-prune must be a count N or a percentage P%, not 'x'",
            id="driftctl-max-prune",
        ),
    ],
)
def test_a_refused_value_says_error_then_hint_whoever_refused_it(  # type: ignore[no-untyped-def]
    driftctl, args: list[str], error: str
) -> None:
    ran = driftctl(*args)

    assert ran.code == 2
    lines = ran.err.splitlines()
    assert lines[0] == error
    assert len(lines) == 2, ran.err
    assert lines[1].startswith("hint: ")


@pytest.mark.parametrize(
    ("args", "variable"),
    [
        pytest.param(["unlock", "--timeout", "zz"], "DRIFTCTL_TIMEOUT", id="click"),
        pytest.param(
            ["plan", *NOWHERE, "--max-prune", "lots"], "DRIFTCTL_MAX_PRUNE", id="driftctl"
        ),
    ],
)
def test_a_value_typed_on_the_command_line_is_refused_without_naming_a_variable(  # type: ignore[no-untyped-def]
    driftctl, args: list[str], variable: str
) -> None:
    ran = driftctl(*args)

    assert ran.code == 2
    assert variable not in ran.err
    assert "env var" not in ran.err


@pytest.mark.parametrize(
    ("args", "env", "error"),
    [
        pytest.param(
            ["unlock"],
            {"DRIFTCTL_TIMEOUT": "zz"},
            "error: --timeout (from DRIFTCTL_TIMEOUT): 'zz' is not a duration: write 500ms, "
            "30s, 5m, 1h30m, 2d or plain seconds",
            id="click-duration",
        ),
        pytest.param(
            ["plan", *NOWHERE],
            {"DRIFTCTL_CONCURRENCY": "0"},
            "error: --concurrency (from DRIFTCTL_CONCURRENCY): 0 is not in the range 1<=x<=64",
            id="click-range",
        ),
        pytest.param(
            ["apply", *NOWHERE, "--shard-count", "2"],
            {"JOB_COMPLETION_INDEX": "first"},
            "error: --shard-index (from JOB_COMPLETION_INDEX): 'first' is not a valid integer "
            "range",
            id="click-second-variable",
        ),
        pytest.param(
            ["plan", *NOWHERE],
            {"DRIFTCTL_WINDOW": "bad"},
            "error: --window (from DRIFTCTL_WINDOW): window 'bad' must start with deny or allow",
            id="driftctl-window",
        ),
        pytest.param(
            ["plan", *NOWHERE],
            {"DRIFTCTL_MAX_PRUNE": "lots"},
            "error: --max-prune (from DRIFTCTL_MAX_PRUNE): must be a count N or a percentage "
            "P%, not 'lots'",
            id="driftctl-max-prune",
        ),
    ],
)
def test_a_value_from_its_variable_is_refused_naming_the_variable(  # type: ignore[no-untyped-def]
    driftctl, args: list[str], env: dict[str, str], error: str
) -> None:
    ran = driftctl(*args, **env)

    assert ran.code == 2
    assert ran.err.splitlines()[0] == error
    assert ran.err.splitlines()[1].startswith("hint: ")


def test_an_unknown_flag_says_error_then_the_flags_it_may_have_meant(driftctl) -> None:  # type: ignore[no-untyped-def]
    ran = driftctl("plan", "--max-prun", "3")

    assert ran.code == 2
    assert ran.err.splitlines() == [
        "error: no such option: --max-prun",
        "hint: did you mean --max-prune, --prune or --no-prune? `driftctl plan --help` lists "
        "its flags",
    ]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        pytest.param(
            ["completion"],
            "error: missing argument '{bash|zsh|fish}'. Choose from: bash, zsh, fish",
            id="missing-argument",
        ),
        pytest.param(
            ["completion", "--timeout"], "error: no such option: --timeout", id="not-its-flag"
        ),
        pytest.param(
            ["unlock", "--timeout"],
            "error: option '--timeout' requires an argument",
            id="flag-without-its-value",
        ),
    ],
)
def test_a_command_used_wrongly_says_error_then_whose_help_says_how(  # type: ignore[no-untyped-def]
    driftctl, args: list[str], error: str
) -> None:
    ran = driftctl(*args)

    assert ran.code == 2
    assert ran.err.splitlines()[0] == error
    assert ran.err.splitlines()[1].startswith("hint: ")
    assert f"`driftctl {args[0]} --help`" in ran.err.splitlines()[1]
