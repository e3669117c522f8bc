"""Plans and apply outcomes as text, JSON and Markdown. Pure: returns strings, prints nothing.

Objects are always named `Kind/namespace/name`. Text is for a terminal or a CronJob log;
unchanged objects are counted in the summary, listed only when asked.

JSON of a plan (stable; keys in this order, objects in the order they are acted on):
    revision   the Git commit the plan was computed at
    summary    {action: count} for every action: create, update, unchanged, prune,
               cleanup, replace, skip
    refusals   guard messages (e.g. too many deletions for --max-prune)
    objects    one per object: kind, namespace, name, action, reason, managers (other
               field managers of changed fields), owner (the WebApp whose uid a new
               Deployment still needs, or null), error (a refused dry-run, or null), and
               patch: the RFC 6902 JSON Patch from the live object to the result
               (from {} for create; empty for prune and cleanup; server bookkeeping such
               as managedFields, resourceVersion and status left out)

JSON of apply outcomes:
    summary    {outcome: count} for created, configured, unchanged, deleted, skipped, failed
    objects    one per object: kind, namespace, name, outcome, reason
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from driftctl.core.changes import FieldChange
from driftctl.core.entries import Action, ObjectOutcome, Outcome, Plan, PlanEntry
from driftctl.core.objects import ObjectKey
from driftctl.render.style import Style

_SYMBOLS = {
    Action.CREATE: ("+", "green"),
    Action.UPDATE: ("~", "yellow"),
    Action.REPLACE: ("-/+", "red"),
    Action.PRUNE: ("-", "red"),
    Action.CLEANUP: ("-", "red"),
    Action.UNCHANGED: ("=", "dim"),
    Action.SKIP: ("!", "cyan"),
}
_VALUE_WIDTH = 80


def plan_summary(plan: Plan) -> str:
    """`Plan: 2 to create, 1 to update, 0 to prune, 5 unchanged` (+ rarer actions if any)."""
    parts = [
        f"{plan.count(Action.CREATE)} to create",
        f"{plan.count(Action.UPDATE)} to update",
        f"{plan.count(Action.PRUNE)} to prune",
    ]
    if plan.count(Action.REPLACE):
        parts.append(f"{plan.count(Action.REPLACE)} to replace")
    if plan.count(Action.CLEANUP):
        parts.append(f"{plan.count(Action.CLEANUP)} cleanup pending")
    parts.append(f"{plan.count(Action.UNCHANGED)} unchanged")
    if plan.count(Action.SKIP):
        parts.append(f"{plan.count(Action.SKIP)} skipped")
    return "Plan: " + ", ".join(parts)


def value_text(value: Any) -> str:
    """A field value as JSON, shortened to one readable line."""
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= _VALUE_WIDTH else text[: _VALUE_WIDTH - 3] + "..."


def change_text(change: FieldChange) -> str:
    """`spec.replicas: 5 -> 3 (changed by kubectl-scale)`."""
    before = "(none)" if change.op == "add" else value_text(change.before)
    after = "(none)" if change.op == "remove" else value_text(change.after)
    who = f" (changed by {', '.join(change.managers)})" if change.managers else ""
    return f"{change.path}: {before} -> {after}{who}"


def entry_lines(entry: PlanEntry, style: Style) -> list[str]:
    """One line for the object, then one per changed field or owned object."""
    symbol, colour = _SYMBOLS[entry.action]
    reason = f" ({entry.reason})" if entry.reason else ""
    lines = [style.paint(f"{symbol} {entry.key.display}: {entry.action}", colour) + reason]
    if entry.action in (Action.UPDATE, Action.REPLACE):
        lines += [f"    {change_text(change)}" for change in entry.changes]
    lines += [f"    deletes {owned.key.display} during cleanup" for owned in entry.owned]
    return lines


def plan_text(plan: Plan, style: Style | None = None, *, show_unchanged: bool = False) -> str:
    """The plan for a terminal or a log, ending with the summary line."""
    style = style or Style()
    lines: list[str] = []
    for entry in plan.entries:
        if show_unchanged or entry.action is not Action.UNCHANGED:
            lines += entry_lines(entry, style)
    lines += [style.paint(f"refused: {refusal}", "red") for refusal in plan.refusals]
    lines += ["", style.paint(plan_summary(plan), "bold")] if lines else [plan_summary(plan)]
    return "\n".join(lines) + "\n"


def plan_json(plan: Plan) -> str:
    """The plan as stable JSON (keys documented in the module docstring)."""
    document = {
        "revision": plan.revision,
        "summary": {str(action): plan.count(action) for action in Action},
        "refusals": list(plan.refusals),
        "objects": [_entry_json(entry) for entry in plan.entries],
    }
    return json.dumps(document, indent=2) + "\n"


def _entry_json(entry: PlanEntry) -> dict[str, Any]:
    return {
        "kind": entry.key.kind,
        "namespace": entry.key.namespace,
        "name": entry.key.name,
        "action": str(entry.action),
        "reason": entry.reason,
        "managers": list(entry.managers),
        "owner": entry.owner.display if entry.owner else None,
        "error": entry.error,
        "patch": list(entry.patch),
    }


def plan_markdown(plan: Plan) -> str:
    """The plan as a pull-request comment: summary, a table of changes, field details."""
    changing = [entry for entry in plan.entries if entry.action is not Action.UNCHANGED]
    lines = ["### driftctl plan", "", f"**{plan_summary(plan)}**", ""]
    lines += [f"> :warning: {refusal}" for refusal in plan.refusals]
    if not changing:
        return "\n".join([*lines, "No changes: the cluster matches Git.", ""])
    lines += ["| object | action | reason |", "|---|---|---|"]
    lines += [_row(entry) for entry in changing]
    for entry in changing:
        lines += _details(entry)
    return "\n".join(lines) + "\n"


def _row(entry: PlanEntry) -> str:
    reason = entry.reason.replace("|", "\\|")
    return f"| `{entry.key.display}` | {entry.action} | {reason} |"


def _details(entry: PlanEntry) -> list[str]:
    if not entry.changes or entry.action not in (Action.UPDATE, Action.REPLACE):
        return []
    count = len(entry.changes)
    summary = f"{entry.key.display}: {count} field{'s' if count != 1 else ''}"
    body = [f"~ {change_text(change)}" for change in entry.changes]
    return ["", f"<details><summary>{summary}</summary>", "", "```diff", *body, "```", "</details>"]


def outcome_summary(outcomes: Sequence[ObjectOutcome]) -> str:
    """`Apply: 1 created, 2 configured, 0 deleted, 5 unchanged, 0 skipped, 0 failed`."""
    counts = dict.fromkeys(Outcome, 0)
    for item in outcomes:
        counts[item.outcome] += 1
    order = (Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED, Outcome.UNCHANGED)
    parts = [f"{counts[o]} {o}" for o in (*order, Outcome.SKIPPED, Outcome.FAILED)]
    return "Apply: " + ", ".join(parts)


_OUTCOME_COLOURS = {
    Outcome.CREATED: "green",
    Outcome.CONFIGURED: "yellow",
    Outcome.DELETED: "red",
    Outcome.UNCHANGED: "dim",
    Outcome.SKIPPED: "cyan",
    Outcome.FAILED: "red",
}


def outcome_line(item: ObjectOutcome, style: Style | None = None) -> str:
    """`configured Deployment/web/shop` or `failed WebApp/web/shop: reason`."""
    style = style or Style()
    reason = f": {item.reason}" if item.reason else ""
    return (
        style.paint(str(item.outcome), _OUTCOME_COLOURS[item.outcome])
        + f" {item.key.display}{reason}"
    )


def status_line(key: ObjectKey, status: dict[str, Any], style: Style | None = None) -> str:
    """`status WebApp/web/shop: ready (2 available)`, or not ready with the Ready message."""
    style = style or Style()
    available = status.get("available_replicas", 0)
    if status.get("ready"):
        return f"{style.paint('status', 'blue')} {key.display}: ready ({available} available)"
    ready = [cond for cond in status.get("conditions") or [] if cond.get("type") == "Ready"]
    why = f": {ready[0].get('message')}" if ready and ready[0].get("message") else ""
    return f"{style.paint('status', 'blue')} {key.display}: not ready ({available} available){why}"


def outcomes_json(outcomes: Sequence[ObjectOutcome]) -> str:
    """Apply outcomes as stable JSON (keys documented in the module docstring)."""
    summary = {str(o): sum(1 for item in outcomes if item.outcome is o) for o in Outcome}
    objects = [
        {
            "kind": item.key.kind,
            "namespace": item.key.namespace,
            "name": item.key.name,
            "outcome": str(item.outcome),
            "reason": item.reason,
        }
        for item in outcomes
    ]
    return json.dumps({"summary": summary, "objects": objects}, indent=2) + "\n"
