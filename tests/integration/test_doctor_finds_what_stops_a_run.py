"""`driftctl doctor`, one check at a time, each fault provoked for real on a control plane
of this module's own (its faults touch the CRD, the run lock's namespace and the shared
ClusterRoles, which the other tests' control plane needs).

driftctl is installed there with `driftctl install` (the CronJob never fires: the test
control plane runs no CronJob controller), and doctor runs as a person (admin) with the
settings of a run of a real Git repository: every check passes (exit 0). Then each test
breaks one thing (a ServiceAccount lacking one verb, an old CRD, a missing namespace, a
Lease whose holder is gone, an unreachable Git URL, a bad key file, a receiver's missing
secret, a WebApp stuck with another owner's Deployment, an unreachable cluster), asserts
the line, its hint and the exit code, and puts it back, usually with the hint's own
command. The release of stuck finalizers refuses another instance's WebApp and one it
cannot prove it applied.
"""

from __future__ import annotations

import datetime
import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.builders import webapp
from tests.support.gitrepos import Repo, free_port
from tests.support.harness import driftctl_env
from tests.support.paths import ROOT
from tests.support.receivers import accepting, serving
from tests.support.signing import made_keys

pytestmark = pytest.mark.integration

APPS = "shop"
NAMESPACE = c.LOCK_NAMESPACE
INSTALLED_FROM = "https://git.example.com/you/webapps.git"


