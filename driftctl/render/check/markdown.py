"""The check report as Markdown, for a pull-request comment or a CI job summary.

- the first line is a hidden marker, `<!-- driftctl-check instance=I path=P -->`, so a bot
  can find its own comment and update it in place (one comment per instance and folder);
- then the sides, a warning naming every prune, replacement and blocked object, every
  commit that is unsigned or not trusted (--verify), the table of counts per category,
  and the change in Git;
- then one `<details>` per object with its field diff in a code block: first the prunes,
  replacements and blocked objects, then the others, within the report's budget
  (render.check.budget);
- when nothing changed, the report is one line (the marker leads it).

Pure: returns a string, prints nothing. Must not cut anything itself: which blocks a
budget may cut is said here (`Block.optional`), the cutting is render.check.budget's.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from urllib.parse import quote

from driftctl.core.planning.built_changes import BuiltChange, Change
from driftctl.core.planning.check import CATEGORIES, Category, CheckedObject, CheckReport
from driftctl.render.check.budget import Block, fitted
from driftctl.render.check.words import (
    commits_summary,
    fail_on,
    field_line,
    git_summary,
    plural,
    short,
    verdict_line,
)

MARKER = "<!-- driftctl-check"

_LABELS = {
    Category.CHANGE: "changes this pull request introduces",
    Category.DRIFT: "drift already in the cluster, corrected by merging",
    Category.PRUNE: "prunes",
    Category.REPLACE: "replacements (immutable fields)",
    Category.BLOCKED: "blocked by a guard, a refusal or a conflict",
}
_FLAGGED = (Category.PRUNE, Category.REPLACE, Category.BLOCKED)
_REMOVED = {"WebApp": "no longer declared: pruned through its finalizer when merged"}


def check_markdown(report: CheckReport, max_bytes: int) -> str:
    """The pull-request comment (module docstring), within `max_bytes`."""
    marker = _marker(report)
    if report.nothing_to_report:
        return f"{marker} {_one_line(report)}\n"
    top = [marker, "### driftctl check", "", f"{_sides_markdown(report)}", ""]
    top += _flagged(report)
    top += untrusted(report)
    top += _summary_table(report)
    top += _problems(report)
    blocks = trusted_block(report) + _blocks(report)
    return fitted(top, blocks, max_bytes)


def _marker(report: CheckReport) -> str:
    path = report.head.revision.source.rpartition("#")[2]
    return f"{MARKER} instance={quote(report.instance)} path={quote(path or '/')} -->"


def _one_line(report: CheckReport) -> str:
    diff = report.diff
    count = plural(diff.unchanged if diff else 0, "WebApp")
    cluster = (
        "the cluster equals Git" if report.cluster is not None else "the cluster was not checked"
    )
    return (
        f"**driftctl check**: no changes — {code(report.base.ref)} → {code(report.head.ref)} "
        f"({short(report.head)}): {count} the same, {cluster}."
    )


def _sides_markdown(report: CheckReport) -> str:
    base, head = report.base, report.head
    return (
        f"{code(base.ref)} ({short(base)}) → {code(head.ref)} ({short(head)}), "
        f"instance {code(report.instance)}"
    )


def _flagged(report: CheckReport) -> list[str]:
    """Every prune, replacement and blocked object, first: what a reviewer must not miss."""
    if report.cluster is None:
        removed = [b for b in report.webapps if b.change is Change.REMOVED]
        if not removed:
            return []
        lines = ["> [!WARNING]", f"> **Merging prunes {plural(len(removed), 'WebApp')}**"]
        lines += [f"> - {code(b.key.display)}: removed from Git" for b in removed]
        return [*lines, ""]
    flagged = [item for item in report.cluster.objects if item.category in _FLAGGED]
    refusals = report.cluster.refusals
    if not flagged and not refusals:
        return []
    counts = [
        plural(report.cluster.count(category), noun)
        for category, noun in (
            (Category.PRUNE, "prune"),
            (Category.REPLACE, "replacement"),
            (Category.BLOCKED, "blocked object"),
        )
        if report.cluster.count(category)
    ]
    lines = ["> [!WARNING]", f"> **Merging brings {', '.join(counts) or 'a refusal'}**"]
    lines += [f"> - {code(item.key.display)}: {_flag_text(item)}" for item in flagged]
    lines += [f"> - refused: {escape(refusal)}" for refusal in refusals]
    return [*lines, ""]


def part_of(report: CheckReport) -> tuple[list[str], list[Block]]:
    """A report as one target's part of a report across targets shows it: its warnings,
    the head's problems and the Git change (always kept), then its blocks."""
    return [*_flagged(report), *_problems(report), f"**Git**: {git_summary(report)}.", ""], (
        _blocks(report)
    )


