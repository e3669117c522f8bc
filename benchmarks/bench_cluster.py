"""Benchmark (not a test): driftctl side by side with kubectl on one local control plane.

For N WebApps in one namespace, each tool does the same work in five steps: cold apply,
apply again with nothing drifted, plan with nothing drifted (`kubectl diff` for kubectl),
then, after 10% of the Deployments were scaled by hand, plan and apply again. Each step is
one process, timed by the wall clock, with its peak RSS from wait4(2) and the requests it
sent as counted by the API server itself. kubectl applies the manifests driftctl would
build, rendered to files. Results are absolute numbers and driftctl/kubectl ratios, as
Markdown on stdout and, unless --quick, in benchmarks/results/cluster-<date>.md.

Run: `.venv/bin/python -m benchmarks.bench_cluster [--quick] [--sizes 100,1000]
[--repeat 3] [--controlplane DIR]`. Without --controlplane it starts (and stops) its own.
Nothing here asserts a time: a benchmark records, tests decide.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubernetes import client, config

from benchmarks import cluster_report as report
from benchmarks.cluster_report import ROOT, STEPS, Results, Sample
from driftctl import conventions as c
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.pipeline import offline as pipeline
from driftctl.render.manifests import to_yaml
from driftctl.settings import Source
from tests.controlplane import launcher
from tests.gitrepos import Repo, webapp
from tests.integration.harness import Requests, delta, request_counts

CRD_FILE = ROOT / "specs" / "webapp-crd.yaml"
RESULTS = ROOT / "benchmarks" / "results"
EXPECTED_EXIT = {"cold apply": 0, "no-drift apply": 0, "no-drift plan": 0, "drift plan": 1}
REPLICAS = 2
DRIFTED_REPLICAS = 5
DRIFT_EVERY = 10  # every 10th Deployment drifts: 10%
LOCK_NAMESPACE = "default"
KUBECTL_MANAGER = "kubectl-bench"
OBJECT_RESOURCES = ("webapps", "deployments", "events")
BENCH_IDENTITY = """\
apiVersion: v1
kind: ServiceAccount
metadata: {name: bench, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: driftctl-bench}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: bench, namespace: default}]
"""


@dataclass(frozen=True)
class Bench:
    """The control plane and how both tools reach it (as the same ServiceAccount)."""

    plane: launcher.ControlPlane
    kubectl: Path
    kubeconfig: Path  # the bench ServiceAccount's: what both tools run as
    work: Path
    objects: Any  # the client's CustomObjectsApi, as admin: releases finalizers

    def admin(self, *args: str, stdin: str | None = None) -> str:
        """kubectl as admin, for set-up and clean-up (exempt from the counted flow)."""
        argv = [str(self.kubectl), f"--kubeconfig={self.plane.kubeconfig}", *args]
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args[:3])} failed: {done.stderr.strip()}")
        return done.stdout


@dataclass(frozen=True)
class Round:
    """One tool's turn at one size: its namespace (also driftctl's instance) and commands."""

    tool: str
    namespace: str
    apply: list[str]
    plan: list[str]


# --- the control plane and the identity both tools run as ---------------------------------


@contextlib.contextmanager
def control_plane(folder: Path | None, scratch: Path) -> Iterator[launcher.ControlPlane]:
    """The control plane recorded in `folder`, or one started in `scratch` and then stopped."""
    if folder is not None:
        plane = launcher.read_state(folder)
        if plane is None:
            raise SystemExit(f"no control plane recorded in {folder}")
        yield plane
        return
    plane = launcher.start(scratch / "controlplane", [CRD_FILE])
    try:
        yield plane
    finally:
        launcher.stop(plane.folder)


def service_account_kubeconfig(bench: Bench, path: Path) -> None:
    """A kubeconfig acting as ServiceAccount default/bench, bound to cluster-admin.

    The API server's flow control counts what ServiceAccounts send apart from admin and the
    controller manager (both exempt), so that count is exactly the measured tool's requests.
    """
    bench.admin("apply", "--server-side", "-f", "-", stdin=BENCH_IDENTITY)
    token = bench.admin("create", "token", "bench", "-n", "default", "--duration=10h").strip()
    config = json.loads(bench.plane.kubeconfig.read_text())
    config["users"] = [{"name": "bench", "user": {"token": token}}]
    config["contexts"][0]["context"]["user"] = "bench"
    path.write_text(json.dumps(config))
    path.chmod(0o600)


def prepare(plane: launcher.ControlPlane, work: Path) -> Bench:
    api = config.new_client_from_config(config_file=str(plane.kubeconfig))  # type: ignore[no-untyped-call]
    bench = Bench(
        plane,
        plane.bin_dir / "kubectl",
        work / "bench.kubeconfig",
        work,
        client.CustomObjectsApi(api),
    )
    service_account_kubeconfig(bench, bench.kubeconfig)
    # A kubectl user has a warm discovery cache; fill it before anything is measured.
    subprocess.run([*kubectl_base(bench), "api-resources"], capture_output=True, check=True)
    return bench


# --- what each tool is given ---------------------------------------------------------------


def make_repository(folder: Path, count: int) -> Repo:
    """N WebApps, one file per WebApp under apps/, committed on main."""
    files = {
        f"apps/app-{index:04d}.yaml": webapp(f"app-{index:04d}", replicas=REPLICAS)
        for index in range(count)
    }
    repo = Repo(folder)
    repo.write(files).commit(f"{count} WebApps")
    return repo


def render_for_kubectl(repo: Repo, namespace: str, folder: Path) -> Path:
    """What driftctl would apply, as files: per WebApp, the WebApp and its Deployment.

    kubectl cannot know a WebApp's uid before it exists, so the Deployments carry no
    ownerReference; every other field is the one driftctl sends.
    """
    source = Source(str(repo.path), ref="main", path="apps", namespace=namespace)
    desired = pipeline.load_desired(source, os.environ)
    stamp = Stamp.of(desired, namespace)
    folder.mkdir(parents=True)
    for app in desired.webapps:
        deployment = build_deployment(app, namespace, owner_uid="")
        del deployment["metadata"]["ownerReferences"]
        documents = (to_yaml(webapp_manifest(app, stamp)), to_yaml(deployment))
        (folder / f"{app.name}.yaml").write_text("---\n".join(documents))
    return folder


def kubectl_base(bench: Bench) -> list[str]:
    return [
        str(bench.kubectl),
        f"--kubeconfig={bench.kubeconfig}",
        f"--cache-dir={bench.work / 'kubectl-cache'}",
    ]


def kubectl_round(bench: Bench, repo: Repo, namespace: str) -> Round:
    manifests = render_for_kubectl(repo, namespace, bench.work / namespace)
    common = [
        "--server-side",
        "--force-conflicts",  # driftctl forces too: Git is the source of truth
        f"--field-manager={KUBECTL_MANAGER}",
        "-f",
        str(manifests),
    ]
    base = kubectl_base(bench)
    return Round("kubectl", namespace, [*base, "apply", *common], [*base, "diff", *common])


def driftctl_round(bench: Bench, repo: Repo, namespace: str, concurrency: int) -> Round:
    common = [
        f"--repo={repo.path}",
        "--ref=main",
        "--path=apps",
        f"--namespace={namespace}",
        f"--kubeconfig={bench.kubeconfig}",
        f"--instance={namespace}",
        f"--concurrency={concurrency}",
    ]
    base = [sys.executable, "-m", "driftctl"]
    return Round(
        "driftctl",
        namespace,
        [*base, "apply", *common, f"--lock-namespace={LOCK_NAMESPACE}"],
        [*base, "plan", *common],
    )


# --- measuring one step ----------------------------------------------------------------------


def tool_environment() -> dict[str, str]:
    prefixes = ("GIT_", "KUBECONFIG", "DRIFTCTL_", "KUBECTL_")
    env = {key: value for key, value in os.environ.items() if not key.startswith(prefixes)}
    env["NO_COLOR"] = "1"
    return env


def run_process(argv: Sequence[str], log: Path) -> tuple[float, resource.struct_rusage, int]:
    """Run to the end; (wall seconds, resource usage, exit code) of that process alone."""
    with log.open("w") as out:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=out, env=tool_environment(), cwd=ROOT)
        _pid, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage, process.returncode


def kinds(before: Requests, after: Requests) -> Counter[str]:
    """Requests to WebApps, Deployments and Events by resource and verb (every client)."""
    counted: Counter[str] = Counter()
    for (kind, subresource, verb, *_, dry_run, _code), count in delta(
        before, after, OBJECT_RESOURCES
    ).items():
        name = f"{kind}/{subresource}" if subresource else kind
        counted[f"{name} {verb}{' dry-run' if dry_run else ''}"] += count
    return counted


def measure(bench: Bench, argv: Sequence[str], step: str, log: Path) -> Sample:
    before = request_counts(bench.plane)
    seconds, usage, code = run_process(argv, log)
    after = request_counts(bench.plane)
    expected = EXPECTED_EXIT.get(step, 0)
    if code != expected:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        raise RuntimeError(f"{step}: {argv[0]} exited {code}, expected {expected}:\n{tail}")
    requests = after.service_accounts - before.service_accounts
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(seconds, cpu, usage.ru_maxrss, requests, kinds(before, after))


# --- one round: the five steps of one tool in a fresh namespace ------------------------------


def drift(bench: Bench, namespace: str, count: int) -> None:
    """Scale every 10th Deployment by hand, as a person would (as admin: not counted)."""
    names = [f"app-{index:04d}" for index in range(0, count, DRIFT_EVERY)]
    bench.admin("scale", "deployment", *names, f"--replicas={DRIFTED_REPLICAS}", "-n", namespace)


def check_converged(bench: Bench, namespace: str, count: int) -> None:
    """After the last apply every Deployment is back to the replicas Git declares."""
    replicas = bench.admin(
        "get", "deployments", "-n", namespace, "-o", "jsonpath={.items[*].spec.replicas}"
    ).split()
    if len(replicas) != count or set(replicas) != {str(REPLICAS)}:
        raise RuntimeError(f"{namespace} did not converge: {Counter(replicas)}")


def run_round(bench: Bench, turn: Round, count: int) -> dict[str, Sample]:
    logs = bench.work / "logs"
    logs.mkdir(exist_ok=True)
    settle(bench)
    bench.admin("create", "namespace", turn.namespace)
    samples = {}
    for step in STEPS:
        if step == "drift plan":
            drift(bench, turn.namespace, count)
        argv = turn.plan if step.endswith("plan") else turn.apply
        log = logs / f"{turn.namespace}-{step.replace(' ', '-')}.log"
        samples[step] = measure(bench, argv, step, log)
    check_converged(bench, turn.namespace, count)
    clean_up(bench, turn.namespace)
    return samples


def clean_up(bench: Bench, namespace: str) -> None:
    """Delete the Deployments, release the cleanup finalizers, then delete the namespace.

    Deployments go first so that the garbage collector finds no dependents to check when
    their owners go; it would otherwise GET each one, rate-limited, into the next round.
    The finalizers are released because no driftctl runs to honour them.
    """
    bench.admin("delete", "deployments", "--all", "-n", namespace, "--wait=true")
    listed = bench.objects.list_namespaced_custom_object(c.GROUP, c.VERSION, namespace, c.PLURAL)
    for item in listed["items"]:
        bench.objects.patch_namespaced_custom_object(
            c.GROUP, c.VERSION, namespace, c.PLURAL, item["metadata"]["name"],
            {"metadata": {"finalizers": None}}, _content_type="application/merge-patch+json",
        )  # fmt: skip
    bench.admin("delete", "namespace", namespace, "--wait=true", "--timeout=600s")
    bench.admin("delete", "lease", c.lease_name(namespace), "-n", LOCK_NAMESPACE,
                "--ignore-not-found")  # fmt: skip


def settle(bench: Bench, timeout: float = 180.0) -> None:
    """Wait until nobody sends requests about WebApps or Deployments for a second."""
    deadline = time.monotonic() + timeout
    before = request_counts(bench.plane)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        after = request_counts(bench.plane)
        if not delta(before, after, OBJECT_RESOURCES):
            return
        before = after
    print("# the cluster did not settle; measuring anyway", file=sys.stderr)


# --- the whole run ------------------------------------------------------------------------------


def rounds(bench: Bench, repo: Repo, count: int, repetition: int, concurrency: int) -> list[Round]:
    """Both tools, each in its own fresh namespace; who goes first alternates."""
    turns = [
        kubectl_round(bench, repo, f"bench-kubectl-{count}-{repetition}"),
        driftctl_round(bench, repo, f"bench-driftctl-{count}-{repetition}", concurrency),
    ]
    return turns if repetition % 2 == 0 else turns[::-1]


def run_size(bench: Bench, count: int, options: argparse.Namespace, results: Results) -> None:
    repo = make_repository(bench.work / f"repo-{count}", count)
    for repetition in range(options.repeat):
        for turn in rounds(bench, repo, count, repetition, options.concurrency):
            started = time.monotonic()
            for step, sample in run_round(bench, turn, count).items():
                results.setdefault((count, step, turn.tool), []).append(sample)
            print(
                f"# N={count} #{repetition + 1} {turn.tool}: {time.monotonic() - started:.0f} s",
                file=sys.stderr,
            )


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_cluster", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="N=100, one repetition, no record")
    parser.add_argument("--sizes", default="100,1000", help="WebApp counts (default: 100,1000)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (default: 3)")
    parser.add_argument("--concurrency", type=int, default=4, help="driftctl --concurrency")
    parser.add_argument("--controlplane", type=Path, help="folder of a running control plane")
    parser.add_argument("--no-record", action="store_true", help="print only, write no file")
    options = parser.parse_args(argv)
    options.sizes = [100] if options.quick else [int(size) for size in options.sizes.split(",")]
    options.repeat = 1 if options.quick else options.repeat
    options.record = not (options.quick or options.no_record)
    return options


def main(argv: Sequence[str] | None = None) -> None:
    options = parse(sys.argv[1:] if argv is None else argv)
    results: Results = {}
    started, load_before = time.monotonic(), os.getloadavg()[0]
    with (
        tempfile.TemporaryDirectory() as folder,
        control_plane(options.controlplane, Path(folder)) as plane,
    ):
        bench = prepare(plane, Path(folder))
        for count in options.sizes:
            run_size(bench, count, options, results)
        setting = report.Setting(
            kubectl_version(bench),
            options.repeat,
            options.concurrency,
            time.monotonic() - started,
            (load_before, os.getloadavg()[0]),
        )
    text = report.markdown(results, setting)
    print(text)
    if options.record:
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"cluster-{datetime.date.today().isoformat()}.md"
        path.write_text(text)
        print(f"# written to {path.relative_to(ROOT)}", file=sys.stderr)


def kubectl_version(bench: Bench) -> str:
    done = subprocess.run(
        [str(bench.kubectl), "version", "--client", "-o", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    version: str = json.loads(done.stdout)["clientVersion"]["gitVersion"]
    return version


if __name__ == "__main__":
    main()
