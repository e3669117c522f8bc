"""THE node test: cronjob/ installed as shipped, changed only by the node's overlay, runs.

The CronJob fires on its schedule (every minute, the overlay's), its Job's Pod runs the
driftctl image as the ServiceAccount driftctl, with the projected token and no
kubeconfig, reads a Git repository over HTTP from a server on loopback that wants the
token mounted from the Secret driftctl-git, converges, and the Job completes. The
WebApps' Pods (localhost/hello:1) really start. The next runs are Jobs made from the
CronJob's own jobTemplate (`kubectl create job --from=cronjob/driftctl`: the same Pod,
without waiting a minute for each): the second writes each WebApp's status from its
Deployment, now that real Pods are available. Then one permission leaves the ClusterRole
(`list` on Deployments, which every run needs first): the next Job fails with exit 4 and
one error line naming that permission, before anything is written.
"""

from __future__ import annotations

import base64
import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import webapp
from tests.support.gitrepos import Repo, http_git_server
from tests.support.kustomize import (
    CRONJOB,
    NAMESPACE,
    Obj,
    named,
    render,
    settings_patch,
    write_overlay,
)
from tests.support.node import NodeCluster, wait_for
from tests.support.paths import ROOT

NODE_OVERLAY = ROOT / "tests" / "node" / "overlay"
TOKEN = "tok-node-3b9f1c7d2e"
USERNAME = "x-access-token"
APPS_NAMESPACE = "webapps"
APPS = {"shop": 2, "blog": 1}
FIRST_RUN_SECONDS = 150.0  # the schedule's next minute, then the Pod's run
ACCOUNT = f"system:serviceaccount:{NAMESPACE}:driftctl"


@pytest.fixture
def git_server(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """The WebApps in a repository served on loopback, for the token only; its URL and the
    Authorization headers it saw."""
    served = tmp_path / "served"
    repo = Repo(served / "webapps.git")
    repo.write(
        {
            f"apps/{name}.yaml": webapp(name, "localhost/hello:1", count, namespace=APPS_NAMESPACE)
            for name, count in APPS.items()
        }
    )
    repo.commit("two webapps")
    with http_git_server(served, USERNAME, TOKEN) as (base, seen):
        yield f"{base}/webapps.git", seen


def machine_overlay(folder: Path, cluster: NodeCluster, repo_url: str) -> Path:
    """The node's overlay, plus what only this run knows: the API server's port, the URL."""
    environment = [
        {"name": name, "value": value}
        for name, value in cluster.node.host_network_environment().items()
    ]
    cronjob_patch = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "driftctl", "namespace": NAMESPACE},
        "spec": {
            "jobTemplate": {
                "spec": {
                    "template": {"spec": {"containers": [{"name": "driftctl", "env": environment}]}}
                }
            }
        },
    }
    settings = settings_patch(CRONJOB, repo=repo_url)  # the file the Pod reads, its repository
    patches = [{"patch": json.dumps(patch)} for patch in (cronjob_patch, settings)]
    return write_overlay(folder, [NODE_OVERLAY], patches=patches)


def install(cluster: NodeCluster, documents: list[Obj], token_file: Path) -> None:
    """Everything but the CronJob, then the Git Secret, then the CronJob: it may fire at
    once, and its Pod must find the Secret."""
    cluster.apply(*[d for d in documents if d["kind"] != "CronJob"])
    cluster.run(
        "create", "secret", "generic", "driftctl-git", "-n", NAMESPACE,
        f"--from-file=token={token_file}",
    )  # fmt: skip
    cluster.apply(named(documents, "CronJob", "driftctl"))


def jobs(cluster: NodeCluster) -> list[Obj]:
    items: list[Obj] = cluster.get("jobs", "-n", NAMESPACE)["items"]
    return items


def scheduled_job(cluster: NodeCluster) -> Obj | None:
    """A Job the CronJob controller made on the schedule (not one made by hand)."""
    for job in jobs(cluster):
        owners = job["metadata"].get("ownerReferences", [])
        manual = job["metadata"].get("annotations", {}).get("cronjob.kubernetes.io/instantiate")
        if any(o["kind"] == "CronJob" and o["name"] == "driftctl" for o in owners) and not manual:
            return job
    return None


