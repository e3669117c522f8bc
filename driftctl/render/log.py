"""A run's log as JSON lines, for a log pipeline to index. Pure: returns strings, prints nothing.

One JSON object per line (`--log-format json`). Every line starts with these keys:
    time          RFC 3339 in UTC, milliseconds: 2026-11-30T10:30:00.123Z
    level         info, warning or error
    message       what a person reads: the same words as the text output
    event         what the line is about (below)
    instance      the --instance; shard and shard_count: this run's shard (0 and 1 unsharded)
    revision      the Git commit the run applies (null until the desired state is read)
and then the event's own keys:
    object        kind, namespace, name; `action` (plan) or `outcome` (apply); reason
    status        kind, namespace, name, ready, available_replicas, rollout (complete,
                  progressing, stalled), ready_reason and ready_message: its Ready
                  condition's (a WebApp status written; a warning when stalled: the Pod
                  and its reason)
    retry         a transient failure retried (message only)
    watch         what `watch` does besides its objects: serving, leading, standby, Git
                  moved, a full pass, stopped (message only)
    refusal       a prune guard refused (message only)
    warning       something that did not stop the run: a skipped document, a failed push
    error         the run stopped: exit_code, hint, problems (file:line:column: reason)
    summary       the last line of every run: exit_code, duration_seconds, and `actions`
                  (plan) or `outcomes` (apply) as {name: count}, or null when the run
                  stopped before it had any; apply adds `rollouts`: {complete,
                  progressing, stalled, timed_out: count}, each WebApp's rollout as the
                  run last saw it (timed_out: apply --wait ran out of time)
Unchanged objects are counted in the summary, not logged one by one.

Secrets: every message already comes redacted from where it was made (URLs without
credentials, git's messages without the token); as a last line of defence each string
value is passed through core.source.repo_url.redact_text with the run's secrets.
"""

from __future__ import annotations

import datetime
import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from driftctl.core.planning.actions import Action, Plan
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.planning.status import state_of
from driftctl.core.planning.verbs import Verb, meaning
from driftctl.core.source.repo_url import redact_text
from driftctl.errors import DriftctlError, InvalidDesiredState
from driftctl.render import plan as plan_render
from driftctl.render.style import Style


