"""`--config FILE` (or DRIFTCTL_CONFIG): a command's settings from one YAML file.

The file is read before any other flag (an eager option), checked whole against every
setting any command takes (driftctl.settings.file: `file:line:column: reason`, exit 2,
before Git or the cluster is read), and what the running command takes becomes the
defaults of its options (click's default map), so that a flag or a variable still wins:
flag > variable > file > default. What the file set, and the keys the command does not
take, are kept on the context for `driftctl config view`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from driftctl.cli.options import GLOBAL_SECTION, Flag
from driftctl.errors import InvalidSettings, Problem, UsageError
from driftctl.settings.declare import ENV_PREFIX, Setting
from driftctl.settings.kinds import Switch, Whole
from driftctl.settings.requests import GROUPS

if TYPE_CHECKING:
    from driftctl.settings.file import ConfigFile, Entry

READ_KEY = "driftctl.config"  # the ConfigFile read, on the root context's meta
MAX_BYTES = 1024 * 1024


def config_option() -> click.Option:
    """The `--config` option of a command that takes settings."""
    return Flag(
        ["--config"],
        type=click.Path(dir_okay=False, path_type=Path),
        is_eager=True,
        expose_value=False,
        callback=_read,
        envvar=f"{ENV_PREFIX}CONFIG",
        show_envvar=True,
        section=GLOBAL_SECTION,
        metavar="FILE",
        help="Read settings from this YAML file, keys named as the flags (max-prune: 25%); a "
        "flag or a variable wins over it.",
    )


def _read(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    if value is None or ctx.resilient_parsing:
        return
    name = ctx.info_name or ""
    found = load_config(value, name)
    ctx.default_map = {**(ctx.default_map or {}), **defaults_of(found)}
    ctx.find_root().meta[READ_KEY] = found


def load_config(path: Path, command: str) -> ConfigFile:
    """The file's settings for `command`; InvalidSettings naming each problem."""
    from driftctl.core.source.documents import Document, load_file  # YAML: only when asked
    from driftctl.settings.file import read_config

    file = str(path)
    try:
        data = path.read_bytes()[: MAX_BYTES + 1]
    except OSError as error:
        raise UsageError(
            f"--config {file}: cannot be read: {error.strerror or error}",
            hint="name a YAML file of settings, keys named as the flags",
        ) from None
    loaded = load_file(file, data)
    if loaded.problems:
        raise InvalidSettings(loaded.problems, file=file)
    if len(loaded.documents) > 1:
        second = loaded.documents[1]
        problem = Problem(file, second.line, second.column, "a --config file holds one document")
        raise InvalidSettings([problem], file=file)
    document = loaded.documents[0] if loaded.documents else Document(file, 1, 1, {}, {})
    found = read_config(file, document.body, document.position, command, known_settings())
    if isinstance(found, list):
        raise InvalidSettings(found, file=file)
    return found


def known_settings() -> dict[str, list[Setting]]:
    """Every setting a file may name, by key."""
    from driftctl.settings.file import catalogue

    return catalogue(GROUPS)


def defaults_of(found: ConfigFile) -> dict[str, Any]:
    """What the file sets, as the defaults of the command's options (as click takes them)."""
    return {name: click_value(entry) for name, entry in found.taken.items()}


def click_value(entry: Entry) -> Any:
    """A value read from the file, as its option takes it from click's default map."""
    setting, value = entry.setting, entry.value
    if value is None or isinstance(setting.kind, Switch | Whole):
        return value
    if setting.many:
        return [setting.kind.text(each) for each in value]
    return setting.kind.text(value)
