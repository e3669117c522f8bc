"""The pre-merge check as text, JSON and Markdown. Pure: returns strings, prints nothing.

Values arrive masked (core.planning.redaction); objects are named `Kind/namespace/name`.

Markdown, for a pull-request comment or a CI job summary:
- the first line is a hidden marker, `<!-- driftctl-check instance=I path=P -->`, so a bot
  can find its own comment and update it in place (one comment per instance and folder);
- then the sides, a warning naming every prune, replacement and blocked object, every
  commit that is unsigned or not trusted (--verify), the table of counts per category,
  and the change in Git;
- then one `<details>` per object with its field diff in a code block: first the prunes,
  replacements and blocked objects, then the others.
- The report stays within `max_bytes` (UTF-8): the summary, every prune, replacement,
  blocked object, untrusted commit and validation problem are always kept; the details of
  the other
  objects are cut from the middle, whole blocks only (never inside a code block), and a
  note says how many were cut. Only the kept part alone can exceed the budget.
- When nothing changed, the report is one line (the marker leads it).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from driftctl.core.planning.built_changes import BuiltChange, Change
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.check import (
    CATEGORIES,
    Category,
    CheckedField,
    CheckedObject,
    CheckReport,
    Side,
)
from driftctl.core.source.signatures import Verdict
from driftctl.render.offline import problem_json
from driftctl.render.plan import value_text
from driftctl.render.style import Style

JSON_VERSION = 1  # bumped only if a key changes meaning; new keys may be added
MARKER = "<!-- driftctl-check"

_LABELS = {
    Category.CHANGE: "changes this pull request introduces",
    Category.DRIFT: "drift already in the cluster, corrected by merging",
    Category.PRUNE: "prunes",
    Category.REPLACE: "replacements (immutable fields)",
    Category.BLOCKED: "blocked by a guard, a refusal or a conflict",
}
_FLAGGED = (Category.PRUNE, Category.REPLACE, Category.BLOCKED)
_SYMBOLS = {"add": "+", "remove": "-", "replace": "~"}
_REMOVED = {"WebApp": "no longer declared: pruned through its finalizer when merged"}


def _short(side: Side) -> str:
    revision = side.revision
    if revision.revision is None:
        return "uncommitted"
    return revision.revision[:12] + ("-dirty" if revision.dirty else "")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def field_line(field: CheckedField | FieldChange) -> str:
    """`~ spec.replicas: 5 -> 2`, `+ path: value`, `- path: value`; drift marked as such."""
    change = field.change if isinstance(field, CheckedField) else field
    symbol = _SYMBOLS.get(change.op, "~")
    if change.op == "add":
        text = f"{change.path}: {value_text(change.after)}"
    elif change.op == "remove":
        text = f"{change.path}: {value_text(change.before)}"
    else:
        text = f"{change.path}: {value_text(change.before)} -> {value_text(change.after)}"
    who = f" (changed by {', '.join(change.managers)})" if change.managers else ""
    drift = "   # drift: already in the cluster" if getattr(field, "drift", False) else ""
    return f"{symbol} {text}{who}{drift}"


def _git_summary(report: CheckReport) -> str:
    diff = report.diff
    if diff is None:
        return "the head is invalid"
    if diff.equal:
        return f"no change: {_plural(diff.unchanged, 'WebApp')} the same"
    altered = _plural(len(report.deployments), "Deployment")
    return (
        f"{len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed "
        f"WebApps ({diff.unchanged} unchanged); {altered} altered"
    )


def _sides(report: CheckReport) -> str:
    return f"{report.base.ref} ({_short(report.base)}) -> {report.head.ref} ({_short(report.head)})"


# ---- text -----------------------------------------------------------------------------------


def check_text(report: CheckReport, style: Style | None = None) -> str:
    """For a terminal or a CI log: problems, the change, the cluster's categories, verdict."""
    style = style or Style()
    lines = [f"{style.paint('warning', 'yellow')}: {w}" for w in report.warnings]
    lines += [str(problem) for problem in report.problems]
    for built in (*report.webapps, *report.deployments):
        lines.append(f"{_CHANGE_SYMBOL[built.change]} {built.key.display}: {built.change}")
        lines += [f"    {field_line(field)}" for field in built.fields]
    if report.cluster is not None:
        for item in report.cluster.objects:
            lines.append(style.paint(_object_title(item), _COLOURS[item.category]))
            lines += [f"    {field_line(field)}" for field in item.fields]
            lines += [f"    deletes {key.display} during cleanup" for key in item.deletes]
        lines += [style.paint(f"refused: {refusal}", "red") for refusal in report.cluster.refusals]
    for verdict in report.commits or ():
        lines.append(style.paint(_verdict_line(verdict), "green" if verdict.trusted else "red"))
    lines.append(style.paint(f"Git: {_git_summary(report)}  [{_sides(report)}]", "bold"))
    if report.commits is not None:
        lines.append(style.paint(f"Commits: {_commits_summary(report.commits)}", "bold"))
    lines.append(style.paint(_cluster_summary(report), "bold"))
    lines.append(_verdict(report))
    return "\n".join(lines) + "\n"