class Level(enum.StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class LogContext:
    """What every line of one run carries: who ran, which shard, at which commit."""

    instance: str
    shard: int = 0
    shard_count: int = 1
    revision: str | None = None
    secrets: tuple[str, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class Record:
    """One log line before it is stamped with a time and the run's context."""

    level: Level
    event: str
    message: str
    fields: Mapping[str, Any] = field(default_factory=dict)


def json_line(record: Record, context: LogContext, time: datetime.datetime) -> str:
    """The record as one line of JSON (no newline), secrets redacted."""
    document: dict[str, Any] = {
        "time": _rfc3339_millis(time),
        "level": str(record.level),
        "message": record.message,
        "event": record.event,
        "instance": context.instance,
        "shard": context.shard,
        "shard_count": context.shard_count,
        "revision": context.revision,
        **record.fields,
    }
    return json.dumps(_redacted(document, context.secrets), ensure_ascii=False)


def _rfc3339_millis(moment: datetime.datetime) -> str:
    utc = moment.astimezone(datetime.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def _redacted(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {key: _redacted(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(item, secrets) for item in value]
    return value


# A person should look: a skip; a removal waiting for a person's approval
_OUTCOME_LEVELS = {
    Outcome.FAILED: Level.ERROR,
    Outcome.SKIPPED: Level.WARNING,
    Outcome.WAITING: Level.WARNING,
}


def outcome_record(item: ObjectOutcome) -> Record:
    """An object apply acted on: `configured Deployment/web/shop`."""
    return Record(
        _OUTCOME_LEVELS.get(item.outcome, Level.INFO),
        "object",
        plan_render.outcome_line(item),
        {**item.key.as_json(), "outcome": str(item.outcome), "reason": item.reason},
    )


def action_record(action: Action) -> Record:
    """An object plan decided on: `~ Deployment/web/shop: update (differs from Git)`."""
    # A skip or a refusal, and a conflict (another owner's object), are for a person to see.
    level = Level.WARNING if meaning(action.verb).warns else Level.INFO
    return Record(
        level,
        "object",
        plan_render.action_lines(action, Style())[0],
        {**action.key.as_json(), "action": str(action.verb), "reason": action.reason},
    )


def status_record(key: ObjectKey, status: Mapping[str, Any]) -> Record:
    """A WebApp status apply wrote: `status WebApp/web/shop: ready (2 available)`."""
    rollout = state_of(dict(status))
    ready = [c for c in status.get("conditions") or [] if c.get("type") == "Ready"]
    return Record(
        Level.WARNING if rollout is RolloutState.STALLED else Level.INFO,
        "status",
        plan_render.status_line(key, dict(status)),
        {
            **key.as_json(),
            "ready": bool(status.get("ready")),
            "available_replicas": status.get("available_replicas", 0),
            "rollout": str(rollout),
            "ready_reason": str(ready[0].get("reason", "")) if ready else "",
            "ready_message": plan_render.ready_message(dict(status)),
        },
    )


def retry_record(message: str) -> Record:
    """A transient failure about to be tried again."""
    return Record(Level.WARNING, "retry", message)


def watch_record(message: str) -> Record:
    """What `watch` does besides its objects: `leading: holds Lease ...`."""
    return Record(Level.INFO, "watch", message)


def refusal_record(message: str) -> Record:
    """A prune guard refused the run's prunes."""
    return Record(Level.ERROR, "refusal", f"refused: {message}")


def warning_record(message: str) -> Record:
    """Something a person should know that did not stop the run."""
    return Record(Level.WARNING, "warning", message)


def error_record(error: DriftctlError) -> Record:
    """What stopped the run, with its exit code, hint and every problem."""
    problems = [str(p) for p in error.problems] if isinstance(error, InvalidDesiredState) else []
    return Record(
        Level.ERROR,
        "error",
        error.message,
        {"exit_code": int(error.exit_code), "hint": error.hint, "problems": problems},
    )


def interrupted_record(exit_code: int) -> Record:
    return Record(Level.ERROR, "error", "interrupted", {"exit_code": exit_code, "hint": None})


def apply_summary(report: ApplyReport, duration: float) -> Record:
    """The last line of an apply: `Apply: 1 created, ...`, the counts, exit code, duration,
    and each WebApp's rollout as the run last saw it (`rollouts`, by state)."""
    outcomes = {str(outcome): report.count(outcome) for outcome in Outcome}
    rollouts = {str(state): report.count_rollouts(state) for state in RolloutState}
    message = plan_render.outcome_summary(report.outcomes)
    if report.waited is not None:
        message += "; " + plan_render.rollout_summary(report)
    return _summary(
        message,
        int(report.exit_code),
        duration,
        {"outcomes": outcomes, "refusals": len(report.refusals), "rollouts": rollouts},
    )


def plan_summary(plan: Plan, exit_code: int, duration: float) -> Record:
    """The last line of a plan: `Plan: 1 to create, ...`, the counts, exit code, duration."""
    actions = {str(verb): plan.count(verb) for verb in Verb}
    return _summary(
        plan_render.plan_summary(plan),
        exit_code,
        duration,
        {"actions": actions, "refusals": len(plan.refusals)},
    )


def stopped_summary(command: str, exit_code: int, duration: float) -> Record:
    """The last line of a run that stopped before it had outcomes (an error)."""
    key = "actions" if command == "plan" else "outcomes"
    return _summary(f"{command} stopped (exit {exit_code})", exit_code, duration, {key: None})


def _summary(message: str, exit_code: int, duration: float, counts: dict[str, Any]) -> Record:
    level = Level.INFO if exit_code in (0, 1) else Level.ERROR
    fields = {"exit_code": exit_code, "duration_seconds": round(duration, 3), **counts}
    return Record(level, "summary", message, fields)


def changing_actions(plan: Plan) -> Sequence[Action]:
    """The actions a plan's log lists one by one: all but the unchanged."""
    return [action for action in plan.actions if action.verb is not Verb.UNCHANGED]