@dataclass(frozen=True)
class Cluster:
    """The module's control plane with driftctl installed, and a repository of two WebApps."""

    plane: launcher.ControlPlane
    repo: Repo
    folder: Path

    def kubectl(self, *args: str, stdin: str | None = None, check: bool = True) -> str:
        argv = [str(self.plane.bin_dir / "kubectl"), f"--kubeconfig={self.plane.kubeconfig}"]
        done = subprocess.run(
            [*argv, *args], input=stdin, capture_output=True, text=True, check=False, timeout=60
        )
        if check:
            assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout

    def driftctl(
        self, *args: str, kubeconfig: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        config = ["--kubeconfig", str(kubeconfig or self.plane.kubeconfig)]
        return subprocess.run(
            [sys.executable, "-m", "driftctl", *args, *config],
            capture_output=True, text=True, check=False, cwd=ROOT, env=driftctl_env(), timeout=300,
        )  # fmt: skip

    def doctor(self, *args: str, kubeconfig: Path | None = None) -> Doctored:
        source = ["--repo", str(self.repo.path), "--ref", "main", "--path", "apps"]
        done = self.driftctl("doctor", *source, "--namespace", APPS, *args, kubeconfig=kubeconfig)
        return Doctored(done.returncode, done.stdout, done.stderr)

    def as_installed_account(self) -> Path:
        """A kubeconfig with a token of the ServiceAccount `driftctl install` made."""
        token = self.kubectl("create", "token", "driftctl", "-n", NAMESPACE).strip()
        config = json.loads(self.plane.kubeconfig.read_text())
        config["users"] = [{"name": "driftctl", "user": {"token": token}}]
        config["contexts"][0]["context"]["user"] = "driftctl"
        account = self.folder / "account.kubeconfig"
        account.write_text(json.dumps(config))
        return account

    def apply(self, *args: str) -> None:
        done = self.driftctl(
            "apply", "--repo", str(self.repo.path), "--ref", "main", "--path", "apps",
            "--namespace", APPS, "--yes", *args,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr


@dataclass(frozen=True)
class Doctored:
    code: int
    out: str
    err: str

    def findings(self) -> list[tuple[str, str]]:
        """(check, `verdict what | hint: ...`) per finding, in order."""
        found: list[tuple[str, str]] = []
        for line in self.out.splitlines():
            words = line.split(maxsplit=2)
            if len(words) == 3 and words[0] in ("ok", "warn", "fail"):
                found.append((words[1], f"{words[0]} {words[2]}"))
            elif line.strip().startswith("hint: ") and found:
                check, said = found[-1]
                found[-1] = (check, f"{said} | {line.strip()}")
        return found

    def lines(self, check: str) -> list[str]:
        """The findings of one check."""
        return [said for name, said in self.findings() if name == check]

    def verdicts(self) -> dict[str, set[str]]:
        """Each check's verdicts."""
        out: dict[str, set[str]] = {}
        for check, said in self.findings():
            out.setdefault(check, set()).add(said.split()[0])
        return out


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("doctor")
    plane = launcher.start(folder / "plane")
    try:
        repo = Repo(folder / "repo")
        repo.write(
            {
                "apps/shop.yaml": webapp("shop", replicas=1),
                "apps/blog.yaml": webapp("blog", replicas=1),
            }
        )
        repo.commit("two WebApps")
        ready = Cluster(plane, repo, folder)
        installed = ready.driftctl(
            "install", "--repo", INSTALLED_FROM, "--ref", "main", "--path", "apps"
        )
        assert installed.returncode == 0, installed.stderr
        ready.kubectl("create", "namespace", APPS)
        yield ready
    finally:
        launcher.stop(folder / "plane")


def test_a_healthy_installation_passes_every_check(cluster: Cluster) -> None:
    doctored = cluster.doctor()

    assert doctored.code == 0, doctored.out + doctored.err
    assert doctored.verdicts() == {
        check: {"ok"}
        for check in (
            "cluster", "install", "crd", "permissions", "lock", "finalizers", "git", "keys",
            "receivers",
        )
    }  # fmt: skip
    assert doctored.lines("install") == [f"ok CronJob {NAMESPACE}/driftctl: no Job scheduled yet"]
    assert doctored.lines("permissions") == [
        f"ok ServiceAccount {NAMESPACE}/driftctl may do all 25 things the run needs"
    ]
    assert doctored.out.splitlines()[-1] == "doctor: 0 failed, 0 warnings, 9 ok"


def test_json_says_the_same(cluster: Cluster) -> None:
    doctored = cluster.doctor("-o", "json")

    document = json.loads(doctored.out)
    assert doctored.code == document["exitCode"] == 0
    assert document["summary"] == {"fail": 0, "warn": 0, "ok": 9}
    assert {each["check"] for each in document["checks"]} >= {"cluster", "permissions", "git"}


def test_an_unreachable_cluster_fails_and_names_it(cluster: Cluster) -> None:
    config = json.loads(cluster.plane.kubeconfig.read_text())
    config["clusters"][0]["cluster"]["server"] = f"https://127.0.0.1:{free_port()}"
    dead = cluster.folder / "dead.kubeconfig"
    dead.write_text(json.dumps(config))

    doctored = cluster.doctor(kubeconfig=dead)

    assert doctored.code == 4
    [line] = doctored.lines("cluster")
    assert line.startswith("fail get the API server's version: API server https://127.0.0.1:")
    assert "| hint: the cluster never answered" in line
    assert "permissions" not in doctored.verdicts()  # nothing more is asked of a dead cluster
    assert doctored.verdicts()["git"] == {"ok"}


def test_a_service_account_lacking_one_verb_is_named_with_the_rule_that_grants_it(
    cluster: Cluster,
) -> None:
    rules = json.loads(cluster.kubectl("get", "clusterrole", "driftctl", "-o", "json"))["rules"]
    index = next(i for i, rule in enumerate(rules) if rule["resources"] == ["deployments"])
    fewer = [verb for verb in rules[index]["verbs"] if verb != "delete"]
    less = [{"op": "replace", "path": f"/rules/{index}/verbs", "value": fewer}]
    cluster.kubectl("patch", "clusterrole", "driftctl", "--type=json", "-p", json.dumps(less))

    doctored = cluster.doctor()

    assert doctored.code == 4
    [line] = doctored.lines("permissions")
    assert line == (
        f"fail ServiceAccount {NAMESPACE}/driftctl may not delete deployments.apps in every "
        "namespace (ClusterRole driftctl grants it: apps deployments: get, list, watch, create, "
        "patch, delete) | hint: kubectl patch clusterrole driftctl --type=json -p "
        """'[{"op":"add","path":"/rules/-","value":{"apiGroups":["apps"],"resources":"""
        """["deployments"],"verbs":["delete"]}}]' (or `driftctl install` again, which applies """
        "the whole role)"
    )
    assert {check for check, seen in doctored.verdicts().items() if seen != {"ok"}} == {
        "permissions"
    }

    command = line.split("| hint: ", 1)[1].split(" (or ", 1)[0]
    cluster.kubectl(*shlex.split(command)[1:])  # the hint, run as written
    assert cluster.doctor().code == 0


def test_a_cronjob_whose_last_job_failed_is_a_warning_that_names_its_logs(
    cluster: Cluster,
) -> None:
    # No CronJob controller runs on the test control plane: its status is written as the
    # controller writes it after a Job that failed (scheduled, never succeeded).
    scheduled = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    status = json.dumps({"status": {"lastScheduleTime": scheduled}})
    cluster.kubectl(
        "patch", "cronjob", "driftctl", "-n", NAMESPACE, "--subresource=status",
        "--type=merge", "-p", status,
    )  # fmt: skip

    doctored = cluster.doctor()

    assert doctored.code == 1
    assert doctored.lines("install") == [
        f"warn CronJob {NAMESPACE}/driftctl: the Job scheduled at {scheduled} did not succeed "
        f"(no Job succeeded yet) | hint: kubectl logs -n {NAMESPACE} -l "
        "app.kubernetes.io/name=driftctl --tail=20"
    ]
    cleared = json.dumps([{"op": "remove", "path": "/status/lastScheduleTime"}])
    cluster.kubectl(
        "patch", "cronjob", "driftctl", "-n", NAMESPACE, "--subresource=status",
        "--type=json", "-p", cleared,
    )  # fmt: skip
    assert cluster.doctor().code == 0


def test_a_service_account_that_does_not_exist_is_said_once(cluster: Cluster) -> None:
    doctored = cluster.doctor("--as-serviceaccount", f"{NAMESPACE}:nobody")

    assert doctored.code == 4
    assert doctored.lines("permissions") == [
        f"fail ServiceAccount {NAMESPACE}/nobody does not exist: no run can act as it | hint: "
        "driftctl install --repo URL (--instance NAME for another instance), or "
        "--as-serviceaccount naming the account the run uses"
    ]


def test_the_callers_own_permissions_are_asked_with_self_reviews(cluster: Cluster) -> None:
    account = cluster.as_installed_account()

    doctored = cluster.doctor("--as-caller", kubeconfig=account)

    assert doctored.lines("permissions") == [
        "ok you (the caller) may do all 25 things the run needs"
    ]
    # As the account itself, the reviews of another account are refused: said, not a failure.
    other = cluster.doctor("--as-serviceaccount", f"{NAMESPACE}:driftctl", kubeconfig=account)
    [line] = other.lines("permissions")
    assert line.startswith(
        f"warn the permissions of ServiceAccount {NAMESPACE}/driftctl cannot be asked: 403"
    )


def test_an_old_crd_is_a_warning_with_the_command_that_upgrades_it(cluster: Cluster) -> None:
    crd = json.loads(cluster.kubectl("get", "crd", c.CRD_NAME, "-o", "json"))
    status = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]
    del status["properties"]["corrections"]
    old = {
        "apiVersion": crd["apiVersion"],
        "kind": crd["kind"],
        "metadata": {"name": c.CRD_NAME},
        "spec": crd["spec"],
    }
    cluster.kubectl("replace", "-f", "-", stdin=json.dumps(old))

    doctored = cluster.doctor()

    assert doctored.code == 1
    [line] = doctored.lines("crd")
    assert line.startswith(
        f"warn {c.CRD_NAME} is older than this driftctl: its status lacks status.corrections "
        "(runs leave them out; `driftctl crd --diff` shows "
    )
    assert line.endswith("| hint: driftctl crd | kubectl apply --server-side -f -")
    generated = cluster.driftctl("crd").stdout
    cluster.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", stdin=generated)
    assert cluster.doctor().code == 0


def test_a_missing_lock_namespace_fails_with_the_command_that_makes_it(cluster: Cluster) -> None:
    doctored = cluster.doctor("--lock-namespace", "driftctl-locks")

    assert doctored.code == 4
    assert doctored.lines("lock") == [
        "fail the run lock's namespace driftctl-locks does not exist: every apply stops before "
        "it takes its lock | hint: kubectl create namespace driftctl-locks (`driftctl install` "
        "makes it), or --lock-namespace naming the one the instance's runs use"
    ]
    # The installed lock Role is in driftctl-system: a run locking elsewhere lacks its verbs.
    assert all(
        line.startswith(f"fail ServiceAccount {NAMESPACE}/driftctl may not ")
        and "in namespace driftctl-locks" in line
        for line in doctored.lines("permissions")
    )


def test_a_lease_whose_holder_is_gone_is_a_warning_that_names_unlock(cluster: Cluster) -> None:
    long_ago = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=10)
    stamp = long_ago.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    lease = {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "driftctl-default", "namespace": NAMESPACE},
        "spec": {
            "holderIdentity": "driftctl-29071995-x7k2p/1",
            "leaseDurationSeconds": 30,
            "acquireTime": stamp,
            "renewTime": stamp,
        },
    }
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps(lease))

    doctored = cluster.doctor()

    assert doctored.code == 1
    [line] = doctored.lines("lock")
    assert line.startswith(
        f"warn Lease {NAMESPACE}/driftctl-default is held by driftctl-29071995-x7k2p/1 since "
        f"{long_ago:%Y-%m-%dT%H:%M:%S}Z, who stopped renewing it: it expired 9m"
    )
    assert line.endswith(
        "ago (the holder is gone; the next run takes it over) | hint: driftctl unlock "
        f"--instance default --lock-namespace {NAMESPACE} frees it now"
    )
    unlocked = cluster.driftctl(
        *line.split("| hint: ")[1].removesuffix(" frees it now").split()[1:]
    )
    assert unlocked.returncode == 0, unlocked.stderr
    assert (
        cluster.doctor()
        .lines("lock")[0]
        .startswith(f"ok Lease {NAMESPACE}/driftctl-default is free")
    )


