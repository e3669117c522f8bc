"""The MkDocs hook (mkdocs.yml `hooks:`) that puts the generated parts into the pages.

A page asks for a part with a line of its own, `<!-- generated: KIND ARGS -->`:

    command NAME                  the reference of `driftctl NAME` (docsgen.commands.page)
    options NAME [FLAG...]        NAME's options table, or only those flags, in that order
    environment                   every variable a flag reads
    settings                      every key of a --config file (docsgen.settings)
    exit-codes                    driftctl.errors.ExitCode with meanings
    conventions                   labels, annotations, Leases, other names
    crd-names | crd-fields | crd-columns | crd-yaml   the CRD as `driftctl crd` prints it
    pushed-metrics                what `apply --pushgateway` pushes

An unknown kind or argument stops the build, and so does a command without its page
(reference/commands/NAME.md) or a page for a command that is gone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mkdocs.exceptions import PluginError

from docsgen import commands, reference, settings

MARKER = re.compile(r"^<!-- generated: (?P<kind>[a-z-]+)(?P<args>(?: [^ >]+)*) -->$", re.M)
COMMAND_PAGES = "reference/commands/"

_NO_ARGS: dict[str, Callable[[], str]] = {
    "environment": commands.variables_table,
    "settings": settings.keys_table,
    "exit-codes": reference.exit_codes_table,
    "conventions": reference.conventions_tables,
    "crd-names": reference.crd_names_table,
    "crd-fields": reference.crd_fields_table,
    "crd-columns": reference.printer_columns_table,
    "crd-yaml": reference.crd_page_yaml,
    "pushed-metrics": reference.pushed_metrics_table,
}


def expand(markdown: str, where: str = "page") -> str:
    """`markdown` with every marker replaced by its generated part."""

    def part(found: re.Match[str]) -> str:
        kind, args = found["kind"], found["args"].split()
        try:
            return _part(kind, args)
        except (KeyError, ValueError, reference.Undocumented) as error:
            raise PluginError(f"{where}: {found[0]}: {error}") from error

    return MARKER.sub(part, markdown)


def _part(kind: str, args: list[str]) -> str:
    if kind == "command" and len(args) == 1:
        return commands.page(args[0])
    if kind == "options" and args:
        return commands.options_table(args[0], args[1:])
    if kind in _NO_ARGS and not args:
        return _NO_ARGS[kind]()
    raise ValueError(f"unknown marker {kind!r} with {args!r}")


def command_pages_missing(paths: list[str]) -> list[str]:
    """What is wrong with the set of command pages among the site's `paths`, if anything."""
    pages = {
        path.removeprefix(COMMAND_PAGES).removesuffix(".md")
        for path in paths
        if path.startswith(COMMAND_PAGES) and path != COMMAND_PAGES + "index.md"
    }
    wanted = set(commands.names())
    missing = [f"driftctl {name} has no page {COMMAND_PAGES}{name}.md" for name in wanted - pages]
    extra = [f"{COMMAND_PAGES}{name}.md is the page of no command" for name in pages - wanted]
    return sorted(missing) + sorted(extra)


def on_files(files: Any, config: Any) -> Any:
    problems = command_pages_missing([each.src_uri for each in files.documentation_pages()])
    if problems:
        raise PluginError("; ".join(problems))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    where: str = page.file.src_uri
    name = where.removeprefix(COMMAND_PAGES).removesuffix(".md")
    own = f"<!-- generated: command {name} -->"
    if where.startswith(COMMAND_PAGES) and name in commands.names() and own not in markdown:
        raise PluginError(f"{where} lacks its generated reference: {own}")
    return expand(markdown, where)
