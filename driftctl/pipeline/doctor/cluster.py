"""`doctor`'s checks of the cluster: reached and its version, the installed workload, the
CRD, the permissions of the account the run uses, the run lock, the stuck WebApps.

Each reads what it needs through the one client (shell.kube) and hands it to the core
(core.doctor), which decides. A check that cannot read what it needs says so as its own
finding; the others go on. Decides nothing.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.api.lease import LeaseRef, lock_state
from driftctl.core.doctor import cluster as judge
from driftctl.core.doctor import permissions as p
from driftctl.core.doctor import stuck as s
from driftctl.core.doctor.findings import Finding, fail, warn
from driftctl.core.installation import NAMESPACE, Names
from driftctl.core.planning.installed_crd import comparable_spec
from driftctl.core.planning.objects import key_of
from driftctl.core.source.crd import webapp_crd
from driftctl.errors import DriftctlError
from driftctl.pipeline.runs import lock_namespace_exists
from driftctl.render.manifests import diff_text
from driftctl.settings import Cluster, Doctor
from driftctl.settings.install import Form
from driftctl.shell.kube import ApiError, Kube
from driftctl.shell.kube_credentials import in_pod
from driftctl.shell.live_state import fetch_crd
from driftctl.shell.lock import read_lease

INSTALL_HINT = "driftctl install --repo URL (--instance NAME for another instance)"
FORBIDDEN = 403


@dataclass(frozen=True)
class Installed:
    """The instance's workload as found: its form (a CronJob's apply unless an operator is
    there) and the finding about it."""

    form: Form
    finding: Finding


def reached(kube: Kube) -> Finding:
    """The API server's answer to /version (ClusterError when none comes)."""
    server = kube.send(r.server_version())
    return judge.version(kube.host, server)


def installed(kube: Kube, names: Names) -> Installed:
    """The instance's CronJob or operator Deployment in driftctl's namespace."""
    cronjob = _found(kube, r.get_object("CronJob", NAMESPACE, names.workload))
    deployment = _found(kube, r.get_object("Deployment", NAMESPACE, names.workload))
    form = Form.OPERATOR if deployment is not None else Form.CRONJOB
    finding = judge.workload(cronjob, deployment, (NAMESPACE, names.workload), INSTALL_HINT)
    return Installed(form, finding)


def _found(kube: Kube, request: r.Request, *, missing: bool = True) -> dict[str, Any] | None:
    """The object, or None when it is not there; when it may not be read, None too, or
    ({}) where `missing` is False (not knowing is not missing)."""
    try:
        return kube.send_unless_missing(request)
    except ApiError as refused:
        if refused.status != FORBIDDEN:
            raise
        return None if missing else {}


def crd(kube: Kube) -> Finding:
    """The WebApp CRD, with how many lines `crd --diff` shows."""
    found = fetch_crd(kube)
    generated = webapp_crd()
    differing = 0
    if found is not None:
        text = diff_text({"spec": comparable_spec(found)}, {"spec": generated["spec"]}, ("a", "b"))
        differing = sum(
            1
            for line in text.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        )
    return judge.crd(found, generated, differing)


def subject_of(doctor: Doctor, cluster: Cluster) -> p.Subject:
    """Whose permissions are asked (settings.doctor)."""
    if doctor.as_caller or (doctor.account is None and in_pod(cluster.kubeconfig, cluster.context)):
        return p.Subject(None)
    return p.Subject(doctor.account or (NAMESPACE, Names(cluster.instance).workload))


def asked(
    kube: Kube, subject: p.Subject, needs: Sequence[p.Need]
) -> list[tuple[p.Need, bool]] | Finding:
    """Each need, asked; or the finding that the reviews themselves were refused."""
    answered = []
    for need in needs:
        try:
            answer = kube.send(r.access_review(p.review(need, subject)))
        except ApiError as refused:
            if refused.status != FORBIDDEN:
                raise
            return warn(
                p.CHECK,
                f"the permissions of {subject.display} cannot be asked: {refused.short}",
                "run doctor as someone who may create subjectaccessreviews, or --as-caller "
                "to check your own",
            )
        answered.append((need, p.allowed(answer)))
    return answered