def test_an_unreachable_git_url_fails_and_says_why(cluster: Cluster) -> None:
    url = f"http://127.0.0.1:{free_port()}/webapps.git"
    done = cluster.driftctl("doctor", "--repo", url, "--ref", "main", "--path", "apps")

    assert done.returncode == 4
    doctored = Doctored(done.returncode, done.stdout, done.stderr)
    [line] = doctored.lines("git")
    assert line.startswith(f"fail cannot fetch {url}: unable to access '{url}/': Failed to connect")
    assert line.endswith("| hint: check --repo, --ref and the credentials")
    assert {check for check, seen in doctored.verdicts().items() if seen != {"ok"}} == {"git"}


def test_a_bad_key_file_fails_naming_the_file(cluster: Cluster) -> None:
    with made_keys(cluster.folder / "keys") as keys:
        good = cluster.doctor(
            "--verify", "head", "--trusted-keys", str(keys.trusted_keys),
            "--allowed-signers", str(keys.allowed_signers),
        )  # fmt: skip
        bad = keys.trusted_keys / "broken.asc"
        bad.write_text("-----BEGIN PGP PUBLIC KEY BLOCK-----\nnot a key\n")
        signers = cluster.folder / "bad_allowed_signers"
        signers.write_text("bob@example.invalid ssh-ed25519 !!!notbase64\n")
        doctored = cluster.doctor(
            "--verify", "head", "--trusted-keys", str(keys.trusted_keys),
            "--allowed-signers", str(signers),
        )  # fmt: skip

    assert good.code == 0, good.out
    assert good.lines("keys") == [
        f"ok --trusted-keys {keys.trusted_keys}: 2 keys trusted",
        f"ok --allowed-signers {keys.allowed_signers}: 1 key trusted",
    ]
    assert doctored.code == 4
    assert doctored.lines("keys") == [
        f"fail --trusted-keys {keys.trusted_keys}: {bad} (--trusted-keys) holds no OpenPGP public "
        "key gpg can import | hint: export each trusted key with `gpg --armor --export "
        "FINGERPRINT > NAME.asc` into that folder",
        f"fail --allowed-signers {signers}: line 1: its ssh-ed25519 key is not base64 | hint: "
        "write one `EMAIL KEYTYPE BASE64` line per key (`ssh-keygen -Y find-principals` reads it)",
    ]