def untrusted(report: CheckReport) -> list[str]:
    """Every commit not trusted, as a warning: never cut from the report."""
    failed = [verdict for verdict in report.commits or () if not verdict.trusted]
    if not failed:
        return []
    lines = ["> [!CAUTION]", f"> **{plural(len(failed), 'commit')} not signed by a trusted key**"]
    lines += [f"> - {escape(verdict_line(verdict))}" for verdict in failed]
    return [*lines, ""]


def trusted_block(report: CheckReport) -> list[Block]:
    """The commits signed by a trusted key, one foldable block (cut first when too long)."""
    trusted = [verdict for verdict in report.commits or () if verdict.trusted]
    if report.commits is None:
        return []
    summary = f"Commits: {escape(commits_summary(report.commits))}"
    lines = [verdict_line(verdict) for verdict in trusted]
    return [Block(_details(summary, lines, language="text"), optional=True)]


def _flag_text(item: CheckedObject) -> str:
    cause = "introduced by this pull request" if item.introduced else "already pending"
    reason = f" — {escape(item.reason)}" if item.reason else ""
    return f"**{item.category}** ({item.verb}, {cause}){reason}"


def _summary_table(report: CheckReport) -> list[str]:
    lines = [f"**Git**: {git_summary(report)}.", ""]
    if report.cluster is None:
        why = (
            "the head is invalid"
            if report.diff is None
            else "no cluster credentials were given, or --offline"
        )
        return [*lines, f"**Cluster**: not checked ({why}).", "", _verdict_markdown(report), ""]
    lines += ["| category | objects |", "|---|---:|"]
    lines += [
        f"| {'**' + str(c) + '**' if c in _FLAGGED and report.cluster.count(c) else c}: "
        f"{_LABELS[c]} | {report.cluster.count(c)} |"
        for c in CATEGORIES
    ]
    lines += [f"| unchanged | {report.cluster.unchanged} |", ""]
    return [*lines, _verdict_markdown(report), ""]


def _verdict_markdown(report: CheckReport) -> str:
    asked = code(f"--fail-on {fail_on(report)}")
    if report.failed_on:
        return f":x: **Fails** on {', '.join(map(code, report.failed_on))} ({asked})."
    return f":white_check_mark: **Passes** ({asked})."


def _problems(report: CheckReport) -> list[str]:
    if not report.problems:
        return []
    count = plural(len(report.problems), "problem")
    body = [str(problem) for problem in report.problems]
    return [f"**The head is invalid** ({count}):", "", *_fenced("text", body), ""]


def _blocks(report: CheckReport) -> list[Block]:
    if report.cluster is None:
        return [_built_block(built) for built in (*report.webapps, *report.deployments)]
    items = report.cluster.objects
    flagged = [_object_block(item) for item in items if item.category in _FLAGGED]
    return flagged + [_object_block(item) for item in items if item.category not in _FLAGGED]


def _built_block(built: BuiltChange) -> Block:
    fields = plural(len(built.fields), "field")
    summary = f"<code>{built.key.display}</code>: {built.change}" + (
        f" ({fields})" if built.fields else ""
    )
    body = [field_line(field) for field in built.fields]
    if built.change is Change.REMOVED:
        body = [f"- {built.key.display}: {_REMOVED.get(built.key.kind, 'deleted with its WebApp')}"]
    return Block(_details(summary, body), optional=built.change is not Change.REMOVED)


def _object_block(item: CheckedObject) -> Block:
    cause = "introduced by this pull request" if item.introduced else "already in the cluster"
    summary = f"<code>{item.key.display}</code>: <b>{item.category}</b> — {item.verb} ({cause})"
    body = [field_line(field) for field in item.fields]
    body += [f"- deletes {key.display} during cleanup" for key in item.deletes]
    reason = [escape(item.reason), ""] if item.reason else []
    return Block(_details(summary, body, reason), optional=item.category not in _FLAGGED)


def _details(
    summary: str, body: list[str], before: list[str] | None = None, language: str = "diff"
) -> tuple[str, ...]:
    lines = ["<details>", f"<summary>{summary}</summary>", "", *(before or [])]
    if body:
        lines += [*_fenced(language, body), ""]
    return (*lines, "</details>", "")


def _fenced(language: str, body: Sequence[str]) -> list[str]:
    """A code block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for line in body for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", *body, fence]


def escape(text: str) -> str:
    """Text safe in Markdown and HTML: `<`, `&` escaped, `|` kept out of tables."""
    return html.escape(text, quote=False).replace("|", "\\|")


def code(text: str) -> str:
    """Inline code, whatever backticks the text holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"
