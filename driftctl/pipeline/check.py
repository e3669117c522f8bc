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

from driftctl.core.planning.actions import Preparation
from driftctl.core.planning.built_changes import deployment_changes, webapp_changes
from driftctl.core.planning.check import (
    CheckReport,
    ClusterCheck,
    Side,
    categorize,
    shared_answers,
)
from driftctl.core.planning.commit_diff import diff_commits
from driftctl.core.planning.lookups import lookups
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.plan import finish, prepare
from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import InvalidDesiredState
from driftctl.pipeline.cluster import Notice, open_cluster
from driftctl.pipeline.offline import load_desired, validate_source
from driftctl.settings import Check, Cluster, Drift, Policy, Source
from driftctl.shell.apply import dry_run, dry_run_removals
from driftctl.shell.live_state import read_found, read_live


def check(
    base_source: Source,
    head_source: Source,
    cluster: Cluster,
    policy: Policy,
    settings: Check,
    *,
    drift: Drift | None = None,
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
        cluster=against_cluster(base, head, cluster, policy, notice, drift=drift or Drift())
        if settings.reads_cluster(cluster)
        else None,
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
    """Both sides planned against one reading of the live state, head's objects categorized."""
    kube = open_cluster(cluster, notice)
    manager, concurrency = cluster.field_manager, cluster.concurrency
    live = read_live(kube, cluster.instance, namespaces=cluster.namespaces)
    both = [*head.webapps, *base.webapps]
    needed = lookups(both, live, manager)
    live = read_found(kube, live, needed, cluster.instance, namespaces=cluster.namespaces)

    def planned(side: DesiredState) -> Preparation:
        stamp = Stamp.of(side, cluster.instance)
        return prepare(side.webapps, live, stamp, policy, manager=manager, drift=drift)

    at_head, at_base = planned(head), planned(base)
    head_answers = dry_run(kube, at_head.candidates, manager, concurrency)
    reused, remaining = shared_answers(at_base.candidates, at_head.candidates, head_answers)
    base_answers = {**reused, **dry_run(kube, remaining, manager, concurrency)}
    # A removal of fields set outside Git does not depend on Git: each side asks its own.
    head_removed = dry_run_removals(kube, at_head.candidates, manager, concurrency)
    base_removed = dry_run_removals(kube, at_base.candidates, manager, concurrency)
    return categorize(
        finish(at_head, head_answers, head_removed), finish(at_base, base_answers, base_removed)
    )
