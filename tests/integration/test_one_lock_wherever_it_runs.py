"""One instance, one run lock, wherever driftctl runs: a laptop's apply and the CronJob's.

The CronJob's apply runs in a Pod (in-cluster settings: tests/support/pod_style.py, the
ServiceAccount of cronjob/ in driftctl-system); a person's apply runs on a laptop with an
admin kubeconfig, no lock flag on either. While one holds the lock, the other waits for it
and says so; neither names a namespace for it, so they must find the same Lease by
themselves.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.control_plane import delta, request_counts
from tests.support.harness import LOCK_NAMESPACE, Harness, driftctl_env, eventually
from tests.support.paths import ROOT
from tests.support.pod_style import pod_style_argv

APPS = 150  # enough that the first run still holds the lock when the second asks for it


def apply_argv(harness: Harness, *extra: str) -> list[str]:
    """`driftctl apply` of this test's repository and instance, with no lock flag."""
    return [
        sys.executable, "-m", "driftctl", "apply", "--repo", str(harness.repo.path),
        "--ref", "main", "--path", "apps", "--namespace", harness.namespace,
        "--instance", harness.instance, *extra,
    ]  # fmt: skip


def holder(harness: Harness) -> str:
    lease = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE)
    return "" if lease is None else str(lease["spec"].get("holderIdentity") or "")


def test_a_laptop_apply_waits_for_the_cronjobs_apply_of_the_same_instance(
    harness: Harness, control_plane: launcher.ControlPlane, kubeconfig: Path, tmp_path: Path
) -> None:
    harness.declare({f"app-{i:03d}": ("nginx:1.27", 1) for i in range(APPS)})
    token = harness.kubectl("create", "token", "driftctl", "-n", LOCK_NAMESPACE).strip()
    argv, env = pod_style_argv(
        control_plane, token, LOCK_NAMESPACE, apply_argv(harness, "--concurrency", "1"), tmp_path
    )
    in_pod = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert eventually(lambda: holder(harness).endswith(f"/{in_pod.pid}"), 60), holder(harness)

    laptop = subprocess.run(
        apply_argv(harness, "--kubeconfig", str(kubeconfig), "--lock-timeout", "600"),
        cwd=ROOT, env=driftctl_env(), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    pod_out, pod_err = in_pod.communicate(timeout=600)

    assert in_pod.returncode == 0, pod_err
    assert pod_out.splitlines()[-1].startswith(f"Apply: {2 * APPS} created")
    lease = f"Lease {LOCK_NAMESPACE}/{c.lease_name(harness.instance)}"
    assert f"waiting for the lock: {lease} is held by " in laptop.stderr, laptop.stderr
    assert f"/{in_pod.pid}" in laptop.stderr
    assert laptop.returncode == 0, laptop.stderr
    # It ran once the other was done: everything was already applied.
    assert laptop.stdout.splitlines()[-1].startswith("Apply: 0 created, 0 configured"), laptop


def test_a_lock_namespace_that_does_not_exist_is_named_with_what_to_do(
    harness: Harness, kubeconfig: Path
) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})

    ran = subprocess.run(
        apply_argv(harness, "--kubeconfig", str(kubeconfig), "--lock-namespace", "no-such-ns"),
        cwd=ROOT, env=driftctl_env(), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert ran.returncode == 4, ran.stderr
    assert ran.stderr.splitlines() == [
        "error: the run lock's namespace no-such-ns does not exist "
        '(404 NotFound: namespaces "no-such-ns" not found)',
        "hint: every run of an instance keeps its lock in one namespace: create it "
        "(`kubectl create namespace no-such-ns`; `driftctl install` does), or name another "
        "with --lock-namespace, the same for every run of this instance",
    ]
    assert harness.names("webapps") == []


def test_plan_warns_of_a_lock_namespace_that_does_not_exist_not_of_a_lease_no_run_took(
    harness: Harness, kubeconfig: Path, control_plane: launcher.ControlPlane
) -> None:
    """Issue 34: plan read the Lease, got 404 and went on in silence, so it could not see a
    suspension of the instance set where its runs keep the lock."""
    harness.declare({"shop": ("nginx:1.27", 1)})
    plan = [*apply_argv(harness, "--kubeconfig", str(kubeconfig))]
    plan[plan.index("apply")] = "plan"

    def planned(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*plan, *flags], cwd=ROOT, env=driftctl_env(), capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip

    before = request_counts(control_plane)
    missing = planned("--lock-namespace", "no-such-ns")
    between = request_counts(control_plane)
    first_run = planned("--lock-namespace", LOCK_NAMESPACE)  # no run took its Lease yet

    assert missing.returncode == 1, missing.stderr
    assert missing.stderr.splitlines() == [
        "warning: the run lock's namespace no-such-ns does not exist, so a suspension of the "
        "instance (set on its Lease there) cannot be read: planned as if there is none; "
        "apply would stop before taking its lock. Create it (`kubectl create namespace "
        "no-such-ns`; `driftctl install` does), or name the one every run of this instance "
        "uses with --lock-namespace",
    ]
    # Read once, after the Lease's 404. (Only reads are counted: the namespace controller
    # finalizes other tests' namespaces with PUTs at any time.)
    read = {key[:3]: n for key, n in delta(before, between, ("namespaces",)).items()}
    assert {key: n for key, n in read.items() if key[2] in ("GET", "LIST")} == {
        ("namespaces", "", "GET"): 1
    }
    assert first_run.returncode == 1, first_run.stderr
    assert first_run.stderr == ""