def test_a_receivers_missing_secret_fails_and_a_test_message_is_sent_only_when_asked(
    cluster: Cluster,
) -> None:
    with serving(accepting) as receiver:
        missing = cluster.folder / "no-such-secret"
        doctored = cluster.doctor(
            "--webhook-url", receiver.url, "--webhook-secret-file", str(missing)
        )
        sent = cluster.doctor("--webhook-url", receiver.url, "--send-test")

    assert doctored.code == 4
    assert doctored.lines("receivers") == [
        f"fail webhook: cannot read {missing}: No such file or directory | hint: mount or write "
        "the file --webhook-secret-file names"
    ]
    assert sent.code == 0, sent.out
    assert sent.lines("send-test") == ["ok webhook: a test message was sent"]
    [message] = receiver.received
    assert "driftctl doctor --send-test" in json.dumps(message.json)


def deleted_without_a_run(cluster: Cluster, name: str) -> None:
    cluster.kubectl("delete", "webapp", name, "-n", APPS, "--wait=false")


def webapp_of(cluster: Cluster, name: str) -> dict[str, Any] | None:
    out = cluster.kubectl("get", "webapp", name, "-n", APPS, "-o", "json", "--ignore-not-found")
    return json.loads(out) if out.strip() else None


def test_a_webapp_stuck_with_another_owners_deployment_is_named_and_released(
    cluster: Cluster,
) -> None:
    cluster.apply()
    cluster.kubectl("delete", "deployment", "shop", "-n", APPS, "--cascade=orphan")
    cluster.kubectl("delete", "deployment", "shop", "-n", APPS, "--ignore-not-found")
    cluster.kubectl("create", "deployment", "shop", "-n", APPS, "--image=nginx:1.27")
    deleted_without_a_run(cluster, "shop")

    doctored = cluster.doctor("--stuck-after", "0s")

    assert doctored.code == 4
    [line] = doctored.lines("finalizers")
    assert line.startswith(f"fail WebApp/{APPS}/shop is stuck: deleted at ")
    assert (
        f"it still holds {c.FINALIZER}; its Deployment is not controlled by WebApp/{APPS}/shop "
        "(no controller: made by hand or by another tool): a run leaves it as it is; no run took "
        "the lock since it was deleted (last: "
    ) in line
    assert line.endswith(
        "| hint: driftctl apply (a run cleans it up), or driftctl doctor --release-finalizers "
        "--instance default"
    )
    # Not on a terminal, the release needs --yes: nothing is touched without it.
    refused = cluster.driftctl("doctor", "--release-finalizers", "--stuck-after", "0s")
    assert refused.returncode == 2
    assert "pass --yes" in refused.stderr

    released = cluster.driftctl("doctor", "--release-finalizers", "--yes", "--stuck-after", "0s")

    assert released.returncode == 0, released.stdout + released.stderr
    assert released.stdout.splitlines()[0] == (
        f"ok    finalizers  released WebApp/{APPS}/shop: Deployment/{APPS}/shop is another "
        "owner's and stays"
    )
    assert webapp_of(cluster, "shop") is None
    assert cluster.kubectl("get", "deployment", "shop", "-n", APPS, "-o", "name").strip()
    cluster.kubectl("delete", "deployment", "shop", "-n", APPS)
    cluster.apply()  # shop comes back: the next test starts from a converged cluster


