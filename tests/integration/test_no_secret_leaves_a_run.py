"""The secret canary: distinct made-up secrets everywhere a run meets one, then every
output, file and object the runs leave behind searched for each of them.

The canaries: a password in the Git URL (user:token@, to a loopback `git http-backend`),
DRIFTCTL_GIT_TOKEN, a --git-token-file, the kubeconfig's bearer token (the fault proxy
swaps it for the ServiceAccount's real one), a credential-like value in an API error body
(the proxy refuses one WebApp's writes with it, as an admission webhook echoing a request
might) and one in a WebApp annotation in Git. validate, diff, plan, apply and check run
with text, json and markdown outputs and --log-format json, plan, apply and check with
--verify all over signed commits (their history fetched with the credentials); then stdout
and stderr (for key material too), the saved plan, the cache dir and HOME (every file),
TMPDIR (for a keyring left behind), Events, WebApps, Deployments, the Lease and the
Pushgateway are searched. The applies also notify loopback receivers, each with its
canary in a file: the webhook's secret, the Slack webhook's URL, the GitHub and GitLab
tokens; every body they received, every header but the one that must carry a token, and
the ConfigMap of what was told are searched too.

The annotation's value is desired state, not driftctl's secret: Git holds it and the
WebApp carries it once applied. So it may be in the WebApp's own annotations, in the
saved plan's manifest (what apply --plan sends) and in the cache's copy of the
repository, and nowhere else: no report, log, Event or status shows it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from driftctl import conventions as c
from tests.support.builders import webapp
from tests.support.faultproxy import Fault, FaultProxy, status_answer
from tests.support.gitrepos import Repo, http_git_server
from tests.support.harness import LOCK_NAMESPACE, Harness
from tests.support.paths import ROOT
from tests.support.pushgateway import Pushgateway
from tests.support.receivers import (
    Receiver,
    accepting,
    github_check,
    gitlab_check,
    serving,
    webhook_check,
)
from tests.support.signing import Keys, Signer, commit, made_keys, tag

URL_TOKEN = "canary-url-5b1e0c"
ENV_TOKEN = "canary-env-a93d71"
FILE_TOKEN = "canary-file-2c8f04"
KUBE_TOKEN = "canary-kube-e6047b"
API_SECRET = "ghp_CanaryInAnApiErrorBody4f1c9a0d2e7b"
GIT_SECRET = "ghp_CanaryInAWebAppAnnotation8d03b6e5c1"
WEBHOOK_SECRET = "canary-webhook-secret-91be20"
SLACK_TOKEN = "canary-slack-url-0d7c3e"
GITHUB_TOKEN = "canary-github-token-44a1f9"
GITLAB_TOKEN = "canary-gitlab-token-b6e802"
CANARIES = (
    *(URL_TOKEN, ENV_TOKEN, FILE_TOKEN, KUBE_TOKEN, API_SECRET, GIT_SECRET),
    *(WEBHOOK_SECRET, SLACK_TOKEN, GITHUB_TOKEN, GITLAB_TOKEN),
)
DRIFTCTL_SECRETS = tuple(canary for canary in CANARIES if canary != GIT_SECRET)
USER = "x-access-token"  # the username driftctl pairs a bare token with
KEY_MATERIAL = ("-----BEGIN PGP", "PRIVATE KEY", "-----BEGIN SSH")


def annotated(name: str) -> str:
    """A WebApp document carrying the Git canary in an annotation."""
    head, spec = webapp(name, replicas=1).split("spec:\n")
    return f"{head}  annotations:\n    example.com/deploy-token: {GIT_SECRET}\nspec:\n{spec}"


def found_in(text: str | bytes, canaries: tuple[str, ...]) -> list[str]:
    data = text.encode() if isinstance(text, str) else text
    return [canary for canary in canaries if canary.encode() in data]


def files_holding(folder: Path, canaries: tuple[str, ...]) -> dict[str, list[str]]:
    """Every file under `folder` (recursively) that holds a canary, and which."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            hits = found_in(path.read_bytes(), canaries)
            if hits:
                found[str(path.relative_to(folder))] = hits
    return found


@contextlib.contextmanager
def git_servers(root: Path) -> Iterator[dict[str, str]]:
    """One loopback Git server per credential, each accepting only its own canary."""
    with (
        http_git_server(root, USER, URL_TOKEN) as (by_url, _),
        http_git_server(root, USER, ENV_TOKEN) as (by_env, _),
        http_git_server(root, USER, FILE_TOKEN) as (by_file, _),
    ):
        # Every URL carries the URL canary; the variable and the file take precedence.
        yield {
            name: base.replace("http://", f"http://{USER}:{URL_TOKEN}@") + "/apps.git"
            for name, base in (("url", by_url), ("env", by_env), ("file", by_file))
        }


