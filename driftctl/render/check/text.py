"""The check report as text, for a terminal or a CI log: problems, the change in Git, the
cluster's categories, the commits' verdicts, then the verdict. Pure: returns a string,
prints nothing; colour only when the caller's Style says so.
"""

from __future__ import annotations

from driftctl.core.planning.built_changes import Change
from driftctl.core.planning.check import CATEGORIES, Category, CheckedObject, CheckReport
from driftctl.render.check.words import (
    commits_summary,
    fail_on,
    field_line,
    git_summary,
    short,
    verdict_line,
)
from driftctl.render.style import Style


def check_text(report: CheckReport, style: Style | None = None) -> str:
    """For a terminal or a CI log: problems, the change, the cluster's categories, verdict."""
    style = style or Style()
    lines = [*text_lines(report, style), style.paint(cluster_summary(report), "bold")]
    return "\n".join([*lines, _verdict(report)]) + "\n"


def text_lines(report: CheckReport, style: Style) -> list[str]:
    """The report but its cluster's summary and its verdict: what a target's part of a
    report across targets shows before its own summary."""
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
        lines.append(style.paint(verdict_line(verdict), "green" if verdict.trusted else "red"))
    lines.append(style.paint(f"Git: {git_summary(report)}  [{_sides(report)}]", "bold"))
    if report.commits is not None:
        lines.append(style.paint(f"Commits: {commits_summary(report.commits)}", "bold"))
    return lines


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


def _sides(report: CheckReport) -> str:
    return f"{report.base.ref} ({short(report.base)}) -> {report.head.ref} ({short(report.head)})"


def cluster_summary(report: CheckReport) -> str:
    """`Cluster: 1 change, ...`, or why the cluster was not checked."""
    if report.cluster is None:
        if report.diff is None:
            return "Cluster: not checked (the head is invalid)"
        return "Cluster: not checked (no --kubeconfig or --context given, or --offline)"
    counts = ", ".join(f"{report.cluster.count(category)} {category}" for category in CATEGORIES)
    return f"Cluster: {counts}, {report.cluster.unchanged} unchanged"


def _verdict(report: CheckReport) -> str:
    if report.failed_on:
        return f"Fails on: {', '.join(report.failed_on)} (--fail-on {fail_on(report)})"
    found = f"found: {', '.join(report.found)}; " if report.found else ""
    return f"Passes ({found}--fail-on {fail_on(report)})"
