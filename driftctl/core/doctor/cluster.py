"""The cluster's parts as `doctor` judges them: the API server's version, the WebApp CRD,
the run lock (its namespace and its Lease) and the installed workload.

Pure: each takes what the shell read (None: not there) and the time, and gives findings.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from driftctl import conventions as c
from driftctl.core.api.lease import LeaseRef, lock_state
from driftctl.core.doctor.findings import Finding, fail, ok, warn
from driftctl.core.planning.installed_crd import SHOW_UPGRADE, UPGRADE, installed
from driftctl.core.planning.overview import CrdState, crd_state
from driftctl.durations import text as duration_text
from driftctl.kube_formats import api_time, parse_api_time

OLDEST = (1, 27)  # the CronJob's timeZone (GA in 1.27); older servers are not tested
_VERSION = re.compile(r"^v?(\d+)\.(\d+)")
Obj = Mapping[str, Any]


def version(server: str, answer: Obj) -> Finding:
    """The API server answered `/version`: which Kubernetes, and whether driftctl knows it."""
    git_version = str(answer.get("gitVersion") or "unknown")
    found = _VERSION.match(git_version)
    line = f"{server} answers: Kubernetes {git_version}"
    if found and (int(found[1]), int(found[2])) < OLDEST:
        oldest = ".".join(map(str, OLDEST))
        return warn(
            "cluster", f"{line}, older than {oldest}", f"upgrade the cluster to {oldest} or later"
        )
    return ok("cluster", line)


def crd(found: Obj | None, generated: Obj, differing: int) -> Finding:
    """The WebApp CRD: installed, established, its schema against this driftctl's
    (`differing`: the lines `driftctl crd --diff` shows)."""
    name = c.CRD_NAME
    if found is None:
        return fail("crd", f"{name} is not installed: no run can read a WebApp", UPGRADE)
    established = _condition(found, "Established")
    if established is None or established.get("status") != "True":
        why = f" ({established.get('reason')}: {established.get('message')})" if established else ""
        return fail("crd", f"{name} is not established{why}", f"kubectl describe crd {name}")
    judged = installed(dict(found))
    if judged.spec_problems:
        return fail(
            "crd",
            f"{name} cannot take a WebApp's spec: {'; '.join(judged.spec_problems)}",
            UPGRADE,
        )
    if judged.missing:
        return warn(
            "crd",
            f"{name} is older than this driftctl: its status lacks {', '.join(judged.missing)} "
            f"(runs leave them out; `{SHOW_UPGRADE}` shows {differing} lines)",
            UPGRADE,
        )
    if crd_state(found, generated) is CrdState.OTHER:
        return warn(
            "crd",
            f"{name} is established, with another schema than this driftctl's "
            f"(`{SHOW_UPGRADE}` shows {differing} lines)",
            UPGRADE,
        )
    return ok("crd", f"{name} is established, the schema of this driftctl")


def _condition(crd: Obj, kind: str) -> Obj | None:
    for each in (crd.get("status") or {}).get("conditions") or []:
        if each.get("type") == kind:
            found: Obj = each
            return found
    return None


def lock(
    ref: LeaseRef, namespace_found: bool, lease: Obj | None, now: datetime.datetime
) -> Finding:
    """The run lock: its namespace there, and its Lease free, held by a live run, or held by
    one gone (not renewed within its term)."""
    if not namespace_found:
        return fail(
            "lock",
            f"the run lock's namespace {ref.namespace} does not exist: every apply stops "
            "before it takes its lock",
            f"kubectl create namespace {ref.namespace} (`driftctl install` makes it), or "
            "--lock-namespace naming the one the instance's runs use",
        )
    if lease is None:
        return ok("lock", f"{ref.display}: no run has taken it yet")
    state = lock_state(lease, ref, now)
    spec = lease.get("spec") or {}
    renewed = parse_api_time(spec.get("renewTime"))
    since = f" since {api_time(state.last_run)}" if state.last_run else ""
    if state.holder is None:
        return ok("lock", f"{ref.display} is free{_last(state.last_run)}")
    if not state.expired:
        ago = f", renewed {_ago(renewed, now)} ago" if renewed else ""
        return ok("lock", f"{ref.display} is held by {state.holder}{since}{ago}: a run is going on")
    gone = f"{_ago(state.expires, now)} ago" if state.expires else "long ago"
    shard = (
        f" --shard-count {ref.shard.count} --shard-index {ref.shard.index}"
        if ref.shard.sharded
        else ""
    )
    return warn(
        "lock",
        f"{ref.display} is held by {state.holder}{since}, who stopped renewing it: it "
        f"expired {gone} (the holder is gone; the next run takes it over)",
        f"driftctl unlock --instance {ref.instance} --lock-namespace {ref.namespace}{shard} "
        "frees it now",
    )


def _last(moment: datetime.datetime | None) -> str:
    return f"; the last run took it at {api_time(moment)}" if moment else ""


def _ago(moment: datetime.datetime | None, now: datetime.datetime) -> str:
    if moment is None:
        return "?"
    seconds = max(int((now - moment).total_seconds()), 0)
    return duration_text(datetime.timedelta(seconds=seconds))


def workload(
    cronjob: Obj | None, deployment: Obj | None, names: tuple[str, str], install: str
) -> Finding:
    """The instance's CronJob or operator (`names`: the workload's namespace and name):
    there, and how its last run went, as the CronJob's status says."""
    namespace, name = names
    if deployment is not None:
        status = deployment.get("status") or {}
        ready = int(status.get("readyReplicas") or 0)
        line = f"operator Deployment {namespace}/{name}: {ready} of its replicas ready"
        if ready == 0:
            return warn("install", line, f"kubectl logs -n {namespace} deployment/{name}")
        return ok("install", line)
    if cronjob is None:
        return warn(
            "install",
            f"no CronJob or operator {namespace}/{name} of this instance: nothing runs it in "
            "the cluster",
            install,
        )
    return _cronjob(cronjob, namespace, name)


def _cronjob(cronjob: Obj, namespace: str, name: str) -> Finding:
    """How the CronJob's last Job went, as its status says."""
    status = cronjob.get("status") or {}
    scheduled = parse_api_time(status.get("lastScheduleTime"))
    succeeded = parse_api_time(status.get("lastSuccessfulTime"))
    line = f"CronJob {namespace}/{name}"
    if scheduled is None:
        return ok("install", f"{line}: no Job scheduled yet")
    if succeeded is None or succeeded < scheduled:
        if status.get("active"):
            return ok("install", f"{line}: a Job is running (scheduled {api_time(scheduled)})")
        last = f"last success {api_time(succeeded)}" if succeeded else "no Job succeeded yet"
        return warn(
            "install",
            f"{line}: the Job scheduled at {api_time(scheduled)} did not succeed ({last})",
            f"kubectl logs -n {namespace} -l {c.NAME_LABEL}=driftctl --tail=20",
        )
    return ok("install", f"{line}: its last Job succeeded at {api_time(succeeded)}")
