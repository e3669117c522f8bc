"""The check across targets (`check --target ...`) as text, JSON and Markdown: a summary
table on top (target, creates, updates, prunes, held, drift), then each target's part as
the check of one cluster shows it (render.check.text, json_output, markdown), its rollouts
and, for a target whose cluster could not be read, why.

The Markdown stays within `max_bytes`: every target keeps its heading, warnings and
problems, and the room left for the objects' details is shared fairly among the targets
(render.check.budget.fitted_parts). Pure: returns strings, prints nothing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any
from urllib.parse import quote

from driftctl.core.planning.check import CheckedObject, CheckReport
from driftctl.core.planning.targets import Tally, TargetCheck, TargetsReport, rollouts
from driftctl.render.check.budget import Part, fitted_parts
from driftctl.render.check.json_output import JSON_VERSION, check_document
from driftctl.render.check.markdown import MARKER, code, escape, part_of, trusted_block, untrusted
from driftctl.render.check.text import cluster_summary, text_lines
from driftctl.render.check.words import commits_summary, plural, short, verdict_line
from driftctl.render.style import Style

COLUMNS = ("creates", "updates", "prunes", "held", "drift")
NAMED_ROLLOUTS = 10  # the Markdown names so many, and counts the rest: it is never cut


def where(each: TargetCheck) -> str:
    """`context prod, path overlays/prod, instance default`: where a target was checked."""
    target = each.target
    parts = [f"context {target.context}"] if target.context else []
    parts += [f"kubeconfig {target.kubeconfig}"] if target.kubeconfig else []
    return ", ".join([*parts, f"path {each.path}", f"instance {each.instance}"])


def tally(each: TargetCheck) -> Tally | None:
    """The target's figures, or None when its cluster was not read."""
    report = each.report
    if report is None or report.cluster is None:
        return None
    return Tally.of(report.cluster)


def _not_read(each: TargetCheck) -> str:
    """Why a target has no figures: its cluster unreachable, its head invalid, or offline."""
    if each.unreachable is not None:
        return f"unreachable: {each.unreachable}"
    if each.report is None or each.report.diff is None:
        return "not checked: the head is invalid"
    return "not checked: --offline"


def _sides(report: TargetsReport) -> CheckReport | None:
    return next((each.report for each in report.targets if each.report is not None), None)


def _verdict(report: TargetsReport) -> str:
    asked = ",".join(sorted(report.fail_on)) or "''"
    if report.failed_on:
        return f"Fails on: {', '.join(report.failed_on)} (--fail-on {asked})"
    found = f"found: {', '.join(report.found)}; " if report.found else ""
    return f"Passes ({found}--fail-on {asked})"


# -- text ---------------------------------------------------------------------------------


def targets_text(report: TargetsReport, style: Style | None = None) -> str:
    """For a terminal or a CI log: the summary table, each target's part, the verdict."""
    style = style or Style()
    lines = _text_table(report)
    for each in report.targets:
        lines += ["", style.paint(f"== {each.target.name} ({where(each)}) ==", "bold")]
        if each.report is not None:
            lines += text_lines(replace(each.report, commits=None), style)
            lines += [f"starts a rollout: {item.key.display}" for item in _rollouts(each)]
        if each.unreachable is not None:
            lines.append(style.paint(f"Cluster: unreachable: {each.unreachable}", "red"))
        elif each.report is not None:
            lines.append(style.paint(cluster_summary(each.report), "bold"))
    lines += _text_commits(_sides(report), style)
    lines += ["", _verdict(report)]
    return "\n".join(lines) + "\n"


def _text_commits(first: CheckReport | None, style: Style) -> list[str]:
    """The pull request's commits (--verify), once for every target."""
    if first is None or first.commits is None:
        return []
    lines = [""]
    for verdict in first.commits:
        lines.append(style.paint(verdict_line(verdict), "green" if verdict.trusted else "red"))
    return [*lines, style.paint(f"Commits: {commits_summary(first.commits)}", "bold")]