def finished(cluster: NodeCluster, name: str) -> Obj | None:
    """The Job once it is Complete or Failed."""
    job = cluster.get("job", name, "-n", NAMESPACE)
    conditions = job.get("status", {}).get("conditions", [])
    done = any(c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in conditions)
    return job if done else None


def condition(job: Obj) -> str:
    [done] = [
        c["type"]
        for c in job["status"]["conditions"]
        if c["type"] in ("Complete", "Failed") and c["status"] == "True"
    ]
    return str(done)


def pod_of(cluster: NodeCluster, job: str) -> Obj:
    pods: list[Obj] = cluster.get("pods", "-n", NAMESPACE, "-l", f"job-name={job}")["items"]
    [pod] = pods
    return pod


def log_of(cluster: NodeCluster, job: str) -> list[dict[str, Any]]:
    """The Job's Pod's log: JSON lines (log-format: json in the settings file it reads)."""
    printed = cluster.run("logs", f"job/{job}", "-n", NAMESPACE)
    lines: list[dict[str, Any]] = [json.loads(line) for line in printed.splitlines()]
    return lines


def run_by_hand(cluster: NodeCluster, name: str) -> Obj:
    """A Job from the CronJob's jobTemplate, run to its end."""
    cluster.run("create", "job", name, "--from=cronjob/driftctl", "-n", NAMESPACE)
    job: Obj = wait_for(f"Job {name} to end", lambda: finished(cluster, name))
    return job


def seconds(job: Obj) -> float:
    """From the Job's creation (the CronJob firing) to its completion, as the API records."""

    def parsed(stamp: str) -> datetime.datetime:
        return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))

    created, completed = job["metadata"]["creationTimestamp"], job["status"]["completionTime"]
    return (parsed(completed) - parsed(created)).total_seconds()


def written_versions(cluster: NodeCluster) -> dict[str, str]:
    """What a write by driftctl would change: each WebApp's resourceVersion, and each
    Deployment's generation (its status moves with its Pods, its generation only with a
    write to its spec)."""
    items = cluster.get("webapps,deployments", "-n", APPS_NAMESPACE)["items"]
    return {
        f"{i['kind']}/{i['metadata']['name']}": i["metadata"]["resourceVersion"]
        if i["kind"] == "WebApp"
        else str(i["metadata"]["generation"])
        for i in items
    }


def webapp_statuses(cluster: NodeCluster) -> dict[str, Obj]:
    items: list[Obj] = cluster.get("webapps", "-n", APPS_NAMESPACE)["items"]
    return {item["metadata"]["name"]: item.get("status", {}) for item in items}


def without_reading_deployments(cluster: NodeCluster) -> None:
    """Neither `watch` (a streamed list) nor `list` (its pages) on Deployments."""
    role = cluster.get("clusterrole", "driftctl")
    [rule] = [rule for rule in role["rules"] if rule["resources"] == ["deployments"]]
    rule["verbs"] = [verb for verb in rule["verbs"] if verb not in ("list", "watch")]
    cluster.run("replace", "-f", "-", stdin=json.dumps(role))


def first_scheduled_run(cluster: NodeCluster) -> Obj:
    """The Job the schedule makes, run to its end; the CronJob is suspended once it fired,
    so that the Jobs made by hand afterwards are the only ones."""
    fired = wait_for("the schedule to fire", lambda: scheduled_job(cluster), FIRST_RUN_SECONDS)
    cluster.run("patch", "cronjob", "driftctl", "-n", NAMESPACE, "-p", '{"spec":{"suspend":true}}')
    name = fired["metadata"]["name"]
    job: Obj = wait_for(f"Job {name} to end", lambda: finished(cluster, name))
    return job


