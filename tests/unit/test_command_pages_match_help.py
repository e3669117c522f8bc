"""Each command's page of the documentation site says what the command's `--help` says.

The site is built as `make docs-build` builds it (MkDocs, strict), once for the module.
Then, for every command the click group has: its page exists, it shows `driftctl NAME
--help` exactly as click prints it at the site's width, and its options table has a row for
each option, every spelling of it and nothing else. The expected side comes from click
directly, not from docsgen, so a generator that dropped a flag or a command would fail here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from mkdocs.exceptions import PluginError

from docsgen import hooks
from docsgen.commands import HELP_WIDTH
from driftctl.cli import cli
from tests.support.paths import ROOT

COMMANDS = sorted(cli.commands)


class Page(HTMLParser):
    """The code blocks of a built page, and the first column of the table after #options."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.flag_cells: list[list[str]] = []
        self._in_pre = self._in_code = self._options = self._first_cell = False
        self._cell_index = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre":
            self._in_pre = True
            self.blocks.append("")
        elif tag == "h2":
            self._options = dict(attrs).get("id") == "options"
        elif tag == "tr" and self._options:
            self._cell_index = 0
        elif tag == "td" and self._options:
            self._cell_index += 1
            self._first_cell = self._cell_index == 1
            if self._first_cell:
                self.flag_cells.append([])
        elif tag == "code":
            self._in_code = True
            if self._first_cell and not self._in_pre:
                self.flag_cells[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False
        elif tag == "code":
            self._in_code = False
        elif tag == "td":
            self._first_cell = False
        elif tag == "table":
            self._options = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.blocks[-1] += data
        elif self._first_cell and self._in_code:
            self.flag_cells[-1][-1] += data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly from this checkout."""
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return out


def help_of(name: str) -> str:
    result = CliRunner().invoke(
        cli, [name, "--help"], prog_name="driftctl", terminal_width=HELP_WIDTH
    )
    assert result.exit_code == 0, result.output
    return result.output


def option_spellings(name: str) -> list[list[str]]:
    root = click.Context(cli, info_name="driftctl", **cli.context_settings)
    command = cli.commands[name]
    context = click.Context(command, info_name=name, parent=root)
    return [
        [*param.opts, *param.secondary_opts]
        for param in command.get_params(context)
        if isinstance(param, click.Option)
    ]


def page_of(site: Path, name: str) -> Page:
    return Page((site / "reference" / "commands" / name / "index.html").read_text())


def test_every_command_has_a_page_and_no_page_is_of_another(site: Path) -> None:
    pages = sorted(p.name for p in (site / "reference" / "commands").iterdir() if p.is_dir())

    assert pages == COMMANDS


@pytest.mark.parametrize("name", COMMANDS)
def test_the_page_shows_the_help_exactly(site: Path, name: str) -> None:
    expected = help_of(name).rstrip("\n")

    assert expected in [block.rstrip("\n") for block in page_of(site, name).blocks]


@pytest.mark.parametrize("name", COMMANDS)
def test_the_options_table_has_each_option_once_with_every_spelling(site: Path, name: str) -> None:
    assert page_of(site, name).flag_cells == option_spellings(name)


def test_a_command_without_its_page_stops_the_build() -> None:
    pages = [f"{hooks.COMMAND_PAGES}{name}.md" for name in COMMANDS if name != "plan"]
    pages.append(f"{hooks.COMMAND_PAGES}gone.md")

    assert hooks.command_pages_missing(pages) == [
        f"driftctl plan has no page {hooks.COMMAND_PAGES}plan.md",
        f"{hooks.COMMAND_PAGES}gone.md is the page of no command",
    ]


def test_a_flag_the_command_lacks_stops_the_build() -> None:
    with pytest.raises(PluginError, match="driftctl apply has no option --dry-run"):
        hooks.expand("<!-- generated: options apply --prune --dry-run -->")
