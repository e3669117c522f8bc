"""Sequencing of `check`: the pre-merge report of what merging a pull request does.

Offline, always: the base loaded and validated, the head validated (its problems are part
of the report, not an error), the change between them. With a cluster: its live state read
once (LIST pages), the plans at head and at base made against it, and each object of the
head's plan put in its category (core.planning.check), both through the engine's plan
sequence (pipeline.engine). Read-only: no lock, no write; the only requests are the LIST
pages, the extra reads of both sides at once, and the dry-runs of each side's candidates (a
base candidate that would send what the head's sends reuses its answer). Decides nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from driftctl.core.planning.built_changes import deployment_changes, webapp_changes
from driftctl.core.planning.check import (
    CheckReport,
    ClusterCheck,
    Side,
    categorize,
)
from driftctl.core.planning.commit_diff import diff_commits
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import InvalidDesiredState
from driftctl.pipeline import trust
from driftctl.pipeline.engine import Goal, Notice, make_plans, open_cluster
from driftctl.pipeline.offline import load_desired, validate_source
from driftctl.settings import NO_VERIFY, Check, Cluster, Drift, Policy, Source, Verify


def check(
    base_source: Source,
    head_source: Source,
    cluster: Cluster,
    policy: Policy,
    settings: Check,
    *,
    drift: Drift | None = None,
    verify: Verify = NO_VERIFY,
    environ: Mapping[str, str],
    notice: Notice,
) -> CheckReport:
    """The `check` command: validation, the change, (with --verify) who signed each commit
    of the pull request, and (with a cluster) what merging does."""
    try:
        base = load_desired(base_source, environ)
    except InvalidDesiredState as invalid:
        raise InvalidDesiredState(invalid.problems, side="base") from None
    validated = validate_source(head_source, environ)
    # What apply would refuse with --target-namespaces is as invalid as what it cannot read.
    problems = validated.problems or tuple(out_of_scope(validated.webapps, cluster.namespaces))
    commits = None
    if verify.enabled:
        commits = trust.pull_request(
            head_source,
            base.revision,
            validated.revision,
            verify,
            base_ref=base_source.ref,
            environ=environ,
        )
    report = CheckReport(
        Side(base_source.ref or "working tree", base.revision),
        Side(head_source.ref or "working tree", validated.revision),
        cluster.instance,
        settings.fail_on,
        problems=problems,
        warnings=validated.warnings,
        commits=commits,
    )
    if problems:
        return report
    head = DesiredState(validated.webapps, validated.warnings, validated.revision)
    diff = diff_commits(base.webapps, head.webapps)
    return CheckReport(
        report.base,
        report.head,
        report.instance,
        report.fail_on,
        warnings=report.warnings,
        diff=diff,
        webapps=webapp_changes(diff),
        deployments=deployment_changes(diff, cluster.instance),
        cluster=against_cluster(base, head, cluster, policy, notice, drift=drift or Drift())
        if settings.reads_cluster(cluster)
        else None,
        commits=commits,
    )


def against_cluster(
    base: DesiredState,
    head: DesiredState,
    cluster: Cluster,
    policy: Policy,
    notice: Notice,
    *,
    drift: Drift,
) -> ClusterCheck:
    """Both sides planned against one reading of the live state, head's objects categorized.

    Head first: the base reuses its dry-run answers where it would send the same; a removal
    of fields set outside Git does not depend on Git, so each side asks its own.
    """
    kube = open_cluster(cluster, notice)
    sides = [Goal(head, policy, drift), Goal(base, policy, drift)]
    at_head, at_base = make_plans(kube, cluster, sides).plans
    return categorize(at_head, at_base)
