"""How `--help` is laid out: words kept whole.

- `Formatter`: click's help formatter, wrapping between words only. click wraps with
  textwrap's defaults (break_long_words, break_on_hyphens), which cut a default without
  spaces (`error,inv` / `alid,...`) and a path at its hyphens (`private- repositories.md`).
  Here, when the column beside the flags is narrower than NARROWEST or one of its words
  is wider than it, each description goes under its flag instead (as kubectl's do); a
  word wider than the whole line runs past the margin, whole.
- `Context`: the context every driftctl command makes its help in (with `Formatter`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

import click

STACKED_INDENT = 4  # how far a description under its flag is indented, past the flag
NARROWEST = 36  # a column of descriptions narrower than this is no column: each goes under


def wrap(text: str, width: int, first: str = "", rest: str = "", paragraphs: bool = False) -> str:
    """`text` filled to `width`, breaking between words only; `first` and `rest` indent the
    first and the following lines. With `paragraphs`, as click's help text: blank lines part
    paragraphs, a paragraph keeps its own indent, one opened by a `\\b` line is kept as is."""
    if not paragraphs:
        return _wrapper(width, first, rest).fill(text.expandtabs())
    return "\n\n".join(
        _paragraph(lines, width, first, rest) for lines in _paragraphs(text.expandtabs())
    )


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
    if lines[0].strip() == "\b":
        kept = [line.lstrip() for line in lines[1:]]
        return "\n".join(f"{first if i == 0 else rest}{own}{line}" for i, line in enumerate(kept))
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
