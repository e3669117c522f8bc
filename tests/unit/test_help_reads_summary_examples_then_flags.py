"""`--help` as kubectl's reads: the commands by task, and each command's summary, its
examples, its flags, then the rest of what it does and where its page is.

Issue 34, point 9: `driftctl --help` listed 14 commands alphabetically, and `apply --help`
opened with 40 lines of prose before its first flag, its examples last. Now the root lists
the commands in the sections of one table (driftctl.cli.SECTIONS: a new command must be
placed there, and in the same section of the commands' index page and of the README), and
a person on a 24-row terminal sees a command's first flag without scrolling. No word of a
command's description is lost: all of it is in its help, after the flags, and on its page.
"""

from __future__ import annotations

import math
import re

import click
import pytest
from click.testing import CliRunner

from driftctl.cli import SECTIONS, cli
from driftctl.cli.global_flags import placed
from driftctl.cli.layout import summary
from tests.support.paths import ROOT

COMMANDS = sorted(cli.commands)
HELPS = [*((name,) for name in COMMANDS), ("config", "view")]
WIDTHS = (60, 80, 100)
SCREEN_ROWS = 24  # a terminal's rows; the first is the command typed
PAGE = ["More", "on", "its", "page:"]


def help_at(words: tuple[str, ...], width: int = 100) -> str:
    shown = CliRunner().invoke(cli, [*words, "--help"], prog_name="driftctl", terminal_width=width)
    assert shown.exit_code == 0, shown.output
    return shown.output


def help_text(words: tuple[str, ...]) -> str:
    command: click.Command = cli
    for word in words:
        assert isinstance(command, click.Group)
        command = command.commands[word]
    return command.help or ""


def sections_shown(shown: str) -> list[tuple[str, tuple[str, ...]]]:
    """The headings of a help and the first word of each row under them."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for line in shown.splitlines():
        if re.fullmatch(r"\S.*:", line):
            found.append((line[:-1], ()))
        elif found and re.match(r"  \S", line):
            title, names = found[-1]
            found[-1] = (title, (*names, line.split()[0]))
    return found


# ---- driftctl --help: the commands by task -----------------------------------------------


def test_the_root_help_lists_the_commands_by_task_everyday_ones_first() -> None:
    shown = sections_shown(help_at(()))

    assert shown[: len(SECTIONS)] == list(SECTIONS)
    assert SECTIONS[0] == ("Basic commands", ("plan", "apply", "status"))


def test_every_command_is_placed_in_exactly_one_section_of_the_root_help() -> None:
    placed_names = [name for _, names in SECTIONS for name in names]

    unplaced = sorted(set(COMMANDS) - set(placed_names))
    assert unplaced == [], (
        f"driftctl {', '.join(unplaced)}: place it in driftctl.cli.SECTIONS (the section of "
        "its task), in docs/reference/commands/index.md and in README.md's Commands"
    )
    assert sorted(placed_names) == COMMANDS, "a section names a command twice, or none"


def test_a_command_no_section_names_is_still_listed_under_the_last() -> None:
    sections = (("Basic", ("plan", "gone")), ("Other", ("version",)))

    assert placed(sections, ["plan", "version", "doctor"]) == (
        ("Basic", ("plan",)),
        ("Other", ("version", "doctor")),
    )


# ---- a command's help: summary, examples, flags, the rest --------------------------------


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("words", HELPS, ids=" ".join)
def test_a_help_opens_with_its_summary_in_two_lines_at_most(
    words: tuple[str, ...], width: int
) -> None:
    lines = help_at(words, width).splitlines()
    opening = lines[2 : lines.index("", 2)]

    assert lines[0].startswith(f"Usage: driftctl {' '.join(words)} ")
    assert 1 <= len(opening) <= 2, opening
    assert " ".join(" ".join(opening).split()) == summary(help_text(words))


@pytest.mark.parametrize("words", HELPS, ids=" ".join)
def test_a_help_shows_its_examples_then_its_flags_then_the_rest(words: tuple[str, ...]) -> None:
    headings = [title for title, _ in sections_shown(help_at(words))]

    assert headings[0] == "Examples"
    assert headings[1].endswith("lags")  # the command's own `Flags`, or a group's
    assert "Global flags" in headings
    assert headings[-1] == "Description"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("words", HELPS, ids=" ".join)
def test_the_first_flag_shows_without_scrolling(words: tuple[str, ...], width: int) -> None:
    lines = help_at(words, width).splitlines()
    first_flag = next(i for i, line in enumerate(lines) if line.endswith("lags:")) + 1
    rows = sum(max(1, math.ceil(len(line) / width)) for line in lines[: first_flag + 1])

    assert rows <= SCREEN_ROWS - 1, f"the first flag is on row {rows + 1} at {width} columns"


@pytest.mark.parametrize("words", HELPS, ids=" ".join)
def test_every_word_of_a_description_is_in_its_help_the_rest_after_the_flags(
    words: tuple[str, ...],
) -> None:
    """Its page shows this help exactly (tests/unit/test_command_pages_match_help.py)."""
    shown = help_at(words)
    opening = shown.split("\nExamples:\n", 1)[0].split("\n", 1)[1]
    rest = shown.split("\nDescription:\n", 1)[1]
    page = f"docs/reference/commands/{words[0]}.md"

    assert opening.split() + rest.split() == [*help_text(words).split(), *PAGE, page]
    assert (ROOT / page).is_file()


# ---- the lists of commands in the docs follow the same sections --------------------------


def test_the_commands_index_lists_the_commands_in_the_helps_sections() -> None:
    index = (ROOT / "docs" / "reference" / "commands" / "index.md").read_text()
    found: list[tuple[str, tuple[str, ...]]] = []
    for line in index.splitlines():
        if line.startswith("## "):
            found.append((line[3:], ()))
        elif found and line.startswith("| [`driftctl "):
            title, names = found[-1]
            found[-1] = (title, (*names, re.findall(r"\]\(([a-z-]+)\.md\)", line)[0]))

    assert [each for each in found if each[1]] == list(SECTIONS)


def test_the_readme_lists_the_commands_in_the_helps_sections() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    found: list[tuple[str, tuple[str, ...]]] = []
    for row in [line for line in table.splitlines() if line.startswith("|")]:
        section, command = (cell.strip() for cell in row.strip("|").split("|")[:2])
        if section.startswith("**"):
            found.append((section.strip("*"), ()))
        name = re.match(r"`driftctl ([a-z-]+)", command)
        if found and name:
            found[-1] = (found[-1][0], (*found[-1][1], name[1]))

    assert found == list(SECTIONS)
