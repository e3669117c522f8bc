"""The results of the Git-only commands, `validate` and `diff`, as text, JSON or Markdown.

Text is for a person at a terminal (colour only when the caller's Style says so); JSON is
for programs, with the keys documented in docs/reference/json-output.md and never renamed;
Markdown is for a pull-request comment. Pure: returns strings, prints nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.commit_diff import Changed, DiffReport
from driftctl.core.planning.redaction import masked
from driftctl.core.source.desired_state import Revision, ValidationReport
from driftctl.core.source.model import WebApp
from driftctl.errors import Problem
from driftctl.render.style import Style

JSON_VERSION = 1  # bumped only if a key changes meaning; new keys may be added


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _short(revision: Revision) -> str:
    if revision.revision is None:
        return "uncommitted"
    return revision.revision[:12] + ("-dirty" if revision.dirty else "")


# ---- validate -------------------------------------------------------------------------------


def validation_text(report: ValidationReport, style: Style) -> str:
    """Warnings, then one summary line; when invalid, every problem then the count."""
    lines = [f"{style.paint('warning', 'yellow')}: {warning}" for warning in report.warnings]
    revision = report.revision
    where = f"{revision.source} at {_short(revision)}"
    if report.valid:
        count = _plural(len(report.webapps), "WebApp")
        files = _plural(revision.files, "file")
        lines.append(f"{style.paint('valid', 'green')}: {count} in {files} ({where})")
    else:
        lines.extend(str(problem) for problem in report.problems)
        count = _plural(len(report.problems), "problem")
        lines.append(f"{style.paint('invalid', 'red')}: {count} ({where})")
    return "\n".join(lines) + "\n"


def validation_json(report: ValidationReport) -> str:
    """The validation result as one JSON object (see docs/reference/json-output.md)."""
    document = {
        "version": JSON_VERSION,
        "valid": report.valid,
        **_revision_json(report.revision),
        "webapps": [_webapp_json(app) for app in report.webapps],
        "problems": [problem_json(problem) for problem in report.problems],
        "warnings": [problem_json(warning) for warning in report.warnings],
    }
    return json.dumps(document, indent=2) + "\n"


def _revision_json(revision: Revision) -> dict[str, Any]:
    return {
        "source": revision.source,
        "revision": revision.revision,
        "dirty": revision.dirty,
        "files": revision.files,
    }


def _webapp_json(app: WebApp) -> dict[str, Any]:
    return {
        "namespace": app.namespace,
        "name": app.name,
        "image": app.spec.image,
        "replicas": app.spec.replicas,
        "labels": masked(dict(app.labels)),
        "annotations": masked(dict(app.annotations)),
        "file": app.origin.file if app.origin else None,
        "line": app.origin.line if app.origin else None,
    }


def problem_json(problem: Problem) -> dict[str, Any]:
    """A problem (or warning) of the desired state as JSON: {file, line, column, reason}.
    `validate -o json` and `check -o json` (the head's problems) both list them so."""
    return {
        "file": problem.file,
        "line": problem.line,
        "column": problem.column,
        "reason": problem.reason,
    }


# ---- diff -----------------------------------------------------------------------------------


def _value(value: object) -> str:
    return "(none)" if value is None else str(value)


def _summary(report: DiffReport) -> str:
    diff = report.diff
    if diff.equal:
        return f"no changes: {_plural(diff.unchanged, 'WebApp')} the same"
    parts = [f"{len(diff.added)} added", f"{len(diff.removed)} removed"]
    parts += [f"{len(diff.changed)} changed", f"{diff.unchanged} unchanged"]
    return ", ".join(parts)


def _sides(report: DiffReport) -> str:
    base = f"{report.base_ref} ({_short(report.base.revision)})"
    head = f"{report.head_ref} ({_short(report.head.revision)})"
    return f"{base} -> {head}"


def diff_text(report: DiffReport, style: Style) -> str:
    """`+` added, `-` removed, `~` changed with `field: old -> new`, then a summary line."""
    lines = [f"{style.paint('warning', 'yellow')}: {w}" for w in report.head.warnings]
    for app in report.diff.added:
        lines.append(style.paint(f"+ {app.display}", "green"))
        lines.append(f"    spec.image: {app.spec.image}")
        lines.append(f"    spec.replicas: {app.spec.replicas}")
    for app in report.diff.removed:
        lines.append(style.paint(f"- {app.display}", "red"))
    for changed in report.diff.changed:
        lines.append(style.paint(f"~ {changed.after.display}", "yellow"))
        lines.extend(_field_line(field, style) for field in changed.fields)
    lines.append(f"{style.paint(_summary(report), 'bold')}  [{_sides(report)}]")
    return "\n".join(lines) + "\n"


def _field_line(field: FieldChange, style: Style) -> str:
    old = style.paint(_value(field.before), "red")
    new = style.paint(_value(field.after), "green")
    return f"    {field.path}: {old} -> {new}"


def diff_json(report: DiffReport) -> str:
    """The diff as one JSON object (see docs/reference/json-output.md)."""
    diff = report.diff
    document = {
        "version": JSON_VERSION,
        "equal": diff.equal,
        "base": {"ref": report.base_ref, **_revision_json(report.base.revision)},
        "head": {"ref": report.head_ref, **_revision_json(report.head.revision)},
        "added": [_webapp_json(app) for app in diff.added],
        "removed": [_webapp_json(app) for app in diff.removed],
        "changed": [_changed_json(changed) for changed in diff.changed],
        "summary": {
            "added": len(diff.added),
            "removed": len(diff.removed),
            "changed": len(diff.changed),
            "unchanged": diff.unchanged,
        },
    }
    return json.dumps(document, indent=2) + "\n"


def _changed_json(changed: Changed) -> dict[str, Any]:
    return {
        "namespace": changed.after.namespace,
        "name": changed.after.name,
        "fields": [
            {"field": field.path, "old": field.before, "new": field.after}
            for field in changed.fields
        ],
    }


def diff_markdown(report: DiffReport) -> str:
    """A pull-request comment: a heading, the summary, and one table row per change."""
    lines = [
        "### driftctl: desired state changes",
        "",
        f"{_code(report.base_ref)} ({_short(report.base.revision)}) → "
        f"{_code(report.head_ref)} ({_short(report.head.revision)}): **{_summary(report)}**",
    ]
    if not report.diff.equal:
        lines += ["", "| change | WebApp | details |", "|---|---|---|"]
        lines += [_markdown_row(row) for row in _rows(report)]
    return "\n".join(lines) + "\n"


def _rows(report: DiffReport) -> list[tuple[str, WebApp, list[str]]]:
    rows = [
        ("added", app, [f"image {_code(app.spec.image)}", f"replicas {app.spec.replicas}"])
        for app in report.diff.added
    ]
    rows += [("removed", app, []) for app in report.diff.removed]
    rows += [
        (
            "changed",
            changed.after,
            [
                f"{_code(f.path)}: {_code(_value(f.before))} → {_code(_value(f.after))}"
                for f in changed.fields
            ],
        )
        for changed in report.diff.changed
    ]
    return rows


def _markdown_row(row: tuple[str, WebApp, list[str]]) -> str:
    action, app, details = row
    return f"| {action} | {_code(app.display)} | {'<br>'.join(details)} |"


def _code(text: str) -> str:
    """Inline code safe inside a table cell, whatever backticks or pipes the text holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}".replace("|", "\\|")
