"""Every flag that takes a duration reads the one grammar (driftctl.durations), and its
help says the forms it takes.

Issue 34, point 4 (built by the settings rework; its grammar is held by
test_durations_are_read_and_written_in_one_grammar.py): `--notify-repeat 1d` was "not a
duration", `--quarantine-grace 300` was refused, `--wait-timeout 5m` was "not a valid
float range" while `--timeout 5m` worked, and the help said "Seconds" beside DURATION.
Here the command line itself parses them, and no value is read from Git or a cluster.
"""

from __future__ import annotations

import datetime

import click
import pytest

from driftctl import durations
from driftctl.cli import cli
from driftctl.cli.options import Duration, build_request
from driftctl.settings import ApplyRequest


def duration_flags() -> list[tuple[str, click.Option]]:
    found = []
    for name, command in sorted(cli.commands.items()):
        for param in command.params:
            if isinstance(param, click.Option) and isinstance(param.type, Duration):
                found.append((name, param))
    return found


def test_the_flags_the_issue_named_take_the_forms_they_refused() -> None:
    given = ["--notify-repeat", "1d", "--quarantine-grace", "300", "--wait-timeout", "5m"]
    # Under the root's context, as the CLI parses: click keeps a command's help option from
    # the first context made for it, and the help pages' test reads `-h, --help` there.
    with click.Context(cli, info_name="driftctl", **cli.context_settings) as root:
        context = cli.commands["apply"].make_context("apply", ["--repo", "r", *given], parent=root)

    request = build_request(ApplyRequest, "apply", context.params)

    assert request.notify.repeat == 86_400
    assert request.policy.quarantine_grace == datetime.timedelta(seconds=300)
    assert request.wait.timeout == 300


@pytest.mark.parametrize("text", ["1d", "1h30m", "5m", "30s", "300", "0.5"])
@pytest.mark.parametrize(
    ("command", "flag"),
    [(name, param) for name, param in duration_flags()],
    ids=[f"{name} {param.opts[0]}" for name, param in duration_flags()],
)
def test_every_duration_flag_reads_each_form_or_says_its_bound(
    command: str, flag: click.Option, text: str
) -> None:
    read = seconds_read(flag, text)

    if isinstance(read, str):  # a bound of its own, never "not a duration"
        assert "is not a duration" not in read
        assert "least" in read or "most" in read, read
    else:
        assert read == durations.seconds(text)


def seconds_read(flag: click.Option, text: str) -> float | str:
    """The seconds the flag reads from `text`, or why it refuses them."""
    try:
        read = flag.type.convert(text, flag, None)
    except click.BadParameter as refused:
        return refused.message
    return float(read.total_seconds() if isinstance(read, datetime.timedelta) else read)


@pytest.mark.parametrize(
    ("command", "flag"),
    [(name, param) for name, param in duration_flags()],
    ids=[f"{name} {param.opts[0]}" for name, param in duration_flags()],
)
def test_every_duration_flags_help_says_the_forms_it_takes(
    command: str, flag: click.Option
) -> None:
    assert f"({durations.FORMS})" in (flag.help or "")
    assert "Seconds" not in (flag.help or "")