def test_the_release_refuses_another_instances_webapp_and_one_it_cannot_prove(
    cluster: Cluster,
) -> None:
    other = Repo(cluster.folder / "other-repo")
    other.write({"apps/theirs.yaml": webapp("theirs", replicas=1)})
    other.commit("instance other")
    done = cluster.driftctl(
        "apply", "--repo", str(other.path), "--ref", "main", "--path", "apps", "--namespace",
        APPS, "--instance", "other",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    handmade = {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {
            "name": "handmade",
            "namespace": APPS,
            "labels": {c.INSTANCE_LABEL: "default", c.MANAGED_BY_LABEL: c.MANAGED_BY_VALUE},
            "finalizers": [c.FINALIZER],
        },
        "spec": {"image": "nginx:1.27", "replicas": 1},
    }
    cluster.kubectl("create", "-f", "-", stdin=json.dumps(handmade))
    deleted_without_a_run(cluster, "theirs")
    deleted_without_a_run(cluster, "handmade")

    released = cluster.driftctl("doctor", "--release-finalizers", "--yes", "--stuck-after", "0s")

    assert released.returncode == 4
    # Oldest stuck first: the two were deleted one after the other, maybe a second apart.
    assert sorted(released.stdout.splitlines()[:2]) == [
        f"fail  finalizers  left WebApp/{APPS}/handmade: driftctl cannot prove it applied it (no "
        f"{c.MANAGED_BY_LABEL}=driftctl label or no server-side apply of field manager "
        "driftctl); never released",
        f"warn  finalizers  left WebApp/{APPS}/theirs: belongs to instance other: its own doctor "
        "releases it",
    ]
    for name in ("theirs", "handmade"):
        assert (webapp_of(cluster, name) or {})["metadata"]["finalizers"] == [c.FINALIZER]
    # The other instance's own release takes its WebApp; the hand-made one stays for a person.
    theirs = cluster.driftctl(
        "doctor", "--release-finalizers", "--yes", "--stuck-after", "0s", "--instance", "other"
    )
    assert f"released WebApp/{APPS}/theirs: Deployment/{APPS}/theirs goes with it" in theirs.stdout
    cluster.kubectl(
        "patch", "webapp", "handmade", "-n", APPS, "--type=json",
        "-p", json.dumps([{"op": "remove", "path": "/metadata/finalizers"}]),
    )  # fmt: skip


def test_pre_asks_what_an_install_needs_of_its_caller(cluster: Cluster) -> None:
    as_admin = cluster.driftctl("doctor", "--pre")
    account = cluster.as_installed_account()
    as_account = cluster.driftctl("doctor", "--pre", kubeconfig=account)

    assert as_admin.returncode == 0, as_admin.stdout
    assert as_admin.stdout.splitlines()[1] == (
        "ok    permissions  you (the caller) may do all 57 things `driftctl install` needs"
    )
    assert as_account.returncode == 4
    doctored = Doctored(as_account.returncode, as_account.stdout, as_account.stderr)
    assert set(doctored.verdicts()) == {"cluster", "permissions"}
    assert (
        "fail you (the caller) may not create, patch customresourcedefinitions."
        "apiextensions.k8s.io webapps.example.com: `driftctl install` needs it | hint: run the "
        "install as someone who may (`kubectl auth can-i create customresourcedefinitions` says "
        "what you may)"
    ) in doctored.lines("permissions")
