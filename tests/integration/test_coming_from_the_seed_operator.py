"""Coming from the seed operator: its CRD, its objects, and a migration that restarts nothing.

A control plane of this module's own holds the seed operator's CRD (tests/seedoperator/
crd.yaml: its status declares only `available_replicas` and `ready`), and each test the
objects the operator leaves behind once stopped (tests/support/seed_operator.py: WebApps
with its finalizer, Deployments it applied with field manager `webapp-operator` and the
selector `app=<name>`, the status it last wrote). driftctl runs as the CronJob's
ServiceAccount:

- the first apply adopts every WebApp and every Deployment as it runs: same Deployment,
  same Pod template (so the same ReplicaSet: without a node, no controller makes one
  here; tests/node shows the Pods), same generation; it writes a status only where it
  changed, in the two fields the CRD declares, and says once that the CRD lacks the others;
  exit 0, and the next run writes nothing;
- a status the schema refuses (a run that cannot read the CRD writes driftctl's whole
  status) is sent once per WebApp, not retried: the object fails with the server's words;
- a WebApp the operator made, once adopted and then removed from Git, is pruned through
  the finalizer the two share;
- `driftctl watch` reads the CRD with each full pass and writes a status through it
  between them, one WebApp at a time;
- `driftctl crd --diff` shows what an upgrade of the CRD changes; upgraded, a run writes
  every status field, and leaves the operator's Deployments as they are.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import config

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.clirun import run_driftctl
from tests.support.control_plane import (
    Requests,
    account_kubeconfig,
    delta,
    for_account,
    request_counts,
)
from tests.support.gitrepos import Repo
from tests.support.harness import Harness, Obj, eventually
from tests.support.kustomize import account
from tests.support.paths import ROOT
from tests.support.rollouts import served
from tests.support.seed_operator import (
    MANAGER,
    SEED_CRD_FILE,
    Made,
    as_the_operator_left_them,
)
from tests.support.watching import Watching

# shop's status is behind its Pods (the operator last saw 1 of 2): the one status to write.
FLEET = {
    "shop": Made("nginx:1.27", 2, available=2, reported=1),
    "blog": Made("ghost:5", 1, available=1, reported=1),
    "cart": Made("nginx:1.27", 3, available=3, reported=3),
}
MISSING = (
    "status.observedGeneration, status.conditions, status.lastAppliedRevision, "
    "status.ignoredFields, status.lastVerifiedRevision, status.lastVerifiedKey, "
    "status.corrections, status.servingRevision, status.images, status.mixedDigests, "
    "status.imagesGeneration"
)
CRD_LINE = (
    f"warning: the installed CRD webapps.example.com lacks {MISSING}: status is written "
    "without them; `driftctl crd --diff` shows what an upgrade changes, "
    "`driftctl crd | kubectl apply --server-side -f -` makes it"
)
WRITES = frozenset({"APPLY", "PATCH", "POST", "PUT", "DELETE"})


@pytest.fixture(scope="module")
def seed_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[launcher.ControlPlane]:
    """A control plane whose WebApp CRD is the seed operator's."""
    folder = tmp_path_factory.mktemp("seed-plane")
    plane = launcher.start(folder, [SEED_CRD_FILE])
    try:
        yield plane
    finally:
        launcher.stop(folder)


@pytest.fixture(scope="module")
def admin(seed_plane: launcher.ControlPlane) -> list[str]:
    return [str(seed_plane.bin_dir / "kubectl"), f"--kubeconfig={seed_plane.kubeconfig}"]


