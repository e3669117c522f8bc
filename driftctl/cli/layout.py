"""How `--help` is laid out: words kept whole, and a command's help in kubectl's order.

- `Formatter`: click's help formatter, wrapping between words only. click wraps with
  textwrap's defaults (break_long_words, break_on_hyphens), which cut a default without
  spaces (`error,inv` / `alid,...`) and a path at its hyphens (`private- repositories.md`).
  Here, when the column beside the flags is narrower than NARROWEST or one of its words
  is wider than it, each description goes under its flag instead (as kubectl's do); a
  word wider than the whole line runs past the margin, whole. A default is one word
  (`kept_whole`: the schedule's `*/5 * * * *` is never parted).
- `Context`: the context every driftctl command makes its help in (with `Formatter`).
- A command's help text is its summary (the first paragraph: shown right under its usage,
  then its examples, its flags) and its details (the rest, shown after the flags, with
  the command's page): `summary`, `details`, `page_of`.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Iterable, Sequence

import click

KEPT = "\ue000"  # a space no line breaks at (inside a default), written as a space
STACKED_INDENT = 4  # how far a description under its flag is indented, past the flag
NARROWEST = 36  # a column of descriptions narrower than this is no column: each goes under
COMMAND_PAGES = "docs/reference/commands"


def wrap(text: str, width: int, first: str = "", rest: str = "", paragraphs: bool = False) -> str:
    """`text` filled to `width`, breaking between words only; `first` and `rest` indent the
    first and the following lines. With `paragraphs`, as click's help text: blank lines part
    paragraphs, a paragraph keeps its own indent, one opened by a `\\b` line is kept as is."""
    if not paragraphs:
        return _wrapper(width, first, rest).fill(text.expandtabs()).replace(KEPT, " ")
    filled = (_paragraph(lines, width, first, rest) for lines in _paragraphs(text.expandtabs()))
    return "\n\n".join(filled).replace(KEPT, " ")


def kept_whole(text: str) -> str:
    """`text` as one word: `wrap` breaks no line inside it (a default such as `*/5 * * * *`)."""
    return text.replace(" ", KEPT)


def _wrapper(width: int, first: str, rest: str) -> textwrap.TextWrapper:
    return textwrap.TextWrapper(
        width,
        initial_indent=first,
        subsequent_indent=rest,
        replace_whitespace=False,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _paragraphs(text: str) -> list[list[str]]:
    found: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            found[-1].append(line)
        elif found[-1]:
            found.append([])
    return [each for each in found if each]


def _paragraph(lines: list[str], width: int, first: str, rest: str) -> str:
    own = " " * (len(lines[0]) - len(lines[0].lstrip()))
    if lines[0].strip() == "\b":  # as written, each line indented as the paragraph is
        return "\n".join(f"{rest if i else first}{own}{line}" for i, line in enumerate(lines[1:]))
    joined = " ".join(line.strip() for line in lines)
    return _wrapper(width, first + own, rest + own).fill(joined)


class Formatter(click.HelpFormatter):
    """click's help formatter, wrapping between words only (module docstring)."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        prefix = "Usage: " if prefix is None else prefix
        start = f"{prefix:>{self.current_indent}}{prog}"
        if not args:
            self.write(f"{start}\n")
            return
        self.write(wrap(args, self.width, f"{start} ", " " * (len(start) + 1)) + "\n")

    def write_text(self, text: str) -> None:
        indent = " " * self.current_indent
        self.write(wrap(text, self.width, indent, indent, paragraphs=True) + "\n")

    def write_dl(
        self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        rows = [(term, text) for term, text in rows]
        first_col = min(max((len(term) for term, _ in rows), default=0), col_max) + col_spacing
        column = max(self.width - first_col - 2, 10)
        stacked = column < NARROWEST or any(
            len(word) > column for _, text in rows for word in text.split()
        )
        for term, text in rows:
            self.write(f"{'':>{self.current_indent}}{term}")
            if not text:
                self.write("\n")
            elif stacked:
                under = " " * (self.current_indent + STACKED_INDENT)
                self.write("\n" + wrap(text, self.width, under, under, paragraphs=True) + "\n")
            else:
                self._beside(term, text, first_col, column)

    def _beside(self, term: str, text: str, first_col: int, column: int) -> None:
        """A description in the column beside its term (under it, when the term is wider)."""
        if len(term) <= first_col - 2:
            self.write(" " * (first_col - len(term)))
        else:
            self.write("\n" + " " * (first_col + self.current_indent))
        lines = wrap(text, column, paragraphs=True).splitlines() or [""]
        margin = " " * (first_col + self.current_indent)
        self.write("\n".join([lines[0], *(margin + line if line else "" for line in lines[1:])]))
        self.write("\n")


class Context(click.Context):
    """The context of a driftctl command: its help is made with `Formatter`."""

    formatter_class = Formatter


def summary(help_text: str | None) -> str:
    """The first paragraph of a command's help, on one line."""
    return " ".join(_cleaned(help_text).split("\n\n", 1)[0].split())


def details(help_text: str | None) -> str:
    """What a command's help says after its summary (paragraphs as written)."""
    parts = _cleaned(help_text).split("\n\n", 1)
    return parts[1].strip() if len(parts) > 1 else ""


def _cleaned(help_text: str | None) -> str:
    return inspect.cleandoc(help_text or "").split("\f", 1)[0].strip()


def page_of(command_path: str) -> str:
    """The documentation page of a command (`driftctl config view`: config's)."""
    words = command_path.split()
    return f"{COMMAND_PAGES}/{words[1] if len(words) > 1 else 'index'}.md"


def write_examples(examples: Sequence[str], formatter: click.HelpFormatter) -> None:
    """A command's examples, as written (never rewrapped)."""
    if examples:
        with formatter.section("Examples"):
            for line in examples:
                formatter.write(f"{' ' * formatter.current_indent}{line}\n")


def write_summary(help_text: str | None, formatter: click.HelpFormatter) -> None:
    """The summary, right under the usage."""
    if summary(help_text):
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(summary(help_text))


def write_details(help_text: str | None, command_path: str, formatter: click.HelpFormatter) -> None:
    """The rest of the help text, after the flags, and where the command's page is."""
    with formatter.section("Description"):
        if details(help_text):
            formatter.write_text(details(help_text))
            formatter.write_paragraph()
        formatter.write_text(f"More on its page: {page_of(command_path)}")
