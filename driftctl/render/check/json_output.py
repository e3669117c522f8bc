"""The check report as one JSON object, for programs: the keys are documented in
docs/reference/json-output.md and never renamed (JSON_VERSION is bumped only if a key
changes meaning). Pure: returns a string, prints nothing.
"""

from __future__ import annotations

import json
from typing import Any

from driftctl.core.planning.built_changes import BuiltChange
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.check import CATEGORIES, CheckedField, CheckedObject, CheckReport, Side
from driftctl.core.source.signatures import Verdict
from driftctl.render.offline import problem_json

JSON_VERSION = 1  # bumped only if a key changes meaning; new keys may be added


def check_json(report: CheckReport) -> str:
    """The whole report as one JSON object (keys documented in docs/reference/json-output.md)."""
    return json.dumps(check_document(report), indent=2) + "\n"


def check_document(report: CheckReport) -> dict[str, Any]:
    """The report as the JSON object `check_json` prints (each target's, across targets)."""
    cluster = report.cluster
    return {
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