_CHANGE_SYMBOL = {Change.ADDED: "+", Change.REMOVED: "-", Change.CHANGED: "~"}
_COLOURS = {
    Category.CHANGE: "yellow",
    Category.DRIFT: "cyan",
    Category.PRUNE: "red",
    Category.REPLACE: "red",
    Category.BLOCKED: "red",
}


def _object_title(item: CheckedObject) -> str:
    cause = "introduced by this pull request" if item.introduced else "already pending"
    reason = f": {item.reason}" if item.reason else ""
    return f"[{item.category}] {item.key.display}: {item.verb} ({cause}){reason}"


def _verdict_line(verdict: Verdict) -> str:
    """`[unsigned] commit 1a2b3c4d5e6f: it carries no signature`, `[trusted] ...: signer`."""
    label = verdict.counts_as or "trusted"
    what = verdict.subject.display
    if verdict.trusted:
        return f"[{label}] {what}: signed by {verdict.shown_signer}"
    signer = f"signed by {verdict.signer}: " if verdict.signer else ""
    return f"[{label}] {what}: {signer}{verdict.reason}"


def _commits_summary(commits: Sequence[Verdict]) -> str:
    checked = _plural(len(commits), "signature")
    counts = [
        f"{sum(1 for v in commits if v.counts_as == name)} {name}"
        for name in ("unsigned", "untrusted")
    ]
    return f"{checked} checked: {sum(1 for v in commits if v.trusted)} trusted, {', '.join(counts)}"


def _cluster_summary(report: CheckReport) -> str:
    if report.cluster is None:
        if report.diff is None:
            return "Cluster: not checked (the head is invalid)"
        return "Cluster: not checked (no --kubeconfig or --context given, or --offline)"
    counts = ", ".join(f"{report.cluster.count(category)} {category}" for category in CATEGORIES)
    return f"Cluster: {counts}, {report.cluster.unchanged} unchanged"


def _verdict(report: CheckReport) -> str:
    if report.failed_on:
        return f"Fails on: {', '.join(report.failed_on)} (--fail-on {_fail_on(report)})"
    found = f"found: {', '.join(report.found)}; " if report.found else ""
    return f"Passes ({found}--fail-on {_fail_on(report)})"


def _fail_on(report: CheckReport) -> str:
    return ",".join(sorted(report.fail_on)) or "''"


# ---- JSON -----------------------------------------------------------------------------------


def check_json(report: CheckReport) -> str:
    """The whole report as one JSON object (keys documented in docs/reference/json-output.md)."""
    cluster = report.cluster
    document = {
        "version": JSON_VERSION,
        "base": _side_json(report.base),
        "head": _side_json(report.head),
        "instance": report.instance,
        "valid": not report.problems,
        "problems": [problem_json(problem) for problem in report.problems],
        "warnings": [problem_json(warning) for warning in report.warnings],
        "git": None
        if report.diff is None
        else {
            "summary": {
                "added": len(report.diff.added),
                "removed": len(report.diff.removed),
                "changed": len(report.diff.changed),
                "unchanged": report.diff.unchanged,
            },
            "objects": [_built_json(b) for b in (*report.webapps, *report.deployments)],
        },
        "cluster": None
        if cluster is None
        else {
            "summary": {str(c): cluster.count(c) for c in CATEGORIES}
            | {"unchanged": cluster.unchanged},
            "refusals": list(cluster.refusals),
            "objects": [_object_json(item) for item in cluster.objects],
        },
        "commits": None
        if report.commits is None
        else [_commit_json(verdict) for verdict in report.commits],
        "found": list(report.found),
        "failOn": sorted(report.fail_on),
        "failedOn": list(report.failed_on),
        "exitCode": int(report.exit_code),
    }
    return json.dumps(document, indent=2) + "\n"


def _side_json(side: Side) -> dict[str, Any]:
    revision = side.revision
    return {
        "ref": side.ref,
        "source": revision.source,
        "revision": revision.revision,
        "dirty": revision.dirty,
    }


