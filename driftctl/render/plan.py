"""Plans and apply outcomes as text, JSON and Markdown. Pure: returns strings, prints nothing.

Objects are always named `Kind/namespace/name`. Values are shown masked where they look
secret (core.planning.redaction): a plan may be posted where many read it. Text is for a
terminal or a CronJob log; unchanged objects are counted in the summary, listed only when
asked.

JSON of a plan (stable; keys in this order, objects in the order they are acted on):
    revision   the Git commit the plan was computed at
    summary    {action: count} for every verb, in the order of core.planning.verbs.Verb
               (create, update, unchanged, prune, cleanup, replace, skip, conflict, hold,
               orphan, quarantine, confirm)
    refusals   guard messages (e.g. too many deletions for --max-prune)
    suspended  why the whole instance is suspended (nothing is written), or null
    lifted     the windows the plan goes through (--override-windows): [{webapp, note}]
    objects    one per object: kind, namespace, name, action, reason, managers (other
               field managers of changed fields), owner (the WebApp whose uid a new
               Deployment still needs, or null), error (a refused dry-run, or null),
               held: {would, control} for a hold (the verb it holds, and which kind of
               control: instance, suspend, changes, drift, window, removal), or null,
               patch: the RFC 6902 JSON Patch from the live object to the result
               (from {} for create; empty for prune and cleanup; server bookkeeping such
               as managedFields, resourceVersion and status left out), ignored: fields
               kept as the cluster has them [{field, reason, live, git, held}] (held:
               the control that holds it, null for an ignored field), fights:
               [{field, managers, corrected}] (runs in a row corrected before), and
               foreign: other managers' fields [{field, managers, value}] (with
               --show-foreign, else empty)

JSON of apply outcomes:
    summary    {outcome: count} for created, configured, unchanged, deleted, skipped, failed,
               held, orphaned, waiting (a removal waiting for a person's approval)
    refusals   guard messages, as in a plan (the prunes they kept are `skipped`)
    objects    one per object: kind, namespace, name, outcome, reason
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Create,
    Held,
    Orphan,
    Plan,
    Prune,
    Refused,
    Unchanged,
    Update,
    changes_of,
    foreign_of,
    kept_of,
    patch_of,
)
from driftctl.core.planning.changes import FieldChange, Foreign, Kept, managers_of
from driftctl.core.planning.manifests import selector_text
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.planning.redaction import masked, masked_patch
from driftctl.core.planning.saved_plan import SavedPlan
from driftctl.core.planning.verbs import MEANINGS, Verb, counted, meaning
from driftctl.render.style import Style

_VALUE_WIDTH = 80


def plan_summary(plan: Plan) -> str:
    """`Plan: 2 to create, 1 to update, 0 to prune, 5 unchanged` (+ rarer actions if any),
    in the order of core.planning.verbs' table."""
    counts = {verb: plan.count(verb) for verb in MEANINGS}
    parts = [
        counted(verb, count)
        for verb, count in counts.items()
        if count or MEANINGS[verb].always_counted
    ]
    return "Plan: " + ", ".join(parts)


def value_text(value: Any, name: str = "") -> str:
    """A field value as JSON, secret-like members masked, shortened to one readable line."""
    text = json.dumps(masked(value, name), sort_keys=True)
    return text if len(text) <= _VALUE_WIDTH else text[: _VALUE_WIDTH - 3] + "..."


def change_text(change: FieldChange) -> str:
    """`spec.replicas: 5 -> 3 (changed by kubectl-scale)`, or with the plan's note."""
    before = "(none)" if change.op == "add" else _changed_value(change.before, change.path)
    after = "(none)" if change.op == "remove" else _changed_value(change.after, change.path)
    if change.note:
        who = f" ({change.note})"
    else:
        who = f" (changed by {', '.join(change.managers)})" if change.managers else ""
    return f"{change.path}: {before} -> {after}{who}"


