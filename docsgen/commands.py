"""The command reference, made from the click commands of `driftctl.cli.cli` as they are.

For each command: its usage, its description, a table of its options (flags, value,
environment variables, default, meaning) and its `--help` exactly as a terminal of
HELP_WIDTH columns shows it. Nothing about a flag is typed twice: a flag added, renamed or
removed in the code is added, renamed or removed on its page at the next build.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import click
from click.testing import CliRunner

from docsgen.markdown import code, fenced, plain, table
from driftctl.cli import cli

HELP_WIDTH = 88
PROGRAM = "driftctl"


def group() -> click.Group:
    """The command line itself, `driftctl`."""
    return cli


def names() -> list[str]:
    """Every command, as `driftctl --help` lists them."""
    root = _root_context()
    return list(group().list_commands(root))


def command(name: str) -> tuple[click.Command, click.Context]:
    """A command (`config view` for one of a family) and the context its help is made in
    (the group's settings inherited)."""
    context = _root_context()
    found: click.Command = group()
    for word in name.split():
        inner = found.get_command(context, word) if isinstance(found, click.Group) else None
        if inner is None:
            raise KeyError(f"driftctl has no command {name!r} (it has {', '.join(names())})")
        found = inner
        context = click.Context(found, info_name=word, parent=context, **found.context_settings)
    return found, context


def family(name: str) -> list[str]:
    """The commands of a family (`config view`), or none for a plain command."""
    found, context = command(name)
    if not isinstance(found, click.Group):
        return []
    return [f"{name} {each}" for each in found.list_commands(context)]


def _root_context() -> click.Context:
    cli = group()
    return click.Context(cli, info_name=PROGRAM, terminal_width=HELP_WIDTH, **cli.context_settings)


def help_text(name: str) -> str:
    """`driftctl NAME --help`, as printed on a terminal HELP_WIDTH columns wide."""
    result = CliRunner().invoke(
        group(), [*name.split(), "--help"], prog_name=PROGRAM, terminal_width=HELP_WIDTH
    )
    if result.exit_code != 0:
        raise RuntimeError(f"driftctl {name} --help exited {result.exit_code}: {result.output}")
    return result.output


@dataclass(frozen=True)
class OptionRow:
    """One option as its reference table shows it."""

    flags: tuple[str, ...]  # every spelling: -o, --output; --prune, --no-prune
    value: str  # the metavar (and range); empty for an on/off flag
    envvars: tuple[str, ...]
    default: str
    meaning: str

    def cells(self) -> list[str]:
        """Two cells: the flag's spellings and value; its meaning, variables and default."""
        flags = ", ".join(code(each) for each in self.flags)
        details = [plain(self.meaning)] if self.meaning else []
        if self.envvars:
            details.append("env " + ", ".join(code(each) for each in self.envvars))
        if self.default:
            details.append("default " + code(self.default))
        value = f" *{plain(self.value)}*" if self.value else ""
        return [flags + value, "<br>".join(details)]


HEADER = ("flag", "meaning")


def option_rows(name: str) -> list[OptionRow]:
    """The rows of every option of a command, in --help's order."""
    found, context = command(name)
    return [
        _row(param, context)
        for param in found.get_params(context)
        if isinstance(param, click.Option) and not param.hidden
    ]


def _row(option: click.Option, context: click.Context) -> OptionRow:
    extra = option.get_help_extra(context)
    value = "" if option.is_flag else option.make_metavar(context)
    if "range" in extra:
        value = f"{value} ({extra['range']})"
    default = "required" if extra.get("required") else str(extra.get("default", ""))
    return OptionRow(
        flags=(*option.opts, *option.secondary_opts),
        value=value,
        envvars=tuple(extra.get("envvars", ())),
        default=default,
        meaning=_one_line(option.help or ""),
    )


def options_table(name: str, flags: Sequence[str] = ()) -> str:
    """The options table of a command; with `flags`, only those options, in that order."""
    rows = option_rows(name)
    if flags:
        by_flag = {each: row for row in rows for each in row.flags}
        unknown = [each for each in flags if each not in by_flag]
        if unknown:
            raise KeyError(f"driftctl {name} has no option {', '.join(unknown)}")
        rows = [by_flag[each] for each in flags]
    return table(HEADER, [row.cells() for row in rows])


def usage(name: str) -> str:
    found, context = command(name)
    return " ".join([PROGRAM, name, *found.collect_usage_pieces(context)])


def description(name: str) -> str:
    """The command's help text, as Markdown paragraphs of plain text."""
    found, _ = command(name)
    text = inspect.cleandoc(found.help or "").split("\f", 1)[0]
    paragraphs = [each for each in text.split("\n\n") if each.strip()]
    return "\n\n".join(plain(_one_line(each)) for each in paragraphs)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def page(name: str) -> str:
    """The generated part of a command's page: usage, description, options, --help; a
    family's, then each of its commands' under a heading of its own."""
    help_block = fenced(help_text(name)).replace("\n", "\n    ")
    parts = [
        fenced(usage(name)),
        description(name),
        "## Options",
        options_table(name),
        f'??? info "The same, as `{PROGRAM} {name} --help` prints it"',
        "    " + help_block,
    ]
    for each in family(name):
        parts += [f"## {PROGRAM} {each}", page(each).replace("\n## Options", "\n### Options")]
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Variable:
    """An environment variable a flag reads, and where."""

    name: str
    flags: tuple[str, ...]
    commands: tuple[str, ...]


def variables() -> list[Variable]:
    """Every variable a flag of any command reads, sorted by name."""
    seen: dict[str, tuple[set[str], set[str]]] = {}
    for name in [each for top in names() for each in (top, *family(top))]:
        for row in option_rows(name):
            for variable in row.envvars:
                flags, commands = seen.setdefault(variable, (set(), set()))
                flags.add(" / ".join(row.flags))
                commands.add(name)
    return [
        Variable(variable, tuple(sorted(flags)), tuple(sorted(commands)))
        for variable, (flags, commands) in sorted(seen.items())
    ]


def variables_table() -> str:
    return table(
        ("variable", "flag", "commands"),
        [[code(each.name), _codes(each.flags), _commands(each.commands)] for each in variables()],
    )


def _codes(items: Iterable[str]) -> str:
    return ", ".join(code(each) for each in items)


def _commands(items: Iterable[str]) -> str:
    return ", ".join(f"[{each}](commands/{each.split()[0]}.md)" for each in items)
