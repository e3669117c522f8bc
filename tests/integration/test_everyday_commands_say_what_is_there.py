"""The everyday commands on the real control plane: status, version, show, -q and -v.

`status` reads the instance's two LISTs, its Lease and its history's head and nothing else
(the API server's own counters say so), and tells each WebApp's standing and last change:
in sync, drifted (a person scaled it), missing (declared, absent), not in Git (declared no
more), held (a suspension holds it, with or without an end: the controls are decided at
the time status reads the Lease).
`version` names the API server's build and whether the cluster's CRD is this driftctl's.
`show` prints a saved plan as `plan` printed it.
"""

from __future__ import annotations

import json
from pathlib import Path

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.control_plane import STREAMED_LIST, delta, quiet, request_counts
from tests.support.drift_cases import SUSPENSION, annotate, converged, scale
from tests.support.harness import LOCK_NAMESPACE, Harness

APPS = {"a": ("nginx:1.27", 1), "b": ("nginx:1.27", 1), "c": ("nginx:1.27", 1)}
READ = ("webapps", "deployments", "leases", "events", "horizontalpodautoscalers")
# (Leases: driftctl GETs its own; the API server renews its identity Lease every 10 s.)


def test_status_tells_each_webapps_standing_from_two_lists_and_the_lease(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    harness.declare(APPS)
    applied = harness.repo.git("rev-parse", "HEAD")
    assert harness.driftctl("apply").code == 0
    harness.kubectl("scale", "deployment", "b", "-n", harness.namespace, "--replicas", "4")
    harness.declare({"a": APPS["a"], "b": APPS["b"], "d": ("nginx:1.27", 2)}, "c goes, d comes")
    quiet(harness)

    before = request_counts(control_plane)
    ran = harness.driftctl("status", "-o", "json")
    after = request_counts(control_plane)
    text = harness.driftctl("status")

    assert ran.code == 0, ran.err
    # Of every client, on WebApps and Deployments: one streamed list each, no LIST; and of
    # driftctl (the only ServiceAccount client here), five requests: those, the Lease, its
    # read of the installed CRD and of its history's head (one run: no segment sealed).
    # (The garbage collector may still be deleting an earlier test's Deployments, one GET
    # and one DELETE each: what else driftctl sent, the five count.)
    assert (
        {
            series[:3]: n
            for series, n in delta(before, after, READ).items()
            if series[2] in ("LIST", STREAMED_LIST) or series[0] == "leases"
        }
        == {
            ("webapps", "", STREAMED_LIST): 1,
            ("deployments", "", STREAMED_LIST): 1,
            ("leases", "", "GET"): 1,
        }
        | {  # the API server's own identity Lease in kube-system, not driftctl's
            series[:3]: n
            for series, n in delta(before, after, ("leases",)).items()
            if series[2] == "PUT"
        }
    )
    assert after.service_accounts - before.service_accounts == 5
    found = json.loads(ran.out)
    rows = {row["name"]: (row["sync"], row["ready"], row["revision"]) for row in found["webapps"]}
    assert rows == {
        "a": ("in sync", False, applied),
        "b": ("drifted", False, applied),
        "c": ("not in Git", False, applied),
        "d": ("missing", None, ""),
    }
    assert found["summary"] == {
        "in sync": 1, "held": 0, "drifted": 1, "not in Git": 1, "missing": 1, "deleting": 0,
        "conflict": 0,
    }  # fmt: skip
    assert found["lock"]["holder"] is None
    assert found["lock"]["lastRun"] is not None
    assert text.out.splitlines()[3].split() == [
        "NAMESPACE", "NAME", "SYNC", "READY", "AVAILABLE", "REVISION", "LAST", "CHANGE",
    ]  # fmt: skip
    last = {row["name"]: (row["lastChange"] or {}).get("outcome") for row in found["webapps"]}
    assert last == {"a": "created", "b": "created", "c": "created", "d": None}
    assert text.out.splitlines()[-1] == "Status: 1 in sync, 1 drifted, 1 not in Git, 1 missing"


def test_status_shows_a_suspended_webapp_held_with_or_without_an_end(harness: Harness) -> None:
    converged(harness)
    scale(harness)
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}={SUSPENSION}")

    with_an_end = harness.driftctl("status")
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}=incident 4711")
    without = harness.driftctl("status", "-o", "json")
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}-")
    lease = f"lease/{c.lease_name(harness.instance)}"
    annotate(harness, lease, f"{c.SUSPEND_ANNOTATION}={SUSPENSION}", LOCK_NAMESPACE)
    instance = harness.driftctl("status", "-o", "json")

    assert with_an_end.code == 0, with_an_end.err  # was a traceback (ValueError), exit 1
    why = "suspended until 2099-01-01 00:00:00 UTC by ops: incident 4711"
    lines = with_an_end.out.splitlines()
    assert lines[4].split()[:3] == [harness.namespace, "shop", "held"]
    assert f"{harness.namespace}/shop is held: {why}" in lines
    assert lines[-1] == "Status: 1 held"
    assert without.code == 0, without.err
    [row] = json.loads(without.out)["webapps"]
    assert (row["sync"], row["held"]) == ("held", "suspended: incident 4711")  # was "drifted"
    assert instance.code == 0, instance.err
    [row] = json.loads(instance.out)["webapps"]
    where = f"{c.SUSPEND_ANNOTATION} on Lease {LOCK_NAMESPACE}/{c.lease_name(harness.instance)}"
    assert (row["sync"], row["held"]) == ("held", f"the instance is {why} ({where})")


