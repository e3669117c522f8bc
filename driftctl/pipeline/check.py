"""Sequencing of `check`: the pre-merge report of what merging a pull request does.

Offline, always: the base loaded and validated, the head validated (its problems are part
of the report, not an error), the change between them. With a cluster: its live state read
once (LIST pages), the plans at head and at base made against it, and each object of the
head's plan put in its category (core.planning.check), both through the engine's plan
sequence (pipeline.engine). Read-only: no lock, no write; the only requests are the LIST
pages, the instance's Lease (its suspension), the extra reads of both sides at once, and
the dry-runs of each side's candidates (a base candidate that would send what the head's
sends reuses its answer). Decides nothing.

Across several targets (`--target`): each target checked as a check of its own, with its
folder, its cluster and its instance; one cluster's state is never read through
another's client. A target whose cluster cannot be read (ClusterError) is a line of the
report, not the end of the check; the commits of the pull request (--verify) are judged
once, for every target.
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
from driftctl.core.planning.targets import TargetCheck, TargetsReport
from driftctl.core.source.desired_state import DesiredState, Revision
from driftctl.core.source.signatures import Verdict
from driftctl.errors import ClusterError, InvalidDesiredState
from driftctl.pipeline import trust
from driftctl.pipeline.engine import Goal, make_plans
from driftctl.pipeline.offline import load_desired, validate_source
from driftctl.pipeline.runs import Notice, lease_of, open_cluster, situation_read
from driftctl.settings import NO_VERIFY, TRUST_FAILURES, CheckRequest, Target


def check(request: CheckRequest, *, environ: Mapping[str, str], notice: Notice) -> CheckReport:
    """The `check` command: validation, the change, (with --verify) who signed each commit
    of the pull request, and (with a cluster) what merging does."""
    report, desired = in_git(request, environ)
    if desired is None or not request.check.reads_cluster(request.cluster):
        return report
    base, head = desired
    return replace(report, cluster=against_cluster(base, head, request, notice))


def in_git(
    request: CheckRequest, environ: Mapping[str, str]
) -> tuple[CheckReport, tuple[DesiredState, DesiredState] | None]:
    """What the check finds without a cluster, and both sides' desired state (None when the
    head is invalid: nothing more can be computed)."""
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
        return report, None
    head = DesiredState(validated.webapps, validated.warnings, validated.revision)
    diff = diff_commits(base.webapps, head.webapps)
    report = replace(
        report,
        diff=diff,
        webapps=webapp_changes(diff),
        deployments=deployment_changes(diff, cluster.instance),
    )
    return report, (base, head)


def across_targets(
    request: CheckRequest, *, environ: Mapping[str, str], notice: Notice
) -> TargetsReport:
    """`check --target ...`: each target checked on its own, in the order given; the
    commits judged once (with the first), told with every target."""
    checked: list[TargetCheck] = []
    for target in request.check.targets:
        one = for_target(request, target, first=not checked)
        report, desired = in_git(one, environ)
        if checked and checked[0].report is not None:
            report = replace(report, commits=checked[0].report.commits)
        unreachable = None
        if desired is not None and one.check.reads_cluster(one.cluster):
            try:
                cluster = against_cluster(*desired, one, _named(notice, target))
            except ClusterError as unreadable:
                unreachable = unreadable.message
            else:
                report = replace(report, cluster=cluster)
        path = one.source.path or "/"
        checked.append(TargetCheck(target, path, one.cluster.instance, report, unreachable))
    return TargetsReport(tuple(checked), frozenset(request.check.fail_on))


def for_target(request: CheckRequest, target: Target, *, first: bool) -> CheckRequest:
    """The check of one target: its folder, cluster and instance, the run's where it names
    none. Only the `first` judges the commits (the others are told its verdicts)."""
    cluster = replace(
        request.cluster,
        kubeconfig=target.kubeconfig or request.cluster.kubeconfig,
        context=target.context,
        instance=target.instance or request.cluster.instance,
    )
    fail_on = request.check.fail_on
    if not first:
        fail_on = tuple(name for name in fail_on if name not in TRUST_FAILURES)
    return replace(
        request,
        source=replace(request.source, path=target.path or request.source.path),
        cluster=cluster,
        verify=request.verify if first else NO_VERIFY,
        check=replace(request.check, targets=(), fail_on=fail_on),
    )


def _named(notice: Notice, target: Target) -> Notice:
    """A target's notices, its name first."""
    return lambda message: notice(f"{target.name}: {message}")


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