def _text_table(report: TargetsReport) -> list[str]:
    width = max(len("target"), *(len(each.target.name) for each in report.targets))
    lines = [f"{'target':<{width}}  " + "  ".join(COLUMNS)]
    for each in report.targets:
        figures = tally(each)
        if figures is None:
            lines.append(f"{each.target.name:<{width}}  {_not_read(each)}")
            continue
        cells = [f"{getattr(figures, column):>{len(column)}}" for column in COLUMNS]
        lines.append(f"{each.target.name:<{width}}  " + "  ".join(cells))
    return lines


def _rollouts(each: TargetCheck) -> tuple[CheckedObject, ...]:
    report = each.report
    return () if report is None or report.cluster is None else rollouts(report.cluster)


# -- JSON ---------------------------------------------------------------------------------


def targets_json(report: TargetsReport) -> str:
    """One JSON object: each target with its figures, rollouts and its check's own object
    (as `check -o json` prints it for one cluster); keys in docs/reference/json-output.md."""
    document = {
        "version": JSON_VERSION,
        "targets": [_target_json(each) for each in report.targets],
        "found": list(report.found),
        "failOn": sorted(report.fail_on),
        "failedOn": list(report.failed_on),
        "exitCode": int(report.exit_code),
    }
    return json.dumps(document, indent=2) + "\n"


def _target_json(each: TargetCheck) -> dict[str, Any]:
    figures = tally(each)
    target = each.target
    return {
        "name": target.name,
        "context": target.context,
        "kubeconfig": target.kubeconfig,
        "path": each.path,
        "instance": each.instance,
        "unreachable": each.unreachable,
        "summary": None if figures is None else {c: getattr(figures, c) for c in COLUMNS},
        "rollouts": [item.key.display for item in _rollouts(each)],
        "check": None if each.report is None else check_document(each.report),
    }


# -- Markdown -----------------------------------------------------------------------------


def targets_markdown(report: TargetsReport, max_bytes: int) -> str:
    """The pull-request comment across targets, within `max_bytes` (module docstring)."""
    names = ",".join(quote(each.target.name) for each in report.targets)
    top = [
        f"{MARKER} targets={names} -->",
        f"### driftctl check: {plural(len(report.targets), 'target')}",
        "",
    ]
    first = _sides(report)
    if first is not None:
        base, head = first.base, first.head
        top += [f"{code(base.ref)} ({short(base)}) → {code(head.ref)} ({short(head)})", ""]
        top += untrusted(first)
    top += _markdown_table(report)
    top += [_markdown_verdict(report), ""]
    commits = [] if first is None or first.commits is None else trusted_block(first)
    parts = ([Part((), tuple(commits))] if commits else []) + [
        _part(each) for each in report.targets
    ]
    return fitted_parts(top, parts, max_bytes)


def _markdown_table(report: TargetsReport) -> list[str]:
    lines = ["| target | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    for each in report.targets:
        figures = tally(each)
        name = code(each.target.name)
        if figures is None:
            lines.append(f"| {name} | {escape(_not_read(each))} |" + " |" * (len(COLUMNS) - 1))
            continue
        cells = [str(getattr(figures, column)) for column in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _markdown_verdict(report: TargetsReport) -> str:
    asked = code(f"--fail-on {','.join(sorted(report.fail_on)) or chr(39) * 2}")
    if report.failed_on:
        return f":x: **Fails** on {', '.join(map(code, report.failed_on))} ({asked})."
    return f":white_check_mark: **Passes** ({asked})."


def _part(each: TargetCheck) -> Part:
    heading = [f"#### {code(each.target.name)}: {escape(where(each))}", ""]
    if each.unreachable is not None:
        heading += [
            "> [!CAUTION]",
            f"> **Not checked**: the cluster could not be read: {escape(each.unreachable)}",
            "",
        ]
    if each.report is None:
        return Part(tuple(heading), ())
    top, blocks = part_of(each.report)
    started = _rollouts(each)
    if started:
        names = ", ".join(code(item.key.display) for item in started[:NAMED_ROLLOUTS])
        more = len(started) - NAMED_ROLLOUTS
        names += f" and {more} more" if more > 0 else ""
        top += [f"**Rollouts**: merging starts {plural(len(started), 'rollout')}: {names}.", ""]
    return Part((*heading, *top), tuple(blocks))