def _changed_value(value: Any, path: str) -> str:
    """A changed value; a selector and an ownerReference as people read them
    (`app=shop`, `WebApp/shop controller blockOwnerDeletion`), the rest as JSON."""
    if isinstance(value, dict) and path.endswith("selector"):
        return selector_text(value)
    if isinstance(value, dict) and path.startswith("metadata.ownerReferences["):
        return owner_text(value)
    return value_text(value, path)


def owner_text(ref: dict[str, Any]) -> str:
    """An ownerReference in a line: `WebApp/shop controller blockOwnerDeletion`, with the
    flags it sets (an apiVersion other than its kind's usual one is said too)."""
    flags = [name for name in ("controller", "blockOwnerDeletion") if ref.get(name) is True]
    words = [f"{ref.get('kind')}/{ref.get('name')}", *flags]
    if ref.get("apiVersion") not in (None, "example.com/v1", "apps/v1"):
        words.append(f"({ref.get('apiVersion')})")
    return " ".join(words)


def foreign_text(field: Foreign) -> str:
    """`metadata.annotations.team: "a" (set by ops-bot, not in Git; left alone)`."""
    who = ", ".join(field.managers)
    shown = value_text(field.value, field.path)
    return f"{field.path}: {shown} (set by {who}, not in Git; left alone)"


def action_lines(action: Action, style: Style) -> list[str]:
    """One line for the object, then one per changed, kept or foreign field or owned object."""
    row = meaning(action.verb)
    reason = f" ({_reason(action)})" if action.reason else ""
    lines = [style.paint(f"{row.symbol} {action.key.display}: {action.verb}", row.colour) + reason]
    lines += [f"    {change_text(change)}" for change in changes_of(action)]
    lines += [f"    {kept_text(kept)}" for kept in kept_of(action)]
    lines += [f"    {foreign_text(field)}" for field in foreign_of(action)]
    if isinstance(action, Prune | Cleanup):
        lines += [f"    deletes {owned.key.display} during cleanup" for owned in action.owned]
    if isinstance(action, Orphan):
        lines += [f"    releases {each.key.display}: it stays" for each in action.released]
    return lines


def _reason(action: Action) -> str:
    """Why: for a hold, what it holds first (`update held: suspended until ...`)."""
    if isinstance(action, Held):
        return f"{action.would} held: {action.reason}"
    return action.reason


def kept_text(kept: Kept) -> str:
    """`spec.replicas kept: scaled by HorizontalPodAutoscaler/web/shop (3 here, 2 in Git)`;
    a held field says `held` (the cluster differs from Git, and the run says so)."""
    git = "not in Git" if kept.git is None else f"{value_text(kept.git, kept.path)} in Git"
    verb = "held" if kept.held else "kept"
    return f"{kept.path} {verb}: {kept.reason} ({value_text(kept.live, kept.path)} here, {git})"


def notices(plan: Plan) -> list[str]:
    """What a plan says before its objects: the instance's suspension; and after them, the
    windows it goes through."""
    if plan.suspended:
        return [f"{plan.suspended}: nothing is written"]
    return []


def lifted_lines(plan: Plan) -> list[str]:
    """`through: WebApp/web/shop: inside the deny window ... overridden by --override-windows`."""
    return [
        f"through a window: {c.object_ref(c.KIND, *place)}: {note}"
        for place, note in sorted(plan.lifted.items())
    ]


def _shown(action: Action, show_unchanged: bool) -> bool:
    """Unchanged objects are shown when asked, or when they keep or hold others' fields."""
    return (
        show_unchanged
        or not isinstance(action, Unchanged)
        or bool(kept_of(action) or foreign_of(action))
    )