def canary_kubeconfig(service_account: Path, proxy: FaultProxy, written: Path) -> Path:
    """The ServiceAccount's kubeconfig with the canary as its token, through the proxy."""
    config = json.loads(service_account.read_text())
    proxy.accept_token(KUBE_TOKEN, config["users"][0]["user"]["token"])
    config["users"][0]["user"]["token"] = KUBE_TOKEN
    config["clusters"][0]["cluster"]["server"] = proxy.url
    written.write_text(json.dumps(config))
    written.chmod(0o600)
    return written


def cluster_objects(harness: Harness) -> dict[str, Any]:
    """Everything in the cluster a run may have written, as the API server returns it."""
    namespace = json.loads(
        harness.kubectl("get", "webapps,deployments,events", "-n", harness.namespace, "-o", "json")
    )
    lease = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE)
    told = harness.get("configmap", c.notified_name(harness.instance), LOCK_NAMESPACE)
    return {"namespace": namespace["items"], "lease": lease, "told": told}


@dataclass(frozen=True)
class Runner:
    """driftctl as a process with one HOME and cache dir, the test's variables only."""

    home: Path
    cache: Path
    tmp: Path  # TMPDIR: where gpg's keyring of its own is made, and removed

    def __call__(self, *args: str, token: str | None = ENV_TOKEN) -> tuple[int, str]:
        """Exit code and stdout+stderr of one run (`token`: DRIFTCTL_GIT_TOKEN, if any)."""
        inherited = {
            k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "KUBE", "DRIFTCTL_"))
        }
        env = {**inherited, "NO_COLOR": "1", "HOME": str(self.home), "TMPDIR": str(self.tmp)}
        env.update({"DRIFTCTL_GIT_TOKEN": token} if token else {})
        done = subprocess.run(
            [sys.executable, "-m", "driftctl", *args, "--cache-dir", str(self.cache)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return done.returncode, done.stdout + done.stderr


def served_repository(folder: Path, signer: Signer) -> Repo:
    """Tag `base`: shop and blog. main: shop gains the annotation (an update), docs comes
    with it (a create), and wiki comes (its WebApp is refused). Both commits and the tag are
    signed by `signer`: the runs verify them (--verify all)."""
    served = Repo(folder)
    served.write(
        {"apps/webapps.yaml": "---\n".join(webapp(n, replicas=1) for n in ("shop", "blog"))}
    )
    commit(served, signer, "base")
    tag(served, signer, "base")
    head = [annotated("shop"), webapp("blog", replicas=1), annotated("docs"), webapp("wiki")]
    served.write({"apps/webapps.yaml": "---\n".join(head)})
    commit(served, signer, "shop and docs carry a deploy token annotation; wiki comes")
    return served


def refuse_with_the_api_canary(proxy: FaultProxy, namespace: str) -> None:
    """wiki's WebApp is refused by plan's dry-run; docs' Deployment only by apply's create,
    after its WebApp is made: its Events tell of the refusal, its status is written."""
    refusal = status_answer(422, f"admission webhook refused: the request held {API_SECRET}")
    proxy.inject(
        Fault(refusal, method="PATCH", path=f"/namespaces/{namespace}/{c.PLURAL}/wiki", times=None),
        Fault(
            refusal,
            method="PATCH",
            path=f"/namespaces/{namespace}/deployments/docs",
            dry_run=False,
            times=None,
        ),
    )


@dataclass(frozen=True)
class Scene:
    """What every run is pointed at."""

    urls: dict[str, str]  # by credential: url, env, file
    namespace: str
    cluster: list[str]  # --kubeconfig (the canary's), --instance, --namespace, --path
    token_file: Path
    saved: Path
    pushgateway: str
    verify: list[str]  # --verify all with the trusted keys
    notify: tuple[str, ...]  # the receivers' flags


def run_every_command(
    driftctl: Runner, scene: Scene, before_plan: Callable[[], None]
) -> dict[str, tuple[int, str]]:
    """validate, diff, plan, apply and check in every output, each run's exit and output."""
    urls, cluster = scene.urls, scene.cluster
    offline = ["--namespace", scene.namespace, "--path", "apps"]
    runs = {
        f"validate -o {output}": driftctl(
            "validate", "--repo", urls["url"], *offline, "-o", output, token=None
        )
        for output in ("text", "json")
    }
    runs["validate of a missing repository"] = driftctl(
        "validate", "--repo", urls["url"] + "-missing", *offline, token=None
    )
    runs["diff -o markdown"] = driftctl(
        "diff", "--repo", urls["env"], "--base", "base", "--head", "main", *offline,
        "-o", "markdown",
    )  # fmt: skip
    lock = ["--lock-namespace", LOCK_NAMESPACE]
    apply = ["apply", "--repo", urls["env"], *cluster, *lock, *scene.verify]
    runs["apply at base"] = driftctl(*apply, "--ref", "base")
    before_plan()
    for output in ("text", "json", "markdown"):
        runs[f"plan -o {output}"] = driftctl(
            "plan", "--repo", urls["env"], "--ref", "main", *cluster, "-o", output,
            "--log-format", "json", "--show-unchanged", "--out", str(scene.saved),
            *lock, *scene.verify,
        )  # fmt: skip
    runs["apply -o json"] = driftctl(
        *apply, "--ref", "main", "-o", "json", "--log-format", "json",
        "--pushgateway", scene.pushgateway, *scene.notify,
    )  # fmt: skip
    runs["apply"] = driftctl(*apply, "--ref", "main", *scene.notify, "--notify-repeat", "1")
    for output in ("text", "json", "markdown"):
        runs[f"check -o {output}"] = driftctl(
            "check", "--repo", urls["file"], "--git-token-file", str(scene.token_file),
            "--base", "base", "--head", "main", *cluster, "-o", output, *scene.verify,
            token=None,
        )  # fmt: skip
    return runs


EXIT_CODES = {
    "validate -o text": 0,
    "validate -o json": 0,
    "validate of a missing repository": 4,
    "diff -o markdown": 1,
    "apply at base": 0,
    "plan -o text": 5,  # as apply would: wiki and docs' Deployment refused
    "plan -o json": 5,
    "plan -o markdown": 5,
    "apply -o json": 5,  # wiki and docs' Deployment refused
    "apply": 5,
    "check -o text": 0,
    "check -o json": 0,
    "check -o markdown": 0,
}


def leaks_left(
    harness: Harness, runs: dict[str, tuple[int, str]], scene: Scene, driftctl: Runner
) -> dict[str, list[str]]:
    """Every place a canary must not be, and the canaries found there."""
    leaks = {name: found_in(out, CANARIES) for name, (_, out) in runs.items()}
    # No key material either: the trusted keys are read, never shown.
    leaks |= {f"{name}: a key": found_in(out, KEY_MATERIAL) for name, (_, out) in runs.items()}
    leaks["saved plan"] = found_in(scene.saved.read_bytes(), DRIFTCTL_SECRETS)
    for name, hits in files_holding(driftctl.cache, DRIFTCTL_SECRETS).items():
        leaks[f"cache: {name}"] = hits
    for name, hits in files_holding(driftctl.home, CANARIES).items():
        leaks[f"HOME: {name}"] = hits
    objects = cluster_objects(harness)
    for item in objects["namespace"]:
        if item["kind"] == c.KIND:  # the Git annotation is desired state there
            item["metadata"]["annotations"].pop("example.com/deploy-token", None)
        leaks[f"{item['kind']}/{item['metadata']['name']}"] = found_in(json.dumps(item), CANARIES)
    leaks["Lease"] = found_in(json.dumps(objects["lease"]), CANARIES)
    leaks["ConfigMap of what was told"] = found_in(json.dumps(objects["told"]), CANARIES)
    with urllib.request.urlopen(f"{scene.pushgateway}/metrics", timeout=10) as page:
        leaks["Pushgateway"] = found_in(page.read(), CANARIES)
    # Each kind of place was there to search.
    assert {"WebApp/shop", "WebApp/docs", "Deployment/shop", "Lease"} <= set(leaks)
    assert any(path.is_file() for path in driftctl.cache.rglob("*")), "the cache was written"
    leaks["TMPDIR"] = [str(path) for path in driftctl.tmp.iterdir()]  # no keyring left behind
    return {where: hits for where, hits in leaks.items() if hits}


@pytest.fixture
def keys(tmp_path: Path) -> Iterator[Keys]:
    with made_keys(tmp_path / "keys") as made:
        yield made


@dataclass(frozen=True)
class Receivers:
    """The loopback receivers of the applies' notifications, and the flags naming them."""

    by_name: dict[str, Receiver]
    flags: tuple[str, ...]


@contextlib.contextmanager
def receivers(folder: Path) -> Iterator[Receivers]:
    """A webhook, a Slack-compatible webhook, GitHub and GitLab, each canary in its file."""
    folder.mkdir()
    files = {
        "webhook-secret": WEBHOOK_SECRET,
        "github-token": GITHUB_TOKEN,
        "gitlab-token": GITLAB_TOKEN,
    }
    for name, canary in files.items():
        (folder / name).write_text(canary + "\n")
    with (
        serving(webhook_check(WEBHOOK_SECRET.encode())) as webhook,
        serving(accepting) as slack,
        serving(github_check(GITHUB_TOKEN)) as github,
        serving(gitlab_check(GITLAB_TOKEN)) as gitlab,
    ):
        (folder / "slack-url").write_text(f"{slack.url}/services/T0/B0/{SLACK_TOKEN}\n")
        flags = (
            *("--webhook-url", webhook.url),
            *("--webhook-secret-file", str(folder / "webhook-secret")),
            *("--slack-webhook-file", str(folder / "slack-url")),
            *("--github-api", github.url, "--github-repo", "platform/webapps"),
            *("--github-token-file", str(folder / "github-token"), "--github-environment", "prod"),
            *("--gitlab-api", gitlab.url + "/api/v4", "--gitlab-project", "platform/webapps"),
            *("--gitlab-token-file", str(folder / "gitlab-token")),
        )  # fmt: skip
        yield Receivers(
            {"webhook": webhook, "slack": slack, "github": github, "gitlab": gitlab}, flags
        )


# The one header that must carry each forge's token (the webhook's carries an HMAC).
TOKEN_HEADERS = {"github": "authorization", "gitlab": "private-token"}


def notification_leaks(told: Receivers) -> dict[str, list[str]]:
    """Canaries in what the receivers got: bodies, and headers but the token's own."""
    leaks = {}
    for name, receiver in told.by_name.items():
        for index, each in enumerate(receiver.received):
            headers = {k: v for k, v in each.headers.items() if k != TOKEN_HEADERS.get(name)}
            leaks[f"{name} #{index}"] = found_in(each.body + json.dumps(headers).encode(), CANARIES)
    return {where: hits for where, hits in leaks.items() if hits}


def test_no_canary_appears_in_any_output_file_or_object_a_run_leaves(
    harness: Harness,
    fault_proxy: FaultProxy,
    service_account_kubeconfig: Path,
    pushgateway: Pushgateway,
    tmp_path: Path,
    *,
    keys: Keys,
) -> None:
    served = served_repository(tmp_path / "served" / "apps.git", keys.alice)
    token_file = tmp_path / "token"
    token_file.write_text(FILE_TOKEN + "\n")
    kubeconfig = canary_kubeconfig(service_account_kubeconfig, fault_proxy, tmp_path / "kube")
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    driftctl = Runner(tmp_path / "home", tmp_path / "cache", tmp_path / "tmp")
    cluster = [
        *("--kubeconfig", str(kubeconfig), "--instance", harness.instance),
        *("--namespace", harness.namespace, "--path", "apps"),
    ]
    with git_servers(served.path.parent) as urls, receivers(tmp_path / "receivers") as told:
        verify = ["--verify", "all", "--trusted-keys", str(keys.trusted_keys)]
        scene = Scene(
            urls,
            harness.namespace,
            cluster,
            token_file,
            tmp_path / "plan.json",
            pushgateway.url,
            verify,
            told.flags,
        )
        runs = run_every_command(
            driftctl, scene, lambda: refuse_with_the_api_canary(fault_proxy, harness.namespace)
        )

    # The runs did what they were asked, so each canary was met, not skipped over.
    assert {name: code for name, (code, _) in runs.items()} == EXIT_CODES, {
        name: out[-600:] for name, (_, out) in runs.items()
    }
    assert "admission webhook refused: the request held (masked)" in runs["apply"][1]
    warnings = [e["message"] for e in harness.events() if e["type"] == "Warning"]
    assert any("held (masked)" in message for message in warnings), warnings
    assert (
        'metadata.annotations.example.com/deploy-token: (none) -> "(masked)"'
        in runs["plan -o text"][1]
    )
    docs = harness.get("webapp", "docs")
    assert docs is not None
    assert docs["status"]["conditions"], "docs' status was written (and is searched)"
    assert docs["metadata"]["annotations"]["example.com/deploy-token"] == GIT_SECRET
    assert docs["status"]["lastVerifiedKey"] == keys.alice.fingerprint, "the runs verified"

    assert leaks_left(harness, runs, scene, driftctl) == {}
    # Every receiver was told (so each canary was used), as its API expects.
    assert {name: bool(r.received) for name, r in told.by_name.items()} == dict.fromkeys(
        told.by_name, True
    )
    assert [problem for r in told.by_name.values() for problem in r.problems] == []
    assert any(
        "held (masked)" in each.body.decode() for each in told.by_name["webhook"].received
    ), "the refusal's reason was told, masked"
    assert notification_leaks(told) == {}
