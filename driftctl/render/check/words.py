"""The check report's phrases that its text and its Markdown share: a revision in short,
a count and its noun, a field's change, the Git summary, a commit's verdict, --fail-on.

Pure. Must not choose a format: each phrase is plain text, and the formats (text,
markdown) colour, escape or fence it.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.check import CheckedField, CheckReport, Side
from driftctl.core.source.signatures import Verdict
from driftctl.render.plan import value_text

_SYMBOLS = {"add": "+", "remove": "-", "replace": "~"}


def short(side: Side) -> str:
    """A side's commit in 12 characters (`-dirty` when uncommitted changes were read)."""
    revision = side.revision
    if revision.revision is None:
        return "uncommitted"
    return revision.revision[:12] + ("-dirty" if revision.dirty else "")


def plural(count: int, noun: str) -> str:
    """`1 WebApp`, `2 WebApps`."""
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


def git_summary(report: CheckReport) -> str:
    """What the change does in Git: WebApps added, removed, changed; Deployments altered."""
    diff = report.diff
    if diff is None:
        return "the head is invalid"
    if diff.equal:
        return f"no change: {plural(diff.unchanged, 'WebApp')} the same"
    altered = plural(len(report.deployments), "Deployment")
    return (
        f"{len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed "
        f"WebApps ({diff.unchanged} unchanged); {altered} altered"
    )


def verdict_line(verdict: Verdict) -> str:
    """`[unsigned] commit 1a2b3c4d5e6f: it carries no signature`, `[trusted] ...: signer`."""
    label = verdict.counts_as or "trusted"
    what = verdict.subject.display
    if verdict.trusted:
        return f"[{label}] {what}: signed by {verdict.shown_signer}"
    signer = f"signed by {verdict.signer}: " if verdict.signer else ""
    return f"[{label}] {what}: {signer}{verdict.reason}"


def commits_summary(commits: Sequence[Verdict]) -> str:
    """How many signatures were checked, and how many are trusted, unsigned, untrusted."""
    checked = plural(len(commits), "signature")
    counts = [
        f"{sum(1 for v in commits if v.counts_as == name)} {name}"
        for name in ("unsigned", "untrusted")
    ]
    return f"{checked} checked: {sum(1 for v in commits if v.trusted)} trusted, {', '.join(counts)}"


def fail_on(report: CheckReport) -> str:
    """The --fail-on categories as given (`''`: none)."""
    return ",".join(sorted(report.fail_on)) or "''"
