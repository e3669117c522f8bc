"""The test control plane from a test's side: one of its own, accounts on it, its request
counters, and releasing what would keep a namespace Terminating.

The control plane itself (etcd, kube-apiserver, kube-controller-manager, a node) is the
tool in tests/controlplane; tests/integration/conftest.py holds the session's fixtures.
Accounts are the CronJob's RBAC (cronjob/, rendered by tests/support/kustomize.py) or a
variant of it, given a token kubeconfig; requests are counted from the API server's own
/metrics.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from kubernetes import client

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.harness import LOCK_NAMESPACE, Harness, Obj, driftctl_env, eventually
from tests.support.kustomize import account
from tests.support.paths import CRD_FILE, ROOT


@contextlib.contextmanager
def own_control_plane(folder: Path) -> Iterator[launcher.ControlPlane]:
    """A control plane in `folder`, with the CRD, stopped at the end: the suite's, or one
    a test module may stop, restart or break without disturbing the others."""
    plane = launcher.start(folder, [CRD_FILE])
    try:
        yield plane
    finally:
        launcher.stop(folder)


def kubectl_of(plane: launcher.ControlPlane, *args: str) -> str:
    """kubectl as the admin of `plane`; AssertionError naming the command when it fails."""
    done = subprocess.run(
        [str(plane.bin_dir / "kubectl"), f"--kubeconfig={plane.kubeconfig}", *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
    return done.stdout


def driftctl_on(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m driftctl ARGS --kubeconfig KUBECONFIG`, to its end, in a clean environment."""
    return subprocess.run(
        [sys.executable, "-m", "driftctl", *args, "--kubeconfig", str(kubeconfig)],
        capture_output=True, text=True, check=False, cwd=ROOT, env=driftctl_env(), timeout=300,
    )  # fmt: skip


