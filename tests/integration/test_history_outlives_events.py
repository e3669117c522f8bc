"""What the instance's runs applied, kept in the cluster (`driftctl history`), on the real
control plane, as the CronJob's ServiceAccount writes it.

Five commits applied over five runs, a drift corrected and a WebApp pruned: `history shop`
lists each change newest first with its revision, outcome, cause and fields, and the
`git revert` that undoes the newest; the pruned WebApp's entries outlive it; `history`
lists the runs; `status` shows each WebApp's last change; a run that changes nothing adds
nothing and writes nothing (its ConfigMaps keep their resourceVersion). A thousand runs'
records, each written as an apply writes it (a read of the head, then a write), leave the
ring bounded: its SLOTS + 1 ConfigMaps, each under 1 MiB, the newest runs kept and the
oldest dropped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.history.record import Change, RunRecord, lines_of
from driftctl.core.history.ring import SEGMENT_BYTES, SLOTS
from driftctl.pipeline.runs import open_cluster
from driftctl.settings import Cluster
from driftctl.shell.history_store import HistoryRef, Keeper
from tests.support.harness import LOCK_NAMESPACE, Harness

pytestmark = pytest.mark.integration

IMAGES = [f"nginx:1.2{i}" for i in range(1, 6)]
MIB = 1024 * 1024
RUNS = 1000


def history_maps(harness: Harness) -> list[dict[str, Any]]:
    """The instance's history ConfigMaps, as stored."""
    listed = harness.kubectl(
        "get", "configmaps", "-n", LOCK_NAMESPACE, "-o", "json",
        "-l", f"{c.INSTANCE_LABEL}={harness.instance}",
    )  # fmt: skip
    head = c.history_name(harness.instance)
    return [
        item
        for item in json.loads(listed)["items"]
        if item["metadata"]["name"] == head or item["metadata"]["name"].startswith(f"{head}-")
    ]


def applied(harness: Harness, *args: str) -> str:
    done = harness.driftctl("apply", "--yes", *args)
    assert done.code == 0, done.out + done.err
    return done.out


def test_five_commits_a_drift_and_a_prune_are_listed_newest_first(harness: Harness) -> None:
    commits = []
    for image in IMAGES:
        commits.append(harness.declare({"shop": (image, 2), "blog": ("nginx:1.27", 1)}, image))
        applied(harness)
    harness.kubectl("scale", "deployment/shop", "--replicas=5", "-n", harness.namespace)
    applied(harness)
    pruned = harness.declare({"shop": (IMAGES[-1], 2)}, "blog goes")
    applied(harness)
    before = {
        m["metadata"]["name"]: m["metadata"]["resourceVersion"] for m in history_maps(harness)
    }
    assert "Apply: 0 created, 0 configured, 0 deleted" in applied(harness)  # nothing to do
    after = {m["metadata"]["name"]: m["metadata"]["resourceVersion"] for m in history_maps(harness)}

    shop = harness.driftctl("history", "shop", "-o", "json")
    blog = harness.driftctl("history", "blog", "-o", "json")
    runs = harness.driftctl("history", "-o", "json")
    text = harness.driftctl("history", "shop")
    status = harness.driftctl("status", "-o", "json")

    assert after == before  # the no-drift run wrote nothing
    entries = json.loads(shop.out)["entries"]
    webapp = f"{harness.namespace}/shop"
    container = "Deployment spec.template.spec.containers[name=app].image"
    assert [
        (e["webapp"], e["outcome"], e["cause"], e["revision"], e.get("fields")) for e in entries
    ] == [
        (webapp, "configured", "drift", commits[4], ["Deployment spec.replicas"]),
        *(
            (webapp, "configured", "git", commits[i], ["spec.image", container])
            for i in (4, 3, 2, 1)
        ),
        (webapp, "created", "git", commits[0], None),
    ]
    assert [e.get("previous") for e in entries[1:5]] == [
        commits[3],
        commits[2],
        commits[1],
        commits[0],
    ]
    assert [(e["outcome"], e["revision"]) for e in json.loads(blog.out)["entries"]] == [
        ("deleted", pruned),
        ("created", commits[0]),
    ]
    assert harness.get("webapp", "blog") is None  # gone, and its history stays
    assert [(r["revision"], r["changes"]) for r in json.loads(runs.out)["runs"]] == [
        (pruned, {"deleted": 1}),
        (commits[4], {"configured": 1}),
        *((commits[i], {"configured": 1}) for i in (4, 3, 2, 1)),
        (commits[0], {"created": 2}),
    ]
    lines = text.out.splitlines()
    assert lines[0].split() == ["WHEN", "WEBAPP", "OUTCOME", "CAUSE", "REVISION", "RUN", "FIELDS"]
    assert lines[-2] == (
        f"Rollback is Git's: `git revert {commits[4][:12]}` undoes the commit the newest change "
        f"of {webapp} applied"
    )
    [row] = [r for r in json.loads(status.out)["webapps"] if r["name"] == "shop"]
    assert (row["lastChange"]["outcome"], row["lastChange"]["cause"]) == ("configured", "drift")


def test_a_thousand_runs_leave_the_ring_bounded(harness: Harness) -> None:
    kube = open_cluster(Cluster(kubeconfig=str(harness.kubeconfig), timeout=600), print)
    ref = HistoryRef(LOCK_NAMESPACE, harness.instance)
    changes = tuple(
        Change(f"{harness.namespace}/app-{i:03d}", "configured", "git", ("spec.image",))
        for i in range(30)
    )
    for run in range(RUNS):
        record = RunRecord(
            f"2026-12-02T10:{run // 60 % 60:02d}:{run % 60:02d}Z",
            f"run-{run}",
            f"{run:040x}",
            changes,
        )
        assert Keeper(ref).append(kube, lines_of(record)) is None  # a keeper a run, as apply

    maps = history_maps(harness)
    runs = json.loads(harness.driftctl("history", "-o", "json").out)["runs"]

    assert len(maps) == SLOTS + 1
    assert all(len(json.dumps(m["data"]).encode()) < MIB for m in maps)
    assert all(sum(len(v.encode()) for v in m["data"].values()) <= SEGMENT_BYTES + 16 for m in maps)
    assert runs[0]["run"] == f"run-{RUNS - 1}"  # the newest first
    kept = [int(r["run"].removeprefix("run-")) for r in runs]
    assert kept == list(range(RUNS - 1, RUNS - 1 - len(kept), -1))  # no gap: the oldest went
    assert RUNS // 2 < len(kept) < RUNS
