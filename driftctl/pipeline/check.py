"""Sequencing of `check`: the pre-merge report of what merging a pull request does.

Offline, always: the base loaded and validated, the head validated (its problems are part
of the report, not an error), the change between them. With a cluster: its live state read
once (LIST pages), the plans at head and at base made against it, and each object of the
head's plan put in its category (core.planning.check). Read-only: no lock, no write; the
only requests are the LIST pages and the dry-runs of each side's candidates (a base
candidate that would send what the head's sends reuses its answer). Decides nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from driftctl.core.planning.built_changes import deployment_changes, webapp_changes
from driftctl.core.planning.check import (
    CheckReport,
    ClusterCheck,
    Side,
    categorize,
    shared_answers,
)
from driftctl.core.planning.commit_diff import diff_commits
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.plan import finish, prepare
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import InvalidDesiredState
from driftctl.pipeline.cluster import Notice, open_cluster
from driftctl.pipeline.offline import load_desired, validate_source
from driftctl.settings import Check, Cluster, Policy, Source
from driftctl.shell.apply import dry_run
from driftctl.shell.live_state import read_live


def check(
    base_source: Source,
    head_source: Source,
    cluster: Cluster,
    policy: Policy,
    settings: Check,
    *,
    environ: Mapping[str, str],
    notice: Notice,
) -> CheckReport:
    """The `check` command: validation, the change, and (with a cluster) what merging does."""
    try:
        base = load_desired(base_source, environ)
    except InvalidDesiredState as invalid:
        raise InvalidDesiredState(invalid.problems, side="base") from None
    validated = validate_source(head_source, environ)
    # What apply would refuse with --target-namespaces is as invalid as what it cannot read.
    problems = validated.problems or tuple(out_of_scope(validated.webapps, cluster.namespaces))
    report = CheckReport(
        Side(base_source.ref or "working tree", base.revision),
        Side(head_source.ref or "working tree", validated.revision),
        cluster.instance,
        settings.fail_on,
        problems=problems,
        warnings=validated.warnings,
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
        cluster=against_cluster(base, head, cluster, policy, notice)
        if settings.reads_cluster(cluster)
        else None,
    )


def against_cluster(
    base: DesiredState, head: DesiredState, cluster: Cluster, policy: Policy, notice: Notice
) -> ClusterCheck:
    """Both sides planned against one reading of the live state, head's objects categorized."""
    kube = open_cluster(cluster, notice)
    live = read_live(kube, cluster.instance, namespaces=cluster.namespaces)
    manager, concurrency = cluster.field_manager, cluster.concurrency
    at_head = prepare(head.webapps, live, Stamp.of(head, cluster.instance), policy, manager)
    at_base = prepare(base.webapps, live, Stamp.of(base, cluster.instance), policy, manager)
    head_answers = dry_run(kube, at_head.candidates, manager, concurrency)
    reused, remaining = shared_answers(at_base.candidates, at_head.candidates, head_answers)
    base_answers = {**reused, **dry_run(kube, remaining, manager, concurrency)}
    return categorize(finish(at_head, head_answers), finish(at_base, base_answers))