@pytest.fixture(scope="module")
def cronjob_account(
    seed_plane: launcher.ControlPlane, admin: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The CronJob's ServiceAccount with cronjob/'s RBAC (the read of the CRD included)."""
    documents = account(seed_plane.bin_dir / "kubectl")
    return account_kubeconfig(seed_plane, admin, documents, "driftctl", tmp_path_factory)


@pytest.fixture(scope="module")
def no_crd_account(
    seed_plane: launcher.ControlPlane,
    admin: list[str],
    cronjob_account: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """The same RBAC less the read of the CRD: an installation from before driftctl read it."""
    documents = account(seed_plane.bin_dir / "kubectl")
    kept = [
        for_account(d, "driftctl-nocrd")
        for d in documents
        if d["kind"] != "Namespace" and d["metadata"]["name"] != "driftctl-crd"
    ]
    return account_kubeconfig(seed_plane, admin, kept, "driftctl-nocrd", tmp_path_factory)


@pytest.fixture(scope="module")
def operator_account(
    seed_plane: launcher.ControlPlane,
    admin: list[str],
    cronjob_account: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """operator/'s RBAC: the CronJob's, plus watch."""
    documents = account(seed_plane.bin_dir / "kubectl", ROOT / "operator")
    renamed = [for_account(d, "driftctl-watch") for d in documents if d["kind"] != "Namespace"]
    return account_kubeconfig(seed_plane, admin, renamed, "driftctl-watch", tmp_path_factory)


@pytest.fixture
def harness(
    seed_plane: launcher.ControlPlane, admin: list[str], cronjob_account: Path, tmp_path: Path
) -> Harness:
    """The seed operator's objects in a fresh namespace; Git declares the same WebApps."""
    namespace = f"seed-{secrets.token_hex(3)}"
    subprocess.run([*admin, "create", "namespace", namespace], check=True, capture_output=True)
    harness = Harness(Repo(tmp_path / "repo"), namespace, namespace, cronjob_account, admin)
    as_the_operator_left_them(harness, FLEET)
    harness.declare({name: (made.image, made.replicas) for name, made in FLEET.items()})
    return harness


def deployments(harness: Harness) -> dict[str, Obj]:
    listed = json.loads(
        harness.kubectl("get", "deployments", "-n", harness.namespace, "-o", "json")
    )
    return {item["metadata"]["name"]: item for item in listed["items"]}


def writes(before: Requests, after: Requests) -> Counter[str]:
    """Writes to WebApps and Deployments between two readings, by resource and code."""
    out: Counter[str] = Counter()
    for (resource, sub, verb, _, dry_run, code), count in delta(
        before, after, ("webapps", "deployments")
    ).items():
        if verb in WRITES and not dry_run:
            out[f"{resource}{'/' + sub if sub else ''} {verb} {code}"] += count
    return out


def crd_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "installed CRD" in line]


def test_the_operator_s_objects_are_adopted_and_nothing_restarts(
    harness: Harness, seed_plane: launcher.ControlPlane
) -> None:
    ns = harness.namespace
    before_run = deployments(harness)

    planned = harness.driftctl("plan")
    counted = request_counts(seed_plane)
    applied = harness.driftctl("apply")
    after_apply = request_counts(seed_plane)
    again = harness.driftctl("apply")
    after_again = request_counts(seed_plane)
    replanned = harness.driftctl("plan")

    # The plan: every object adopt, each Deployment with why its Pods stay; one CRD line.
    assert planned.code == 1, planned.err
    for name in FLEET:
        assert f"~ WebApp/{ns}/{name}: adopt (made without an instance label" in planned.out
        assert (
            f"~ Deployment/{ns}/{name}: adopt (its WebApp controls it; its selector "
            f"app={name} and Pod template are kept, so no Pod restarts (--recreate moves it "
            f"to driftctl's selector); taken over from {MANAGER})"
        ) in planned.out
    assert "spec." not in planned.out  # neither selector, template nor replicas change
    assert planned.out.splitlines()[-1] == (
        "Plan: 0 to create, 0 to update, 6 to adopt, 0 to prune, 0 unchanged"
    )
    assert crd_lines(planned.err) == [CRD_LINE]
    # The apply: what the plan said, exit 0, the same line once.
    assert applied.code == 0, applied.err
    assert applied.out.splitlines()[-1] == (
        "Apply: 0 created, 6 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed"
    )
    assert crd_lines(applied.err) == [CRD_LINE]
    # The same Deployments, the same Pod templates (the ReplicaSet's hash), no new generation.
    after_run = deployments(harness)
    for name, old in before_run.items():
        new = after_run[name]
        assert new["metadata"]["uid"] == old["metadata"]["uid"]
        assert new["metadata"]["generation"] == old["metadata"]["generation"]
        assert new["spec"]["template"] == old["spec"]["template"]
        assert new["spec"]["selector"] == {"matchLabels": {"app": name}}
        assert new["metadata"]["labels"][c.INSTANCE_LABEL] == harness.instance
    # Status: only shop's changed, written once, in the CRD's two fields; no refusal.
    statuses = {name: (harness.get("webapp", name) or {})["status"] for name in FLEET}
    assert statuses == {
        "shop": {"available_replicas": 2, "ready": True},
        "blog": {"available_replicas": 1, "ready": True},
        "cart": {"available_replicas": 3, "ready": True},
    }
    assert f"status WebApp/{ns}/shop: ready (2 available)" in applied.out.splitlines()
    assert writes(counted, after_apply) == {
        "webapps PATCH 200": 3,  # kubectl's last-applied annotation, set outside Git, removed
        "webapps APPLY 200": 3,
        "deployments APPLY 200": 3,
        "webapps/status APPLY 200": 1,
    }
    # The second run writes nothing, and the plan after it is empty.
    assert again.code == 0, again.err
    assert again.out.splitlines()[-1] == (
        "Apply: 0 created, 0 configured, 0 deleted, 6 unchanged, 0 skipped, 0 failed"
    )
    assert writes(after_apply, after_again) == {}
    assert replanned.code == 0, replanned.out
    assert crd_lines(replanned.err) == [CRD_LINE]