def grant(
    plane: launcher.ControlPlane,
    kubectl: Sequence[str],
    documents: Sequence[Obj],
    account: str,
    folder: Path,
) -> Path:
    """Apply RBAC documents (cronjob/'s, or a variant) and return a kubeconfig in `folder`
    acting with a token of the ServiceAccount `account` (of driftctl-system)."""
    manifest = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(documents)})
    subprocess.run(
        [*kubectl, "apply", "--server-side", "-f", "-"],
        input=manifest,
        text=True,
        check=True,
        capture_output=True,
    )
    token = subprocess.run(
        [*kubectl, "create", "token", account, "-n", LOCK_NAMESPACE, "--duration=6h"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    admin = json.loads(plane.kubeconfig.read_text())
    admin["users"] = [{"name": account, "user": {"token": token}}]
    admin["contexts"][0]["context"]["user"] = account
    path = folder / "kubeconfig"
    path.write_text(json.dumps(admin))
    path.chmod(0o600)
    return path


def for_account(document: dict[str, Any], name: str) -> dict[str, Any]:
    """An RBAC document given to another account: its subjects are that ServiceAccount, and
    its name and its role's are that account's (`driftctl-crd` for account `x` is `x-crd`,
    so that two roles of one kind never take one name)."""
    document["metadata"]["name"] = _renamed(document["metadata"]["name"], name)
    for subject in document.get("subjects", []):
        subject["name"] = name
    if "roleRef" in document:
        document["roleRef"]["name"] = _renamed(document["roleRef"]["name"], name)
    return document


def _renamed(original: str, account: str) -> str:
    return account + original.removeprefix("driftctl")


def account_kubeconfig(
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    documents: list[dict[str, Any]],
    account: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """Apply RBAC documents and return a kubeconfig with a token of `account`."""
    return grant(control_plane, kubectl, documents, account, tmp_path_factory.mktemp(account))


def operator_kubeconfig(
    control_plane: launcher.ControlPlane,
    kubectl: list[str],
    name: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """A kubeconfig of the ServiceAccount `name` with operator/'s RBAC (the CronJob's, plus
    watch), its roles renamed after it (for_account)."""
    documents = account(control_plane.bin_dir / "kubectl", ROOT / "operator")
    renamed = [for_account(d, name) for d in documents if d["kind"] != "Namespace"]
    return account_kubeconfig(control_plane, kubectl, renamed, name, tmp_path_factory)


def release_finalizers(kube_client: client.ApiClient, namespace: str) -> None:
    """Take the finalizers off every WebApp in `namespace`, as the manual recovery of
    docs/how-to/stuck-finalizer.md does: with no driftctl running, they would keep the
    namespace Terminating."""
    objects = client.CustomObjectsApi(kube_client)
    listed = cast(
        dict[str, Any],
        objects.list_namespaced_custom_object(c.GROUP, c.VERSION, namespace, c.PLURAL),
    )
    for item in listed["items"]:
        if item["metadata"].get("finalizers"):
            objects.patch_namespaced_custom_object(
                c.GROUP,
                c.VERSION,
                namespace,
                c.PLURAL,
                item["metadata"]["name"],
                {"metadata": {"finalizers": None}},
                _content_type="application/merge-patch+json",
            )


Series = tuple[str, str, str, str, str, str]  # resource, subresource, verb, scope, dry_run, code


@dataclass(frozen=True)
class Requests:
    """The API server's own request counters at one moment.

    `by_series` is apiserver_request_total (every client). `service_accounts` is what API
    Priority and Fairness dispatched for ServiceAccounts: in this suite only driftctl runs
    as one (the admin and the controller manager are exempt), so it counts driftctl alone.
    """

    by_series: Counter[Series]  # with streamed lists as the verb STREAMED_LIST
    service_accounts: int
    # LIST requests the API server sent etcd for WebApps and Deployments: those its watch
    # cache could not answer (a paged LIST's later pages, once a compaction passed with no
    # change of the kind: benchmarks/list_after_compaction.py).
    etcd_lists: int = 0


def request_counts(plane: launcher.ControlPlane) -> Requests:
    """Read the counters from the API server's /metrics."""
    code, body = launcher.get(plane.folder, plane.server, "/metrics", timeout=30)
    assert code == 200
    return counts_in(body)


def counts_in(body: str) -> Requests:
    """The counters in the text of the API server's /metrics."""
    counts: Counter[Series] = Counter()
    dispatched = etcd_lists = 0
    for line in body.splitlines():
        name, _, rest = line.partition("{")
        if name not in (
            "apiserver_request_total",
            "apiserver_flowcontrol_dispatched_requests_total",
            "etcd_request_duration_seconds_count",
            "apiserver_watch_list_duration_seconds_count",
        ):
            continue
        labels_text, value = rest.rsplit("} ", 1)
        labels = dict(_LABEL.findall(labels_text))
        if name == "apiserver_watch_list_duration_seconds_count":
            streamed: Series = (
                labels.get("resource", ""),
                "",
                STREAMED_LIST,
                labels.get("scope", ""),
                "",
                "",
            )
            counts[streamed] += int(float(value))
            continue
        if name == "etcd_request_duration_seconds_count":
            listed = labels.get("operation", "").startswith("list")
            if listed and labels.get("resource") in _ETCD_LISTED:
                etcd_lists += int(float(value))
            continue
        if name == "apiserver_request_total":
            key: Series = (
                labels.get("resource", ""),
                labels.get("subresource", ""),
                labels.get("verb", ""),
                labels.get("scope", ""),
                labels.get("dry_run", ""),
                labels.get("code", ""),
            )
            counts[key] += int(float(value))
        elif labels.get("flow_schema") == "service-accounts":
            dispatched += int(float(value))
    return Requests(counts, dispatched, etcd_lists)


_ETCD_LISTED = ("webapps", "deployments")
# A streamed list is a WATCH, which apiserver_request_total counts only once it ends (its
# client leaves after the list): the series of this verb count them as their objects were
# sent, from apiserver_watch_list_duration_seconds (only WATCHes with sendInitialEvents).
STREAMED_LIST = "STREAMED-LIST"
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def delta(before: Requests, after: Requests, resources: Sequence[str]) -> Counter[Series]:
    """Requests (by any client) made between two snapshots to the given resources, WATCHes aside.

    The controller manager's informers end their WATCHes after 5 to 10 minutes and open them
    again at once, so a WATCH of Pods or Deployments can fall in any window by chance (a CI
    run saw one). No batch run of driftctl watches; what `watch` opens is counted from its
    own metrics, and `Requests.service_accounts` still counts every request driftctl sends.
    """
    old, new = before.by_series, after.by_series
    return Counter(
        {
            k: new[k] - old[k]
            for k in new
            if k[0] in resources and k[2] != "WATCH" and new[k] != old[k]
        }
    )


GARBAGE = ("deployments", "webapps", "replicasets", "pods")  # what a gone namespace leaves


def quiet(harness: Harness) -> None:
    """Wait until no namespace is terminating and nobody has asked about the objects an
    earlier test left for a second: the namespace controller's requests would count, and so
    would the garbage collector's, which deletes the dependents of deleted owners after
    their namespace is gone (a CI run counted 17 GETs and 2 DELETEs of Deployments, 404)."""

    def settled() -> bool:
        spaces = json.loads(harness.kubectl("get", "namespaces", "-o", "json"))["items"]
        return all(ns["status"].get("phase") != "Terminating" for ns in spaces)

    assert eventually(settled, 120), "namespaces still terminating"
    last = [counts_in(harness.kubectl("get", "--raw", "/metrics"))]

    def idle() -> bool:
        time.sleep(1.0)
        now = counts_in(harness.kubectl("get", "--raw", "/metrics"))
        still, last[0] = not delta(last[0], now, GARBAGE), now
        return still

    assert eventually(idle, 120), "the garbage collector is still busy"
