"""Sequencing of `check`: the pre-merge report of what merging a pull request does.

Offline, always: the base loaded and validated, the head validated (its problems are part
of the report, not an error), the change between them. With a cluster: its live state read
once (LIST pages), the plans at head and at base made against it, and each object of the
head's plan put in its category (core.planning.check), both through the engine's plan
sequence (pipeline.engine). Read-only: no lock, no write; the only requests are the LIST
pages, the instance's Lease (its suspension), the extra reads of both sides at once, and
the dry-runs of each side's candidates (a base candidate that would send what the head's
sends reuses its answer). Decides nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from driftctl.core.planning.built_changes import deployment_changes, webapp_changes
from driftctl.core.planning.check import (
    CheckReport,
    ClusterCheck,
    Side,
    categorize,
)
from driftctl.core.planning.commit_diff import diff_commits
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.desired_state import DesiredState, Revision
from driftctl.core.source.signatures import Verdict
from driftctl.errors import InvalidDesiredState
from driftctl.pipeline import trust
from driftctl.pipeline.engine import Goal, make_plans
from driftctl.pipeline.offline import load_desired, validate_source
from driftctl.pipeline.runs import Notice, lease_of, open_cluster, situation_read
from driftctl.settings import CheckRequest


def check(request: CheckRequest, *, environ: Mapping[str, str], notice: Notice) -> CheckReport:
    """The `check` command: validation, the change, (with --verify) who signed each commit
    of the pull request, and (with a cluster) what merging does."""
    base_source = request.source.at(request.refs.base)
    head_source = request.source.at(request.refs.head)
    try:
        base = load_desired(base_source, environ)
    except InvalidDesiredState as invalid:
        raise InvalidDesiredState(invalid.problems, side="base") from None
    validated = validate_source(head_source, environ)
    # What apply would refuse with --target-namespaces is as invalid as what it cannot read.
    cluster = request.cluster
    problems = validated.problems or tuple(out_of_scope(validated.webapps, cluster.namespaces))
    commits = _commits(request, base.revision, validated.revision, environ)
    report = CheckReport(
        Side(base_source.ref or "working tree", base.revision),
        Side(head_source.ref or "working tree", validated.revision),
        cluster.instance,
        frozenset(request.check.fail_on),
        problems=problems,
        warnings=validated.warnings,
        commits=commits,
    )
    if problems:
        return report
    head = DesiredState(validated.webapps, validated.warnings, validated.revision)
    diff = diff_commits(base.webapps, head.webapps)
    reads = request.check.reads_cluster(cluster)
    return replace(
        report,
        diff=diff,
        webapps=webapp_changes(diff),
        deployments=deployment_changes(diff, cluster.instance),
        cluster=against_cluster(base, head, request, notice) if reads else None,
    )


def _commits(
    request: CheckRequest, base: Revision, head: Revision, environ: Mapping[str, str]
) -> tuple[Verdict, ...] | None:
    """With --verify, each commit of the pull request with the verdict on its signature."""
    if not request.verify.enabled:
        return None
    head_source = request.source.at(request.refs.head)
    return trust.pull_request(
        head_source, base, head, request.verify, base_ref=request.refs.base, environ=environ
    )


def against_cluster(
    base: DesiredState, head: DesiredState, request: CheckRequest, notice: Notice
) -> ClusterCheck:
    """Both sides planned against one reading of the live state (and of the instance's
    Lease: a suspension), head's objects categorized.

    Head first: the base reuses its dry-run answers where it would send the same; a removal
    of fields set outside Git does not depend on Git, so each side asks its own.
    """
    cluster, policy, drift = request.cluster, request.policy, request.drift
    kube = open_cluster(cluster, notice)
    situation = situation_read(kube, lease_of(cluster, request.lock), notice)
    sides = [Goal(head, policy, drift), Goal(base, policy, drift)]
    at_head, at_base = make_plans(kube, cluster, sides, situation=situation).plans
    return categorize(at_head, at_base)