def plan_text(
    plan: Plan,
    style: Style | None = None,
    *,
    show_unchanged: bool = False,
    only_summary: bool = False,
) -> str:
    """The plan for a terminal or a log, ending with the summary line (`only_summary`: the
    guards' refusals and that line alone, for -q)."""
    style = style or Style()
    lines: list[str] = [] if only_summary else [style.paint(line, "cyan") for line in notices(plan)]
    for action in () if only_summary else plan.actions:
        if _shown(action, show_unchanged):
            lines += action_lines(action, style)
    lines += [style.paint(line, "yellow") for line in lifted_lines(plan)]
    lines += [style.paint(f"refused: {refusal}", "red") for refusal in plan.refusals]
    lines += ["", style.paint(plan_summary(plan), "bold")] if lines else [plan_summary(plan)]
    return "\n".join(lines) + "\n"


def plan_json(plan: Plan) -> str:
    """The plan as stable JSON (keys documented in the module docstring)."""
    document = {
        "revision": plan.revision,
        "summary": {str(verb): plan.count(verb) for verb in Verb},
        "refusals": list(plan.refusals),
        "suspended": plan.suspended or None,
        "lifted": [
            {"webapp": c.object_ref(c.KIND, *place), "note": note}
            for place, note in sorted(plan.lifted.items())
        ],
        "objects": [_action_json(action) for action in plan.actions],
    }
    return json.dumps(document, indent=2) + "\n"


def _action_json(action: Action) -> dict[str, Any]:
    owner = action.owner if isinstance(action, Create | Update) else None
    return {
        "kind": action.key.kind,
        "namespace": action.key.namespace,
        "name": action.key.name,
        "action": str(action.verb),
        "reason": action.reason,
        "managers": list(managers_of(changes_of(action))),
        "owner": owner.display if owner else None,
        "error": action.error if isinstance(action, Refused) else None,
        "patch": masked_patch(patch_of(action)),
        "held": {"would": str(action.would), "control": str(action.control)}
        if isinstance(action, Held)
        else None,
        "ignored": [
            {
                "field": k.path,
                "reason": k.reason,
                "live": masked(k.live, k.path),
                "git": masked(k.git, k.path),
                "held": k.held or None,
            }
            for k in kept_of(action)
        ],
        "fights": [
            {"field": ch.path, "managers": list(ch.managers), "corrected": ch.corrected}
            for ch in changes_of(action)
            if ch.corrected
        ],
        "foreign": [
            {"field": f.path, "managers": list(f.managers), "value": masked(f.value, f.path)}
            for f in foreign_of(action)
        ],
    }


def plan_markdown(plan: Plan) -> str:
    """The plan as a pull-request comment: summary, a table of changes, field details."""
    changing = [action for action in plan.actions if _shown(action, False)]
    lines = ["### driftctl plan", "", f"**{plan_summary(plan)}**", ""]
    lines += [f"> :pause_button: {line}" for line in [*notices(plan), *lifted_lines(plan)]]
    lines += [f"> :warning: {refusal}" for refusal in plan.refusals]
    if not changing:
        return "\n".join([*lines, "No changes: the cluster matches Git.", ""])
    lines += ["| object | action | reason |", "|---|---|---|"]
    lines += [_row(action) for action in changing]
    for action in changing:
        lines += _details(action)
    return "\n".join(lines) + "\n"


def _row(action: Action) -> str:
    reason = _reason(action).replace("|", "\\|")
    return f"| `{action.key.display}` | {action.verb} | {reason} |"


def _details(action: Action) -> list[str]:
    changes = changes_of(action)
    body = [f"~ {change_text(change)}" for change in changes]
    body += [f"= {kept_text(kept)}" for kept in kept_of(action)]
    body += [f"  {foreign_text(field)}" for field in foreign_of(action)]
    if not body:
        return []
    count = len(body)
    summary = f"{action.key.display}: {count} field{'s' if count != 1 else ''}"
    return ["", f"<details><summary>{summary}</summary>", "", "```diff", *body, "```", "</details>"]


