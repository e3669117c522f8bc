"""Check reports made by the pure core against the model of server-side apply: what the
tests of the check's renderers read, without a control plane."""

from __future__ import annotations

from collections.abc import Sequence

from driftctl import conventions as c
from driftctl.core.planning.built_changes import deployment_changes, webapp_changes
from driftctl.core.planning.check import CheckReport, ClusterCheck, Side, categorize, shared_answers
from driftctl.core.planning.commit_diff import diff_commits
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.source.desired_state import Revision
from driftctl.core.source.model import WebApp
from tests.support.model_runs import earlier_run
from tests.support.ssa_model import ModelCluster

BASE_SHA = "a43d5ea2f1063604e1cf3465b622e99f988532a5"
HEAD_SHA = "4864ac796b2cf2ffcec4467e797e3501cec293bb"


def checked(
    base: Sequence[WebApp], head: Sequence[WebApp], cluster: ModelCluster, source: str
) -> ClusterCheck:
    """Head and base planned against the model cluster, head's objects categorized."""
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    at_head = prepare(list(head), live, Stamp("default", HEAD_SHA, source))
    at_base = prepare(list(base), live, Stamp("default", BASE_SHA, source))
    answers = {
        k.key: cluster.apply(k.manifest, c.FIELD_MANAGER, dry_run=True) for k in at_head.candidates
    }
    reused, remaining = shared_answers(at_base.candidates, at_head.candidates, answers)
    reused |= {k.key: cluster.apply(k.manifest, c.FIELD_MANAGER, dry_run=True) for k in remaining}
    return categorize(finish(at_head, answers), finish(at_base, reused))


def pull_request_report(
    base: Sequence[WebApp],
    head: Sequence[WebApp],
    *,
    source: str = "https://git.example.org/team/apps.git#apps",
    fail_on: frozenset[str] = frozenset({"invalid"}),
) -> CheckReport:
    """The check of a pull request from `base` to `head` on a cluster where `base` was
    applied."""
    cluster = earlier_run(ModelCluster(), base, Stamp("default", BASE_SHA, source))
    diff = diff_commits(base, head)
    return CheckReport(
        Side("main", Revision(BASE_SHA, False, source, BASE_SHA, 1)),
        Side("feature", Revision(HEAD_SHA, False, source, HEAD_SHA, 1)),
        "default",
        fail_on,
        diff=diff,
        webapps=webapp_changes(diff),
        deployments=deployment_changes(diff, "default"),
        cluster=checked(base, head, cluster, source),
    )