def test_a_status_the_schema_refuses_is_sent_once_and_fails_with_the_server_s_words(
    harness: Harness, seed_plane: launcher.ControlPlane, no_crd_account: Path
) -> None:
    """Without the CRD's schema (RBAC from before driftctl read it) a run writes driftctl's
    whole status: the server refuses it with a 500, every time, so it is sent once."""
    before = request_counts(seed_plane)

    applied = harness.driftctl("apply", kubeconfig=no_crd_account)

    after = request_counts(seed_plane)
    assert applied.code == 5, applied.err
    [warning] = crd_lines(applied.err)
    assert warning.startswith(
        "warning: could not read the installed CRD webapps.example.com (403 Forbidden: "
    )
    failed = [line for line in applied.out.splitlines() if line.startswith("failed")]
    assert len(failed) == len(FLEET)
    for line in failed:
        name = line.split(f"/{harness.namespace}/")[1].split(":")[0]
        said = re.escape(
            f"writing its status: 500: failed to create typed patch object ({harness.namespace}/"
            f"{name}; example.com/v1, Kind=WebApp): "
        )
        # The server names the first field it found undeclared: any of the five.
        assert re.search(said + r"\.status\.\w+: field not declared in schema$", line), line
    refused = writes(before, after)
    assert refused["webapps/status APPLY 500"] == len(FLEET)  # one each: none retried
    assert "note: retrying" not in applied.err


def test_a_webapp_the_operator_made_is_pruned_through_the_shared_finalizer(
    harness: Harness,
) -> None:
    ns = harness.namespace
    assert harness.driftctl("apply").code == 0
    harness.declare({"shop": ("nginx:1.27", 2), "blog": ("ghost:5", 1)})

    planned = harness.driftctl("plan")
    pruned = harness.driftctl("apply")

    assert f"- WebApp/{ns}/cart: prune" in planned.out
    assert f"    deletes Deployment/{ns}/cart during cleanup" in planned.out
    assert pruned.code == 0, pruned.err
    assert f"deleted WebApp/{ns}/cart" in pruned.out
    assert harness.get("webapp", "cart") is None
    assert harness.get("deployment", "cart") is None
    assert sorted(deployments(harness)) == ["blog", "shop"]


def test_watch_writes_each_status_through_the_crd_it_read(
    harness: Harness, seed_plane: launcher.ControlPlane, operator_account: Path
) -> None:
    """The start pass adopts and reads the CRD; a Pod of shop going away (its Deployment's
    status) is one WebApp's reconcile, which writes shop's status in the CRD's two fields."""
    watching = Watching(harness, operator_account)
    try:
        assert eventually(watching.ready, 60), watching.log()
        assert eventually(lambda: watching.said("full start pass"), 60), watching.log()
        before = request_counts(seed_plane)
        one_gone = {"status": {"availableReplicas": 1, "readyReplicas": 1}}
        harness.kubectl(
            "patch", "deployment", "shop", "-n", harness.namespace, "--subresource=status",
            "--type=merge", "-p", json.dumps(one_gone),
        )  # fmt: skip

        def shop_status() -> Any:
            return (harness.get("webapp", "shop") or {}).get("status")

        assert eventually(lambda: shop_status() == {"available_replicas": 1, "ready": False}, 30), (
            watching.log()
        )
        after = request_counts(seed_plane)
    finally:
        stopped = watching.stop()
    assert stopped == 0, watching.log()
    assert writes(before, after)["webapps/status APPLY 200"] == 1
    assert not [key for key in writes(before, after) if key.endswith(" 500")]
    assert len([line for line in watching.err if "installed CRD" in line]) == 1, watching.log()