def outcome_summary(outcomes: Sequence[ObjectOutcome]) -> str:
    """`Apply: 1 created, 2 configured, 0 deleted, 5 unchanged, 0 skipped, 0 failed`."""
    counts = dict.fromkeys(Outcome, 0)
    for item in outcomes:
        counts[item.outcome] += 1
    order = (Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED, Outcome.UNCHANGED)
    parts = [f"{counts[o]} {o}" for o in (*order, Outcome.SKIPPED, Outcome.FAILED)]
    parts += [f"{counts[o]} {o}" for o in (Outcome.ORPHANED, Outcome.HELD) if counts[o]]
    if counts[Outcome.WAITING]:
        parts.append(f"{counts[Outcome.WAITING]} waiting for approval")
    return "Apply: " + ", ".join(parts)


def rollout_summary(report: ApplyReport) -> str:
    """`Rollouts: 1 complete, 1 stalled, 0 timed out (of 2 waited for)` (apply --wait)."""
    waited = report.waited or frozenset()
    states = [state for key, state in report.rollouts if key in waited]
    counts = {state: states.count(state) for state in RolloutState}
    shown = (RolloutState.COMPLETE, RolloutState.STALLED, RolloutState.TIMED_OUT)
    parts = ", ".join(f"{counts[state]} {str(state).replace('_', ' ')}" for state in shown)
    return f"Rollouts: {parts} (of {len(waited)} waited for)"


_OUTCOME_COLOURS = {
    Outcome.CREATED: "green",
    Outcome.CONFIGURED: "yellow",
    Outcome.DELETED: "red",
    Outcome.UNCHANGED: "dim",
    Outcome.SKIPPED: "cyan",
    Outcome.FAILED: "red",
    Outcome.HELD: "cyan",
    Outcome.ORPHANED: "red",
    Outcome.WAITING: "yellow",
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
    """`status WebApp/web/shop: ready (2 available)`; or `stalled` (waiting will not fix it)
    or `not ready`, with the Ready condition's message (the Pod and its reason, or the
    rollout's figures)."""
    style = style or Style()
    available = status.get("available_replicas", 0)
    head = f"{style.paint('status', 'blue')} {key.display}"
    if status.get("ready"):
        return f"{head}: ready ({available} available)"
    stalled = any(
        cond.get("type") == "Stalled" and cond.get("status") == "True"
        for cond in status.get("conditions") or []
    )
    state = style.paint("stalled", "red") if stalled else "not ready"
    message = ready_message(status)
    why = f": {message}" if message else ""
    return f"{head}: {state} ({available} available){why}"


def ready_message(status: dict[str, Any]) -> str:
    """The message of a status's Ready condition ("" when it has none)."""
    ready = [cond for cond in status.get("conditions") or [] if cond.get("type") == "Ready"]
    return str(ready[0].get("message") or "") if ready else ""


def unlocked_line(lease: str, holder: str | None) -> str:
    """What `unlock` did: `unlocked Lease ns/driftctl-x (it was held by h)`."""
    return f"unlocked {lease} (it was held by {holder})" if holder else f"{lease} was not held"


def outcomes_json(outcomes: Sequence[ObjectOutcome], refusals: Sequence[str]) -> str:
    """Apply outcomes and the guards' refusals as stable JSON (keys documented in the
    module docstring)."""
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
    document = {"summary": summary, "refusals": list(refusals), "objects": objects}
    return json.dumps(document, indent=2) + "\n"


def saved_plan_header(saved: SavedPlan, file: str) -> str:
    """What a saved plan was made for, before its actions (`driftctl show`)."""
    who = saved.identity
    policy = saved.policy
    limit = "half the managed" if policy.max_prune is None else str(policy.max_prune)
    rules = [
        "prune" if policy.prune else "no prune (--no-prune)",
        f"--max-prune {limit}",
        *(["--allow-empty"] if policy.allow_empty else []),
        *(["--recreate"] if policy.recreate else []),
    ]
    return "\n".join(
        [
            f"Saved plan {file}: instance {who.instance} ({who.shard}), field manager "
            f"{who.field_manager}",
            f"Source: {who.source} at {who.commit} (WebApps without a namespace: {who.namespace})",
            f"Policy: {', '.join(rules)}",
            "",
        ]
    )