def test_status_says_conflict_of_what_its_lists_hold_and_missing_of_another_owners_webapp(
    harness: Harness, tmp_path: Path
) -> None:
    """Issue 34: `status --help` said `conflict` of another owner's object, its page said
    `missing`; each is right for one case, and the help now says which."""
    other = harness.other_instance(f"{harness.instance}-b", tmp_path / "b")
    other.declare({"cart": ("nginx:1.27", 1)})
    assert other.driftctl("apply").code == 0
    harness.kubectl("create", "deployment", "shop", "--image=nginx:1.25", "-n", harness.namespace)
    harness.kubectl("label", "deployment", "shop", f"{c.INSTANCE_LABEL}={harness.instance}",
                    "-n", harness.namespace)  # fmt: skip
    harness.declare({"shop": ("nginx:1.27", 1), "cart": ("nginx:1.27", 1)})

    ran = harness.driftctl("status", "-o", "json")
    planned = harness.driftctl("plan")
    helped = harness.driftctl("status", "--help")

    assert ran.code == 0, ran.err
    rows = {row["name"]: row["sync"] for row in json.loads(ran.out)["webapps"]}
    assert rows == {"shop": "conflict", "cart": "missing"}
    assert f"x WebApp/{harness.namespace}/cart: conflict" in planned.out
    help_text = " ".join(helped.out.split())
    for said in (
        "`missing` (declared, absent; also when another owner's WebApp holds the name: plan "
        "reads it and says `conflict`)",
        "`conflict` (its Deployment carries this instance's label but its WebApp does not "
        "control it)",
    ):
        assert said in help_text


def test_version_names_the_server_and_whether_the_crd_is_this_driftctls(
    harness: Harness, kubeconfig: Path
) -> None:
    ran = harness.driftctl("version", "-o", "json", kubeconfig=kubeconfig)

    assert ran.code == 0, ran.err
    found = json.loads(ran.out)
    assert found["server"]["gitVersion"].startswith("v1.")  # the control plane's build
    assert found["crd"] == {
        "name": "webapps.example.com",
        "state": "installed, the schema of this driftctl",
        "versions": ["v1"],
    }


def test_show_prints_a_saved_plan_as_plan_printed_it(harness: Harness, tmp_path: Path) -> None:
    harness.declare(APPS)
    path = tmp_path / "plan.json"
    planned = harness.driftctl("plan", "--out", str(path), "-o", "json")

    shown = harness.driftctl("show", str(path), "-o", "json")
    text = harness.driftctl("show", str(path))

    assert shown.code == text.code == 0, shown.err + text.err
    assert shown.out == planned.out
    commit = harness.repo.git("rev-parse", "HEAD")
    assert text.out.splitlines()[:3] == [
        f"Saved plan {path}: instance {harness.instance} (shard 0 of 1), field manager driftctl",
        f"Source: {harness.repo.path}#apps at {commit} (WebApps without a namespace: "
        f"{harness.namespace})",
        "Policy: prune, --max-prune half the managed",
    ]
    assert text.out.splitlines()[-1] == "Plan: 6 to create, 0 to update, 0 to prune, 0 unchanged"


def test_quiet_says_only_the_summary_and_verbose_the_unchanged_too(harness: Harness) -> None:
    harness.declare(APPS)

    planned = harness.driftctl("plan", "-q")
    applied = harness.driftctl("apply", "-q")
    again = harness.driftctl("apply", "-v")

    assert planned.out == "Plan: 6 to create, 0 to update, 0 to prune, 0 unchanged\n"
    assert applied.out == (
        "Apply: 6 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed\n"
    )
    assert f"unchanged WebApp/{harness.namespace}/a" in again.out.splitlines()