def _commit_json(verdict: Verdict) -> dict[str, Any]:
    subject = verdict.subject
    return {
        "kind": subject.kind,
        "sha": subject.sha,
        "tag": subject.tag_name,
        "signer": verdict.signer,
        "fingerprint": verdict.fingerprint,
        "trusted": verdict.trusted,
        "countsAs": verdict.counts_as,
        "reason": verdict.reason or None,
    }


def _field_json(field: CheckedField | FieldChange) -> dict[str, Any]:
    change = field.change if isinstance(field, CheckedField) else field
    out = {"path": change.path, "op": change.op, "before": change.before, "after": change.after}
    if isinstance(field, CheckedField):
        out |= {"managers": list(change.managers), "drift": field.drift}
    return out


def _built_json(built: BuiltChange) -> dict[str, Any]:
    fields = [_field_json(field) for field in built.fields]
    return built.key.as_json() | {"change": str(built.change), "fields": fields}


def _object_json(item: CheckedObject) -> dict[str, Any]:
    return item.key.as_json() | {
        "category": str(item.category),
        "action": str(item.verb),
        "introduced": item.introduced,
        "countsAs": item.counts_as,
        "reason": item.reason,
        "error": item.error,
        "deletes": [key.display for key in item.deletes],
        "fields": [_field_json(field) for field in item.fields],
    }


# ---- Markdown -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """One `<details>` block: its lines, and whether the budget may cut it."""

    lines: tuple[str, ...]
    optional: bool

    @property
    def size(self) -> int:
        return sum(len(line.encode()) + 1 for line in self.lines)


def check_markdown(report: CheckReport, max_bytes: int) -> str:
    """The pull-request comment (module docstring), within `max_bytes`."""
    marker = _marker(report)
    if report.nothing_to_report:
        return f"{marker} {_one_line(report)}\n"
    top = [marker, "### driftctl check", "", f"{_sides_markdown(report)}", ""]
    top += _flagged(report)
    top += _untrusted(report)
    top += _summary_table(report)
    top += _problems(report)
    blocks = _trusted_block(report) + _blocks(report)
    return _fitted(top, blocks, max_bytes)


def _marker(report: CheckReport) -> str:
    path = report.head.revision.source.rpartition("#")[2]
    return f"{MARKER} instance={quote(report.instance)} path={quote(path or '/')} -->"


def _one_line(report: CheckReport) -> str:
    diff = report.diff
    count = _plural(diff.unchanged if diff else 0, "WebApp")
    cluster = (
        "the cluster equals Git" if report.cluster is not None else "the cluster was not checked"
    )
    return (
        f"**driftctl check**: no changes — {_code(report.base.ref)} → {_code(report.head.ref)} "
        f"({_short(report.head)}): {count} the same, {cluster}."
    )


def _sides_markdown(report: CheckReport) -> str:
    base, head = report.base, report.head
    return (
        f"{_code(base.ref)} ({_short(base)}) → {_code(head.ref)} ({_short(head)}), "
        f"instance {_code(report.instance)}"
    )


def _flagged(report: CheckReport) -> list[str]:
    """Every prune, replacement and blocked object, first: what a reviewer must not miss."""
    if report.cluster is None:
        removed = [b for b in report.webapps if b.change is Change.REMOVED]
        if not removed:
            return []
        lines = ["> [!WARNING]", f"> **Merging prunes {_plural(len(removed), 'WebApp')}**"]
        lines += [f"> - {_code(b.key.display)}: removed from Git" for b in removed]
        return [*lines, ""]
    flagged = [item for item in report.cluster.objects if item.category in _FLAGGED]
    refusals = report.cluster.refusals
    if not flagged and not refusals:
        return []
    counts = [
        _plural(report.cluster.count(category), noun)
        for category, noun in (
            (Category.PRUNE, "prune"),
            (Category.REPLACE, "replacement"),
            (Category.BLOCKED, "blocked object"),
        )
        if report.cluster.count(category)
    ]
    lines = ["> [!WARNING]", f"> **Merging brings {', '.join(counts) or 'a refusal'}**"]
    lines += [f"> - {_code(item.key.display)}: {_flag_text(item)}" for item in flagged]
    lines += [f"> - refused: {_escape(refusal)}" for refusal in refusals]
    return [*lines, ""]


def _untrusted(report: CheckReport) -> list[str]:
    """Every commit not trusted, as a warning: never cut from the report."""
    failed = [verdict for verdict in report.commits or () if not verdict.trusted]
    if not failed:
        return []
    lines = ["> [!CAUTION]", f"> **{_plural(len(failed), 'commit')} not signed by a trusted key**"]
    lines += [f"> - {_escape(_verdict_line(verdict))}" for verdict in failed]
    return [*lines, ""]