def test_apply_wait_follows_a_rollout_through_the_seed_crd_writing_only_what_it_declares(
    harness: Harness, seed_plane: launcher.ControlPlane
) -> None:
    """`apply --wait` writes the status as the rollout moves, during the wait too: through
    the seed operator's CRD, only the two fields it declares (a field it does not declare
    is refused with a 500, every time), and the wait ends with the rollout."""
    assert harness.driftctl("apply").code == 0  # adopted
    harness.declare(
        {**{n: (m.image, m.replicas) for n, m in FLEET.items()}, "shop": ("nginx:1.28", 2)}
    )
    before = request_counts(seed_plane)
    waiting = harness.start("apply", "--wait", "--wait-timeout", "60")

    def applied() -> bool:
        deployment = deployments(harness)["shop"]
        return bool(
            deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
        )

    assert eventually(applied, 60)
    api = config.new_client_from_config(config_file=str(seed_plane.kubeconfig))  # type: ignore[no-untyped-call]
    try:
        served(api, harness.namespace, "shop")  # as the controllers and a kubelet would
    finally:
        api.close()
    out, err = waiting.communicate(timeout=120)
    after = request_counts(seed_plane)

    assert waiting.returncode == 0, out + err
    assert out.splitlines()[-1] == "Rollouts: 1 complete, 0 stalled, 0 timed out (of 1 waited for)"
    assert not [key for key in writes(before, after) if not key.endswith(" 200")]
    assert writes(before, after)["webapps/status APPLY 200"] >= 2  # in the run, in the wait
    status = (harness.get("webapp", "shop") or {})["status"]
    assert status == {"available_replicas": 2, "ready": True}


def test_the_crd_upgrade_is_shown_then_made_and_a_run_writes_every_status_field(
    harness: Harness,
    seed_plane: launcher.ControlPlane,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Last in this module: it upgrades the module's CRD, and puts the seed's back after."""
    assert harness.driftctl("apply").code == 0
    templates = {name: d["spec"]["template"] for name, d in deployments(harness).items()}
    diff = ["crd", "--diff", "--kubeconfig", str(seed_plane.kubeconfig)]
    try:
        shown = run_driftctl(diff, capsys, monkeypatch)
        upgrade = run_driftctl(["crd"], capsys, monkeypatch).out
        harness.kubectl("apply", "--server-side", "-f", "-", stdin=upgrade)
        after = run_driftctl(diff, capsys, monkeypatch)
        applied = harness.driftctl("apply")
        status: dict[str, Any] = (harness.get("webapp", "shop") or {})["status"]
        again = harness.driftctl("apply")
    finally:
        harness.kubectl("replace", "-f", str(SEED_CRD_FILE))

    assert shown.code == 1, shown.err
    assert "+              conditions:" in shown.out.splitlines()
    assert "-            nullable: true" in shown.out.splitlines()
    assert after.code == 0, after.out
    assert after.out == ""
    assert applied.code == 0, applied.err
    assert crd_lines(applied.err) == []
    assert set(status) == {
        "available_replicas",
        "ready",
        "observedGeneration",
        "conditions",
        "lastAppliedRevision",
    }  # complete on this first look; what serves moves on a second one 10 s later (no Pods)
    assert [(cond["type"], cond["status"]) for cond in status["conditions"]] == [("Ready", "True")]
    assert {name: d["spec"]["template"] for name, d in deployments(harness).items()} == templates
    assert again.out.splitlines()[-1].endswith("6 unchanged, 0 skipped, 0 failed")
