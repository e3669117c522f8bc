"""`--help` wraps between words only: never inside a word, a path, a flag or a default.

Issue 34, point 5: click wraps with textwrap's break_long_words and break_on_hyphens, so
below 80 columns a default without spaces was cut mid-word (`error,inv` / `alid,...`) and
`install --help` printed `docs/how-to/private- repositories.md`. Whatever the terminal's
width, every help says the same words as it does on a terminal too wide to wrap anything:
only where its lines break may change; and a default is never parted, even at its spaces
(`install --schedule`'s `*/5 * * * *`).
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from driftctl.cli import cli

WIDTHS = (60, 72, 80, 88, 100, 120)  # 88: the docs' pages show --help at that width
UNWRAPPED = 10_000
HELPS = [(), *((name,) for name in sorted(cli.commands)), ("config", "view")]


def help_at(words: tuple[str, ...], width: int) -> str:
    shown = CliRunner().invoke(cli, [*words, "--help"], prog_name="driftctl", terminal_width=width)
    assert shown.exit_code == 0, shown.output
    return shown.output


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("words", HELPS, ids=lambda words: " ".join(words) or "driftctl")
def test_help_wraps_between_words_only(words: tuple[str, ...], width: int) -> None:
    wide = help_at(words, UNWRAPPED).split()
    narrow = help_at(words, width).split()

    cut = sorted(set(narrow) - set(wide))
    assert cut == [], f"cut at {width} columns"
    assert narrow == wide


@pytest.mark.parametrize("width", WIDTHS)
def test_a_path_in_a_description_is_never_cut_at_its_hyphens(width: int) -> None:
    assert "docs/how-to/private-repositories.md" in help_at(("install",), width)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("words", HELPS[1:], ids=" ".join)
def test_every_default_is_shown_whole_on_one_line(words: tuple[str, ...], width: int) -> None:
    """`error,invalid,rollout,...` (no spaces) and `*/5 * * * *` (spaces) alike."""
    shown = help_at(words, width)

    for default in defaults_of(words):
        assert f"{default}]" in shown or f"{default};" in shown, default


def defaults_of(words: tuple[str, ...]) -> list[str]:
    context = click.Context(cli, info_name="driftctl", **cli.context_settings)
    command: click.Command = cli
    for word in words:
        assert isinstance(command, click.Group)
        command = command.commands[word]
        context = click.Context(command, info_name=word, parent=context)
    extras = [p.get_help_extra(context) for p in command.params if isinstance(p, click.Option)]
    return [str(extra["default"]) for extra in extras if extra.get("default")]