def _trusted_block(report: CheckReport) -> list[_Block]:
    """The commits signed by a trusted key, one foldable block (cut first when too long)."""
    trusted = [verdict for verdict in report.commits or () if verdict.trusted]
    if report.commits is None:
        return []
    summary = f"Commits: {_escape(_commits_summary(report.commits))}"
    lines = [_verdict_line(verdict) for verdict in trusted]
    return [_Block(_details(summary, lines, language="text"), optional=True)]


def _flag_text(item: CheckedObject) -> str:
    cause = "introduced by this pull request" if item.introduced else "already pending"
    reason = f" — {_escape(item.reason)}" if item.reason else ""
    return f"**{item.category}** ({item.verb}, {cause}){reason}"


def _summary_table(report: CheckReport) -> list[str]:
    lines = [f"**Git**: {_git_summary(report)}.", ""]
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
    asked = _code(f"--fail-on {_fail_on(report)}")
    if report.failed_on:
        return f":x: **Fails** on {', '.join(map(_code, report.failed_on))} ({asked})."
    return f":white_check_mark: **Passes** ({asked})."


def _problems(report: CheckReport) -> list[str]:
    if not report.problems:
        return []
    count = _plural(len(report.problems), "problem")
    body = [str(problem) for problem in report.problems]
    return [f"**The head is invalid** ({count}):", "", *_fenced("text", body), ""]


def _blocks(report: CheckReport) -> list[_Block]:
    if report.cluster is None:
        return [_built_block(built) for built in (*report.webapps, *report.deployments)]
    items = report.cluster.objects
    flagged = [_object_block(item) for item in items if item.category in _FLAGGED]
    return flagged + [_object_block(item) for item in items if item.category not in _FLAGGED]


def _built_block(built: BuiltChange) -> _Block:
    fields = _plural(len(built.fields), "field")
    summary = f"<code>{built.key.display}</code>: {built.change}" + (
        f" ({fields})" if built.fields else ""
    )
    body = [field_line(field) for field in built.fields]
    if built.change is Change.REMOVED:
        body = [f"- {built.key.display}: {_REMOVED.get(built.key.kind, 'deleted with its WebApp')}"]
    return _Block(_details(summary, body), optional=built.change is not Change.REMOVED)


def _object_block(item: CheckedObject) -> _Block:
    cause = "introduced by this pull request" if item.introduced else "already in the cluster"
    summary = f"<code>{item.key.display}</code>: <b>{item.category}</b> — {item.verb} ({cause})"
    body = [field_line(field) for field in item.fields]
    body += [f"- deletes {key.display} during cleanup" for key in item.deletes]
    reason = [_escape(item.reason), ""] if item.reason else []
    return _Block(_details(summary, body, reason), optional=item.category not in _FLAGGED)


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


def _fitted(top: list[str], blocks: list[_Block], max_bytes: int) -> str:
    """The report within `max_bytes`: optional blocks cut from the middle, with a note."""
    kept_size = sum(len(line.encode()) + 1 for line in top)
    kept_size += sum(block.size for block in blocks if not block.optional)
    optional = [block for block in blocks if block.optional]
    if kept_size + sum(block.size for block in optional) <= max_bytes:
        return _joined(top, blocks)
    room = max_bytes - kept_size - len(_cut_note(len(optional), max_bytes).encode()) - 1
    front, back = _ends(optional, room)
    note = _cut_note(len(optional) - front - back, max_bytes)
    mandatory = [block for block in blocks if not block.optional]
    cut = [*optional[:front], _Block((note, ""), False), *optional[len(optional) - back :]]
    return _joined(top, [*mandatory, *cut])


def _ends(blocks: list[_Block], room: int) -> tuple[int, int]:
    """How many blocks to keep from the front and from the back, alternately, within room."""
    front = back = used = 0
    while front + back < len(blocks):
        index = front if front <= back else len(blocks) - 1 - back
        size = blocks[index].size
        if used + size > room:
            break
        used += size
        if front <= back:
            front += 1
        else:
            back += 1
    return front, back


def _cut_note(count: int, max_bytes: int) -> str:
    return (
        f"> :scissors: The details of {_plural(count, 'more object')} were cut here to keep this "
        f"report within {max_bytes:,} bytes; `driftctl check -o json` lists every object."
    )


def _joined(top: list[str], blocks: list[_Block]) -> str:
    lines = [*top, *(line for block in blocks for line in block.lines)]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "\\|")


def _code(text: str) -> str:
    """Inline code, whatever backticks the text holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"
