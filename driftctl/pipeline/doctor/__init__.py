"""The `doctor` command's flow: what stops the run its settings configure, one finding
per check (core.doctor), or (--release-finalizers) the instance's stuck WebApps released.

The checks, in order: the cluster reached and its version; then, unless `--pre`, the
instance's workload (a CronJob or the operator: which form of run to check), the WebApp
CRD, the permissions of the account the run uses (asked one by one), the run lock, the
WebApps stuck in deletion; then Git as the run reads it, the keys --verify trusts, the
receivers (a test message with --send-test). With `--pre`, only what needs no
installation: the cluster, and what `driftctl install` needs of its caller. A check that
cannot be made is a finding of its own; the others still run. Writes nothing but the
finalizers it is asked to release. Decides nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from driftctl.core.doctor import permissions as p
from driftctl.core.doctor import stuck as s
from driftctl.core.doctor.findings import Finding, fail, ok, warn
from driftctl.core.installation import Names
from driftctl.core.planning.objects import key_of
from driftctl.durations import seconds_text
from driftctl.errors import Declined, DriftctlError
from driftctl.pipeline.doctor import cluster as checks
from driftctl.pipeline.doctor import local
from driftctl.pipeline.listener import Notice
from driftctl.pipeline.runs import lease_of, open_cluster, utc_now
from driftctl.settings import DoctorRequest
from driftctl.settings.install import Form
from driftctl.shell.cleanup import CleanupFailed, Deleter
from driftctl.shell.kube import Kube

Confirm = Callable[[Sequence[str]], bool]  # asked with the WebApps to release: go on?


def doctor(request: DoctorRequest, environ: Mapping[str, str], notice: Notice) -> list[Finding]:
    """The `doctor` command's checks (module docstring)."""
    findings: list[Finding] = []
    kube = _reached(request, notice, findings)
    if request.doctor.pre:
        if kube is not None:
            install = p.installed(request.cluster.instance, Form.CRONJOB, ())
            needs = p.install_needs(install)
            findings += checks.permissions(kube, p.Subject(None), needs, install=True).findings
        return findings
    if kube is not None:
        findings += _in_cluster(kube, request)
    findings.append(local.git(request.source, environ))
    findings += local.keys(request.verify, environ)
    findings += local.receivers(request.notify)
    if request.doctor.send_test:
        findings += local.send_test(request.notify, request.cluster.instance)
    return findings


def _reached(request: DoctorRequest, notice: Notice, findings: list[Finding]) -> Kube | None:
    try:
        kube = open_cluster(request.cluster, notice)
        findings.append(checks.reached(kube))
    except DriftctlError as error:
        findings.append(checks.unreachable(error))
        return None
    return kube


def _in_cluster(kube: Kube, request: DoctorRequest) -> list[Finding]:
    """The checks that read the instance's installation and objects."""
    cluster, now = request.cluster, utc_now()
    names = Names(cluster.instance)
    findings: list[Finding] = []
    form = Form.CRONJOB
    try:
        found = checks.installed(kube, names)
        form = found.form
        findings.append(found.finding)
        findings.append(checks.crd(kube))
    except DriftctlError as error:
        findings.append(fail("install", error.message, error.hint))
    installation = p.installed(cluster.instance, form, cluster.namespaces)
    needs = p.run_needs(installation, request.lock.namespace)
    subject = checks.subject_of(request.doctor, cluster)
    try:
        allowed = checks.permissions(kube, subject, needs)
    except DriftctlError as error:
        allowed = checks.Allowed([fail("permissions", error.message, error.hint)])
    findings += allowed.findings
    ref = lease_of(cluster, request.lock, request.shard)
    findings += _guarded("lock", lambda: [checks.run_lock(kube, ref, now)])
    seen = s.Seen({}, checks.last_run(kube, ref, now), checks.cleanup_refused(allowed.refused))
    bound = request.doctor.stuck_after
    findings += _guarded("finalizers", lambda: checks.stuck(kube, cluster, (seen, bound), now)[1])
    return findings


def _guarded(check: str, run: Callable[[], list[Finding]]) -> list[Finding]:
    """A check's findings, or the failure that stopped it."""
    try:
        return run()
    except DriftctlError as error:
        return [fail(check, error.message, error.hint)]


def release(request: DoctorRequest, notice: Notice, confirm: Confirm | None) -> list[Finding]:
    """`doctor --release-finalizers`: the stuck WebApps this instance may release, released
    (after `confirm`, when given), one line each; the others said and left."""
    cluster, now = request.cluster, utc_now()
    kube = open_cluster(cluster, notice)
    found = s.stuck(checks.deleting(kube, cluster), now, request.doctor.stuck_after)
    decided = [s.release(each.webapp, cluster.instance, cluster.field_manager) for each in found]
    going = [each for each in decided if each.patch is not None]
    if not found:
        over = seconds_text(request.doctor.stuck_after)
        return [ok(s.CHECK, f"no WebApp was deleted over {over} ago and still holds the finalizer")]
    if going and confirm is not None and not confirm([each.display for each in going]):
        raise Declined("nothing was released: the answer was no")
    deleter = Deleter(kube, cluster.field_manager)
    return [_released(kube, deleter, each, cluster.instance) for each in decided]


def _released(kube: Kube, deleter: Deleter, each: s.Release, instance: str) -> Finding:
    if each.patch is None:
        line = f"left {each.display}: {each.refusal}"
        mine = s.is_instances(each.webapp, instance)
        return fail(s.CHECK, line, None) if mine else warn(s.CHECK, line, None)
    key = key_of(each.webapp)
    deployment = checks.deployment_named(kube, key.namespace, key.name)
    try:
        deleter.remove_finalizer(key, tuple(each.patch))
    except CleanupFailed as failed:
        return fail(s.CHECK, f"{each.display}: {failed}", "run doctor again: the WebApp changed")
    return ok(s.CHECK, f"released {each.display}: {s.what_goes(each.webapp, deployment, instance)}")