@dataclass(frozen=True)
class Allowed:
    """What the permissions check found, and the needs refused."""

    findings: list[Finding]
    refused: tuple[p.Need, ...] = ()


def permissions(
    kube: Kube, subject: p.Subject, needs: Sequence[p.Need], *, install: bool = False
) -> Allowed:
    """Each need asked of `subject` (a ServiceAccount that does not exist is said once)."""
    if subject.account is not None:
        namespace, name = subject.account
        there = _found(kube, r.get_object("ServiceAccount", namespace, name), missing=False)
        if there is None:
            return Allowed([_no_account(subject)], tuple(needs))
    found = asked(kube, subject, needs)
    if isinstance(found, Finding):
        return Allowed([found])
    refused = tuple(need for need, yes in found if not yes)
    return Allowed(p.verdicts(subject, found, for_install=install), refused)


def _no_account(subject: p.Subject) -> Finding:
    return fail(
        p.CHECK,
        f"{subject.display} does not exist: no run can act as it",
        f"{INSTALL_HINT}, or --as-serviceaccount naming the account the run uses",
    )


def run_lock(kube: Kube, ref: LeaseRef, now: datetime.datetime) -> Finding:
    """The lock's namespace and Lease."""
    try:
        there = lock_namespace_exists(kube, ref)
        lease = read_lease(kube, ref) if there else None
    except ApiError as refused:
        if refused.status != FORBIDDEN:
            raise
        return warn(
            "lock",
            f"{ref.display} cannot be read: {refused.short}",
            "run doctor as someone who may read Leases there",
        )
    return judge.lock(ref, there, lease, now)


def stuck(
    kube: Kube,
    cluster: Cluster,
    found: tuple[s.Seen, float],
    now: datetime.datetime,
) -> tuple[list[s.Stuck], list[Finding]]:
    """The WebApps stuck in deletion in the run's namespaces, and the findings of this
    instance's (`found`: what else was read, the bound)."""
    seen, bound = found
    webapps = deleting(kube, cluster)
    every = s.stuck(webapps, now, bound)
    deployments = {each.display: _deployment_of(kube, each) for each in every}
    seen = s.Seen(deployments, seen.last_run, seen.refused)
    return every, s.verdicts(every, cluster.instance, seen, now, bound)


def deleting(kube: Kube, cluster: Cluster) -> list[dict[str, Any]]:
    """Every WebApp being deleted in the run's namespaces (any instance's)."""
    return [
        each
        for namespace in cluster.namespaces or (None,)
        for each in kube.list_all(r.WEBAPP, "", namespace=namespace)
        if (each.get("metadata") or {}).get("deletionTimestamp")
    ]


def _deployment_of(kube: Kube, each: s.Stuck) -> dict[str, Any] | None:
    key = key_of(each.webapp)
    return deployment_named(kube, key.namespace, key.name)


def deployment_named(kube: Kube, namespace: str, name: str) -> dict[str, Any] | None:
    """The Deployment of a WebApp's name, whoever's it is (None: none, or not readable)."""
    return _found(kube, r.get(r.DEPLOYMENT, namespace, name))


def last_run(kube: Kube, ref: LeaseRef, now: datetime.datetime) -> datetime.datetime | None:
    """When the last run took the lock (None: never, or not readable)."""
    try:
        return lock_state(read_lease(kube, ref), ref, now).last_run
    except DriftctlError:
        return None


CLEANUP_NEEDS = frozenset({("delete", "deployments"), ("get", "deployments"), ("patch", c.PLURAL)})


def cleanup_refused(refused: Sequence[p.Need]) -> list[str]:
    """What cleanup does that the permissions check found refused."""
    return [
        need.what
        for need in refused
        if (need.verb, need.resource) in CLEANUP_NEEDS and not need.subresource
    ]


def unreachable(error: DriftctlError) -> Finding:
    return fail("cluster", error.message, error.hint or "check --kubeconfig and --context")
