"""`driftctl config view`: the settings a command would run with, and where each came from.

For one command (apply by default, as the CronJob runs it): each setting it takes, its
value, and its origin: its variable, the `--config` file (file:line), or the default; then
the file's keys the command does not take (with the commands that do). Flags are not
weighed here (this command has none of theirs): a flag given to the command itself wins
over everything shown. Reads the environment and the file; nothing else.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from driftctl.cli.command import Family, command
from driftctl.cli.config_file import load_config
from driftctl.cli.logs import as_format
from driftctl.settings.declare import Setting, taken_by
from driftctl.settings.file import ConfigFile
from driftctl.settings.requests import REQUESTS, groups_taken_by


@dataclass(frozen=True)
class Resolved:
    """One setting's value for a command, and where it came from."""

    name: str
    value: str
    origin: str


@click.group(
    cls=Family,
    examples=[
        "# What the CronJob's apply runs with, from its variables and its settings file:",
        "$ driftctl config view --config /etc/driftctl/settings.yaml",
    ],
)
def config() -> None:
    """Show the settings a command runs with: from its variables, a --config file, defaults.

    One file of settings (--config FILE, or DRIFTCTL_CONFIG) serves every command: keys are
    named as the flags are, and a flag or a variable wins over the file.
    """


@command(
    outputs=("text", "json", "yaml"),
    family="config",
    examples=[
        "# What the CronJob's apply runs with, from its variables and its settings file:",
        "$ driftctl config view --config /etc/driftctl/settings.yaml",
        "# The same file, as watch reads it:",
        "$ driftctl config view watch --config settings.yaml -o json",
    ],
)
@click.argument(
    "for_command", metavar="[COMMAND]", default="apply", type=click.Choice(sorted(REQUESTS))
)
@click.option(
    "--config",
    "file",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="DRIFTCTL_CONFIG",
    show_envvar=True,
    metavar="FILE",
    help="The settings file (keys named as the flags).",
)
def view(*, for_command: str, file: Path | None, output: str) -> None:
    """Show each setting COMMAND (default: apply) takes, its value and where it came from.

    Its variable (DRIFTCTL_<FLAG>), the --config file (file:line), or the default; then the
    file's keys COMMAND does not take, with the commands that take them. A key no command
    takes, or a value its setting refuses, is an error (exit 2), as when a command reads
    the file. Flags given to COMMAND itself win over all of these. Exit 0; 2 on a bad file.
    """
    found = load_config(file, for_command) if file is not None else None
    rows = resolved(for_command, os.environ, found)
    if output == "text":
        click.echo(_text(for_command, file, rows, found), nl=False)
    else:
        document = _document(for_command, file, rows, found)
        click.echo(as_format(json.dumps(document, indent=2) + "\n", output), nl=False)


config.add_command(view)


def resolved(command: str, environ: Mapping[str, str], found: ConfigFile | None) -> list[Resolved]:
    """Every setting `command` takes, as the command would resolve it (flags aside)."""
    rows = []
    for group in groups_taken_by(command):
        for each in taken_by(group, command):
            if not each.argument:
                rows.append(_one(each, environ, found))
    return rows


def _one(setting: Setting, environ: Mapping[str, str], found: ConfigFile | None) -> Resolved:
    for variable in (setting.variable, *setting.env):
        if variable in environ:
            value = setting.read(_split(setting, environ[variable]), name=variable)
            return Resolved(setting.name, _shown(setting.text(value)), variable)
    entry = found.taken.get(setting.parameter) if found is not None else None
    if entry is not None and found is not None:
        where = f"{found.file}:{entry.line}"
        return Resolved(setting.name, _shown(setting.text(entry.value)), where)
    default = setting.text(setting.default)
    return Resolved(setting.name, _shown(default), "default")


def _split(setting: Setting, text: str) -> Any:
    """A variable's text as the command line hands it over (a repeated one split)."""
    if not setting.many:
        return text
    return [part.strip() for part in text.split(setting.env_splitter) if part.strip()]


def _shown(value: str) -> str:
    """A value as shown: a URL's password masked."""
    try:
        parts = urllib.parse.urlsplit(value)
        secret = parts.password
    except ValueError:
        return value
    return value.replace(f":{secret}@", ":****@") if secret else value


def _text(command: str, file: Path | None, rows: list[Resolved], found: ConfigFile | None) -> str:
    source = f" (--config {file})" if file is not None else ""
    table = [("SETTING", "FROM", "VALUE"), *((r.name, r.origin, r.value or "-") for r in rows)]
    name_width = max(len(name) for name, _, _ in table)
    from_width = max(len(origin) for _, origin, _ in table)
    lines = [f"Settings of `driftctl {command}`{source}, flags aside:"]
    lines += [
        f"{name.ljust(name_width)}  {origin.ljust(from_width)}  {value}".rstrip()
        for name, origin, value in table
    ]
    for key, line, _, commands in found.unused if found is not None else ():
        lines.append(f"unused by {command}: {key} ({file}:{line}; taken by {', '.join(commands)})")
    return "\n".join(lines) + "\n"


def _document(
    command: str, file: Path | None, rows: list[Resolved], found: ConfigFile | None
) -> dict[str, Any]:
    unused = [
        {"key": key, "line": line, "column": column, "takenBy": list(commands)}
        for key, line, column, commands in (found.unused if found is not None else ())
    ]
    settings = [{"name": row.name, "value": row.value, "from": row.origin} for row in rows]
    return {
        "command": command,
        "config": None if file is None else str(file),
        "settings": settings,
        "unused": unused,
    }
