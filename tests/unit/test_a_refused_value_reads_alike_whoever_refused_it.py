"""A value refused reads alike whoever refused it: `error: FLAG...` then `hint: ...`, and
names its environment variable only when the value came from it.

Issue 34, point 9: a value click refused read `Usage: ...` / `Try ...` / `Error: Invalid
value for '--timeout' (env var: 'DRIFTCTL_TIMEOUT'): ...`, naming the variable even when
the flag was typed, while one driftctl refused (`--window`) read `error: ...` / `hint: ...`.
Nothing here needs a cluster: every value is refused before Git or a cluster is read.
"""

from __future__ import annotations

import pytest

from tests.support.clirun import Ran, driftctl_alone

NOWHERE = ["--repo", "/nonexistent/repo", "--kubeconfig", "/nonexistent/kubeconfig"]


@pytest.fixture
def driftctl(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> object:
    return driftctl_alone(capsys, monkeypatch, "JOB_COMPLETION_INDEX")


def refused(ran: Ran) -> tuple[str, str]:
    """The two lines a refusal says, `error: ...` and `hint: ...` (exit 2, nothing else)."""
    assert ran.code == 2
    lines = ran.err.splitlines()
    assert len(lines) == 2, ran.err
    assert lines[1].startswith("hint: "), ran.err
    return lines[0], lines[1]


DURATION = "is not a duration: write 500ms, 30s, 5m, 1h30m, 2d or plain seconds"
PLAN = ["plan", *NOWHERE]


@pytest.mark.parametrize(
    ("args", "flag", "value", "variable", "typed", "from_variable"),
    [
        pytest.param(
            ["unlock"], "--timeout", "5 minutes", "DRIFTCTL_TIMEOUT",
            f"--timeout: '5 minutes' {DURATION}",
            f"--timeout (from DRIFTCTL_TIMEOUT): '5 minutes' {DURATION}",
            id="click-duration",
        ),
        pytest.param(
            PLAN, "--concurrency", "0", "DRIFTCTL_CONCURRENCY",
            "--concurrency: 0 is not in the range 1<=x<=64",
            "--concurrency (from DRIFTCTL_CONCURRENCY): 0 is not in the range 1<=x<=64",
            id="click-range",
        ),
        pytest.param(
            ["validate"], "-o", "xml", "DRIFTCTL_VALIDATE_OUTPUT",
            "--output: 'xml' is not one of 'text', 'json', 'yaml'",
            "--output (from DRIFTCTL_VALIDATE_OUTPUT): 'xml' is not one of 'text', 'json', 'yaml'",
            id="click-choice",
        ),
        pytest.param(
            ["apply", *NOWHERE, "--shard-count", "2"], "--shard-index", "first",
            "JOB_COMPLETION_INDEX",
            "--shard-index: 'first' is not a valid integer range",
            "--shard-index (from JOB_COMPLETION_INDEX): 'first' is not a valid integer range",
            id="click-a-second-variable",
        ),
        pytest.param(
            PLAN, "--window", "bad", "DRIFTCTL_WINDOW",
            "--window: window 'bad' must start with deny or allow",
            "--window (from DRIFTCTL_WINDOW): window 'bad' must start with deny or allow",
            id="driftctl-window",
        ),
        pytest.param(
            PLAN, "--max-prune", "lots", "DRIFTCTL_MAX_PRUNE",
            "--max-prune must be a count N or a percentage P%, not 'lots'",
            "--max-prune (from DRIFTCTL_MAX_PRUNE): must be a count N or a percentage P%, "
            "not 'lots'",
            id="driftctl-max-prune",
        ),
    ],
)  # fmt: skip
def test_a_refused_value_says_error_then_hint_naming_its_variable_only_if_it_came_from_it(  # type: ignore[no-untyped-def]
    driftctl, args: list[str], flag: str, value: str, variable: str, typed: str, from_variable: str
) -> None:
    said_typed = refused(driftctl(*args, flag, value))
    said_from_variable = refused(driftctl(*args, **{variable: value}))

    assert said_typed[0] == f"error: {typed}"
    assert variable not in " ".join(said_typed)
    assert said_from_variable[0] == f"error: {from_variable}"


def test_an_unknown_flag_says_error_then_the_flags_it_may_have_meant(driftctl) -> None:  # type: ignore[no-untyped-def]
    assert refused(driftctl("plan", "--max-prun", "3")) == (
        "error: no such option: --max-prun",
        "hint: did you mean --max-prune, --prune or --no-prune? `driftctl plan --help` lists "
        "its flags",
    )


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
    said, hint = refused(driftctl(*args))

    assert said == error
    assert f"`driftctl {args[0]} --help`" in hint
