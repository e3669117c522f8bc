"""The removal of fields set outside Git tests the resourceVersion the plan was made from:
if the object changed after the plan, the server refuses it (422), nothing is removed,
the object fails, and the next run plans again."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from driftctl.core.planning.actions import Update
from driftctl.core.planning.outcomes import Outcome
from driftctl.pipeline.engine import Goal, make_plan
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.runs import open_cluster
from driftctl.settings import Cluster, Policy, Source
from driftctl.shell.apply import Applier
from driftctl.shell.cleanup import Deleter
from driftctl.shell.events import Recorder
from tests.support import drift_cases as cases
from tests.support.harness import Harness


def test_an_object_changed_since_the_plan_keeps_its_fields_and_fails(
    harness: Harness, tmp_path: Path
) -> None:
    cases.env_added_by_kubectl_patch(harness, tmp_path)
    source = Source(
        repo=str(harness.repo.path), ref="main", path="apps", namespace=harness.namespace
    )
    cluster = Cluster(kubeconfig=str(harness.kubeconfig), instance=harness.instance)
    kube = open_cluster(cluster, lambda line: None)
    plan, live = make_plan(kube, cluster, Goal(load_desired(source, os.environ), Policy()))
    [update] = [action for action in plan.actions if isinstance(action, Update)]
    assert update.revert is not None

    harness.kubectl("annotate", "deployment/shop", "moved=on", "-n", harness.namespace)
    now = datetime.datetime.now(datetime.UTC)
    applier = Applier(kube, Deleter(kube), Recorder(kube, now), now)
    report = applier.carry_out(plan, live)

    [failed] = [item for item in report.outcomes if item.key == update.key]
    assert failed.outcome is Outcome.FAILED
    assert failed.reason.startswith("removing fields set outside Git: 422 Invalid")
    container = (harness.get("deployment", "shop") or {})["spec"]["template"]["spec"]
    assert container["containers"][0]["env"] == [{"name": "DEBUG", "value": "1"}]
    again = harness.driftctl("apply")
    assert again.code == 0, again.err
    assert (
        "env"
        not in (harness.get("deployment", "shop") or {})["spec"]["template"]["spec"]["containers"][
            0
        ]
    )