def assert_it_ran_in_cluster_and_converged(cluster: NodeCluster, job: Obj, image: str) -> None:
    """The Pod ran the image as the ServiceAccount with its projected token, and applied."""
    name = job["metadata"]["name"]
    pod, logged = pod_of(cluster, name), log_of(cluster, name)
    assert condition(job) == "Complete", logged
    spec = pod["spec"]
    assert spec["serviceAccountName"] == "driftctl"
    assert spec["containers"][0]["image"] == image
    assert any("serviceAccountToken" in str(v.get("projected", {})) for v in spec["volumes"])
    assert not [e for e in spec["containers"][0].get("env", []) if e["name"] == "KUBECONFIG"]
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 0
    summary = logged[-1]
    assert (summary["event"], summary["exit_code"]) == ("summary", 0)
    assert summary["outcomes"]["created"] == 2 * len(APPS)


def assert_the_webapps_pods_run(cluster: NodeCluster) -> None:
    for app in APPS:
        cluster.run("rollout", "status", f"deployment/{app}", "-n", APPS_NAMESPACE, "--timeout=90s")
    pods = cluster.get("pods", "-n", APPS_NAMESPACE)["items"]
    assert sorted(p["spec"]["containers"][0]["image"] for p in pods) == ["localhost/hello:1"] * 3
    assert {p["spec"]["nodeName"] for p in pods} == {cluster.node.name}


def assert_the_status_follows_the_pods(cluster: NodeCluster) -> None:
    job = run_by_hand(cluster, "driftctl-status")
    logged = log_of(cluster, "driftctl-status")
    assert condition(job) == "Complete", logged
    statuses = webapp_statuses(cluster)
    for app, replicas in APPS.items():
        assert statuses[app]["ready"] is True, statuses[app]
        assert statuses[app]["available_replicas"] == replicas
        [ready] = [c for c in statuses[app]["conditions"] if c["type"] == "Ready"]
        assert ready["status"] == "True"
    written = [line for line in logged if line["event"] == "status"]
    assert {(line["name"], line["ready"]) for line in written} == {(app, True) for app in APPS}


def assert_a_missing_permission_stops_the_run_with_exit_4(cluster: NodeCluster) -> None:
    versions = written_versions(cluster)
    without_reading_deployments(cluster)
    job = run_by_hand(cluster, "driftctl-forbidden")

    logged = log_of(cluster, "driftctl-forbidden")
    assert condition(job) == "Failed"
    terminated = pod_of(cluster, "driftctl-forbidden")["status"]["containerStatuses"][0]
    assert terminated["state"]["terminated"]["exitCode"] == 4
    errors = [line for line in logged if line["level"] == "error"]
    assert [line["event"] for line in errors] == ["error", "summary"]
    assert errors[0]["message"] == (
        f'list deployments: 403 Forbidden: deployments.apps is forbidden: User "{ACCOUNT}" '
        'cannot list resource "deployments" in API group "apps" at the cluster scope'
    )
    assert errors[0]["exit_code"] == errors[1]["exit_code"] == 4
    assert written_versions(cluster) == versions


def test_the_cronjob_converges_the_cluster_from_git_and_stops_with_exit_4_without_a_permission(
    cluster: NodeCluster,
    driftctl_image_name: str,
    git_server: tuple[str, list[str]],
    tmp_path: Path,
) -> None:
    repo_url, seen = git_server
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    cluster.run("create", "namespace", APPS_NAMESPACE)
    documents = render(
        cluster.plane.bin_dir / "kubectl", machine_overlay(tmp_path / "overlay", cluster, repo_url)
    )
    install(cluster, documents, token_file)

    first = first_scheduled_run(cluster)
    print(f"\nthe scheduled Job ran to Complete in {seconds(first):.0f} s")  # measured only

    assert_it_ran_in_cluster_and_converged(cluster, first, driftctl_image_name)
    basic = base64.b64encode(f"{USERNAME}:{TOKEN}".encode()).decode()
    assert seen, "the Pod fetched from the Git server"
    assert set(seen) == {f"Basic {basic}"}, "every fetch had the Secret's token"
    assert_the_webapps_pods_run(cluster)
    assert_the_status_follows_the_pods(cluster)
    assert_a_missing_permission_stops_the_run_with_exit_4(cluster)
