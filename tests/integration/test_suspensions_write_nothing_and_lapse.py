"""Suspensions on the real control plane, set with one kubectl command each:

- a suspended WebApp (an annotation on the live WebApp) writes nothing, its plan and its
  apply say why, and its status records the suspension once;
- a suspended instance (an annotation on its run-lock Lease, set on every Lease of the
  instance by its label) writes nothing at all, not even a status, and the lock keeps the
  annotation through its own writes; removed, the next run converges;
- a suspension ends by itself at its end time: on the real clock, with a short one.
Writes are counted by the API server itself (tests/support/control_plane)."""

from __future__ import annotations

import datetime
import json
import time

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.control_plane import Requests, delta, quiet, request_counts
from tests.support.drift_cases import SUSPENSION, annotate, converged, scale
from tests.support.harness import LOCK_NAMESPACE, Harness

OBJECTS = ("webapps", "deployments")
WRITES = frozenset({"APPLY", "PATCH", "POST", "PUT", "DELETE"})
WHY = "suspended until 2099-01-01 00:00:00 UTC by ops: incident 4711"


def writes(before: Requests, after: Requests) -> dict[str, int]:
    """Writes to WebApps and Deployments (their status included), dry-runs apart."""
    out: dict[str, int] = {}
    for (resource, sub, verb, _, dry_run, _), count in delta(before, after, OBJECTS).items():
        if verb in WRITES and not dry_run:
            name = f"{resource}/{sub}" if sub else resource
            out[f"{name} {verb}"] = out.get(f"{name} {verb}", 0) + count
    return out


def test_a_suspended_webapp_writes_nothing_and_says_why(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    converged(harness)
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}={SUSPENSION}")
    scale(harness)
    quiet(harness)

    planned = harness.driftctl("plan")
    before = request_counts(control_plane)
    applied = harness.driftctl("apply")
    between = request_counts(control_plane)
    again = harness.driftctl("apply")
    after = request_counts(control_plane)

    shop = f"Deployment/{harness.namespace}/shop"
    assert planned.code == 1, planned.err
    assert f"|| {shop}: hold (update held: {WHY})" in planned.out.splitlines()
    assert f"held {shop}: {WHY}" in applied.out.splitlines()
    assert (applied.code, again.code) == (0, 0)
    assert writes(before, between) == {"webapps/status APPLY": 1}  # the suspension, recorded
    assert writes(between, after) == {}
    assert (harness.get("deployment", "shop") or {})["spec"]["replicas"] == 5
    webapp = harness.get("webapp", "shop") or {}
    [held] = [each for each in webapp["status"]["conditions"] if each["type"] == "Held"]
    assert (held["reason"], held["message"]) == ("Suspended", f"{shop}: update held: {WHY}")
    assert webapp["metadata"]["annotations"][c.SUSPEND_ANNOTATION] == SUSPENSION  # not drift


def test_a_suspended_instance_writes_nothing_and_resumes_when_the_annotation_goes(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    converged(harness)
    selector = f"{c.INSTANCE_LABEL}={harness.instance}"
    suspend = f"{c.SUSPEND_ANNOTATION}=by=sre; reason=freeze"
    harness.kubectl("annotate", "lease", "-l", selector, suspend, "-n", LOCK_NAMESPACE)
    harness.declare({"shop": ("nginx:1.28", 2)})
    scale(harness)
    quiet(harness)

    planned = harness.driftctl("plan", "-o", "json")
    before = request_counts(control_plane)
    applied = harness.driftctl("apply")
    after = request_counts(control_plane)
    lease = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE) or {}
    harness.kubectl("annotate", "lease", "-l", selector, f"{c.SUSPEND_ANNOTATION}-", "-n",
                    LOCK_NAMESPACE)  # fmt: skip
    resumed = harness.driftctl("apply")

    where = f"Lease {LOCK_NAMESPACE}/{c.lease_name(harness.instance)}"
    suspended = f"the instance is suspended by sre: freeze ({c.SUSPEND_ANNOTATION} on {where})"
    document = json.loads(planned.out)
    assert planned.code == 1
    assert document["suspended"] == suspended
    assert {o["action"] for o in document["objects"]} == {"hold"}
    assert f"{suspended}: nothing is written" in applied.err
    assert writes(before, after) == {}
    assert lease["metadata"]["annotations"][c.SUSPEND_ANNOTATION] == "by=sre; reason=freeze"
    assert resumed.code == 0, resumed.err
    assert f"configured Deployment/{harness.namespace}/shop" in resumed.out
    assert (harness.get("deployment", "shop") or {})["spec"]["replicas"] == 2


LAPSES_IN = datetime.timedelta(seconds=12)  # room for one plan on a loaded machine


def test_a_suspension_ends_by_itself_at_its_end_time(harness: Harness) -> None:
    converged(harness)
    scale(harness)
    ends = datetime.datetime.now(datetime.UTC).replace(microsecond=0) + LAPSES_IN
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}=until={ends.isoformat()}")

    held = harness.driftctl("plan")
    time.sleep(max((ends - datetime.datetime.now(datetime.UTC)).total_seconds(), 0) + 1)
    lapsed = harness.driftctl("apply")

    shop = f"Deployment/{harness.namespace}/shop"
    assert f"|| {shop}: hold" in held.out, held.out
    assert lapsed.code == 0, lapsed.err
    assert f"configured {shop}" in lapsed.out.splitlines()
    assert (harness.get("deployment", "shop") or {})["spec"]["replicas"] == 2
