"""Benchmark (not a test): driftctl beside kubectl on one local control plane, four scenarios.

For N WebApps over 10 namespaces and 100 files (benchmarks/fleet.py), each tool takes six
timed steps in its own namespaces: (3) all new: cold apply; (1) no drift: plan, apply;
(2) 1% of the Deployments drifted (scaled and given another image, by a person): plan,
apply; (4) 1% of the WebApps removed from Git: apply, which prunes (kubectl: `apply
--server-side --prune --applyset=...`). The two tools are interleaved step by step (same
control plane, same ServiceAccount, the order alternating between repetitions), so each
driftctl/kubectl ratio comes from two runs made minutes apart under the same load.

Each step is one process, started from a small spawner (benchmarks/spawn.py) and timed by
the wall clock, with its CPU time and peak RSS from wait4(2), the requests it sent as the
API server counted them, the CPU the API server and etcd spent meanwhile, and the
machine's load average. Results go to
benchmarks/results/<date>.json (every figure) and <date>.md (cluster_report), unless
--no-record.

With --latency-ms, both tools reach the API server through a relay on loopback that adds
that round trip to every exchange (benchmarks/latency.py), as a cluster in another zone
or region would: where --concurrency meets kubectl's one request at a time. Those results
go to benchmarks/results/latency/<date>-rtt<ms>ms.json and .md.

Run: `.venv/bin/python -m benchmarks.bench_cluster [--sizes 100,1000,10000]
[--repeat 5,3,1] [--controlplane DIR] [--latency-ms 20]`. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from kubernetes import client, config

from benchmarks import cluster_report as report
from benchmarks import fleet as f
from benchmarks import latency
from benchmarks.cluster_report import ROOT, STEPS
from driftctl import conventions as c
from driftctl.core.planning.manifests import Stamp
from tests.controlplane import launcher
from tests.support.control_plane import Requests, delta, request_counts
from tests.support.gitrepos import Repo

CRD_FILE = ROOT / "specs" / "webapp-crd.yaml"
RESULTS = ROOT / "benchmarks" / "results"
LOCK_NAMESPACE = "default"
KUBECTL_MANAGER = "kubectl-bench"
COUNTED = ("webapps", "deployments", "events", "leases", "applysets")
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

    def admin(self, *args: str, stdin: str | None = None) -> str:
        """kubectl as admin, for set-up, drift and clean-up (exempt from the counted flow)."""
        argv = [str(self.kubectl), f"--kubeconfig={self.plane.kubeconfig}", *args]
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args[:3])} failed: {done.stderr.strip()}")
        return done.stdout

    def kubectl_base(self) -> list[str]:
        return [
            str(self.kubectl),
            f"--kubeconfig={self.kubeconfig}",
            f"--cache-dir={self.work / 'kubectl-cache'}",
        ]


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


def prepare(plane: launcher.ControlPlane, work: Path) -> Bench:
    """The bench ServiceAccount (cluster-admin), the ApplySet parent CRD, a warm kubectl."""
    bench = Bench(plane, plane.bin_dir / "kubectl", work / "bench.kubeconfig", work)
    bench.admin("apply", "--server-side", "-f", "-", stdin=BENCH_IDENTITY)
    bench.admin("apply", "--server-side", "-f", "-", stdin=json.dumps(f.APPLYSET_CRD))
    bench.admin(
        "wait", "--for=condition=Established", f"crd/{f.APPLYSET_PLURAL}.{f.APPLYSET_GROUP}"
    )
    token = bench.admin("create", "token", "bench", "-n", "default", "--duration=12h").strip()
    config = json.loads(plane.kubeconfig.read_text())
    config["users"] = [{"name": "bench", "user": {"token": token}}]
    config["contexts"][0]["context"]["user"] = "bench"
    bench.kubeconfig.write_text(json.dumps(config))
    bench.kubeconfig.chmod(0o600)
    # An installed driftctl has its bytecode compiled (pip does it); this worktree's may not
    # (PYTHONDONTWRITEBYTECODE), and compiling on every run is not what a CronJob pays.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "driftctl")], check=True)
    # A kubectl user has a warm discovery cache; fill it before anything is measured.
    subprocess.run([*bench.kubectl_base(), "api-resources"], capture_output=True, check=True)
    return bench


# --- one tool's turn: its commands for each step ---------------------------------------------


@dataclass
class Turn:
    """One tool at one size in one repetition: its fleet, and what it runs at each step."""

    tool: str
    fleet: f.Fleet
    argv: Callable[[str], list[str]]  # step -> command
    before: Callable[[str], None] = lambda step: None  # untimed preparation of a step
    extra_env: dict[str, str] = field(default_factory=dict)


def kubectl_turn(bench: Bench, fleet: f.Fleet, version: str) -> Turn:
    folder = bench.work / fleet.prefix
    stamp = Stamp(fleet.prefix, "0123456789abcdef" * 2 + "01234567", f"{folder}#apps")
    applyset = f"{fleet.prefix}-set"
    f.render_for_kubectl(fleet, stamp, folder)
    common = ["--server-side", "--force-conflicts", f"--field-manager={KUBECTL_MANAGER}"]
    files = ["-f", str(folder)]
    pruning = ["--prune", f"--applyset={f.APPLYSET_PLURAL}.{f.APPLYSET_GROUP}/{applyset}"]

    def argv(step: str) -> list[str]:
        verb = "diff" if step.endswith("plan") else "apply"
        extra = pruning if step == "prune apply" else []
        return [*bench.kubectl_base(), verb, *common, *extra, *files]

    def before(step: str) -> None:
        if step == "drift plan":
            drift(bench, fleet)
        if step == "prune apply":
            # Untimed: make the fleet an ApplySet (kubectl labels every object), then drop 1%.
            bench.admin(
                "apply", "--server-side", "-f", "-", stdin=f.applyset_parent(applyset, version)
            )
            adopt = [*bench.kubectl_base(), "apply", *common, *pruning, *files]
            subprocess.run(
                adopt, env=tool_environment(APPLYSET_ON), capture_output=True, check=True
            )
            f.render_for_kubectl(fleet, stamp, folder, removed=True)

    return Turn("kubectl", fleet, argv, before, APPLYSET_ON)


APPLYSET_ON = {"KUBECTL_APPLYSET": "true"}  # --applyset is alpha in kubectl v1.37


def driftctl_turn(bench: Bench, fleet: f.Fleet, concurrency: int | None) -> Turn:
    repo = Repo(bench.work / fleet.prefix)
    f.write_git(fleet, repo)
    common = [
        f"--repo={repo.path}",
        "--ref=main",
        "--path=apps",
        f"--kubeconfig={bench.kubeconfig}",
        f"--instance={fleet.prefix}",
        "--timeout=3600",  # a cold apply of 10,000 WebApps on a loaded machine takes minutes
        *([f"--concurrency={concurrency}"] if concurrency else []),
    ]

    def argv(step: str) -> list[str]:
        base = [sys.executable, "-m", "driftctl"]
        if step.endswith("plan"):
            return [*base, "plan", *common]
        return [*base, "apply", *common, f"--lock-namespace={LOCK_NAMESPACE}"]

    def before(step: str) -> None:
        if step == "drift plan":
            drift(bench, fleet)
        if step == "prune apply":
            f.write_git(fleet, repo, removed=True)

    return Turn("driftctl", fleet, argv, before)


FLOOR = "paged LIST"  # the tool name of the floor's samples (benchmarks/bare_list.py)


def floor_turn(bench: Bench, fleet: f.Fleet) -> Turn:
    """The floor of driftctl's no-drift plan: the same LIST pages, read and not decoded."""

    def argv(step: str) -> list[str]:
        return [sys.executable, "-m", "benchmarks.bare_list", str(bench.kubeconfig), fleet.prefix]

    return Turn(FLOOR, fleet, argv)


def drift(bench: Bench, fleet: f.Fleet) -> None:
    """A person scales 1% of the Deployments and sets another image (as admin: not counted)."""
    by_namespace: dict[str, list[str]] = {}
    for namespace, name in fleet.drifted:
        by_namespace.setdefault(namespace, []).append(name)
    for namespace, names in by_namespace.items():
        deployments = [f"deployment/{name}" for name in names]
        bench.admin("scale", *deployments, f"--replicas={f.DRIFTED_REPLICAS}", "-n", namespace)
        bench.admin("set", "image", *deployments, f"app={f.DRIFTED_IMAGE}", "-n", namespace)


# --- measuring one step ----------------------------------------------------------------------


def tool_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    prefixes = ("GIT_", "KUBECONFIG", "DRIFTCTL_", "KUBECTL_")
    env = {key: value for key, value in os.environ.items() if not key.startswith(prefixes)}
    env["NO_COLOR"] = "1"
    env.update(extra or {})
    return env


def server_cpu(plane: launcher.ControlPlane) -> float:
    """CPU seconds the API server and etcd have used so far (/proc/<pid>/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for name in ("kube-apiserver", "etcd"):
        fields = Path(f"/proc/{plane.pids[name]}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


@dataclass(frozen=True)
class Usage:
    """What one process used, as wait4(2) told its parent."""

    seconds: float  # wall clock, from its fork to its end
    cpu_seconds: float  # user and system, its own and its children's
    rss_kib: int  # its peak resident set, from the spawner's few MiB up
    code: int


SPAWN = Path(__file__).with_name("spawn.py")


def run_process(argv: Sequence[str], log: Path, env: dict[str, str]) -> Usage:
    """Run to the end from a small spawner (benchmarks/spawn.py: this process's peak RSS
    would be the tool's floor otherwise); what that process alone used."""
    with log.open("w") as out, tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "usage.json"
        spawner = [sys.executable, "-S", str(SPAWN), str(report), "--", *argv]
        subprocess.run(spawner, stdout=out, stderr=out, env=env, cwd=ROOT, check=True)
        return Usage(**json.loads(report.read_text()))


def by_verb(before: Requests, after: Requests) -> dict[str, int]:
    """Requests to the counted resources by resource and verb (every client)."""
    counted: Counter[str] = Counter()
    for (kind, subresource, verb, *_, dry_run, _code), count in delta(
        before, after, COUNTED
    ).items():
        name = f"{kind}/{subresource}" if subresource else kind
        counted[f"{name} {verb}{' dry-run' if dry_run else ''}"] += count
    return dict(sorted(counted.items()))


def measure(bench: Bench, turn: Turn, step: str, repetition: int) -> dict[str, Any]:
    floor = "-floor" if turn.tool == FLOOR else ""
    log = bench.work / "logs" / f"{turn.fleet.prefix}-{step.replace(' ', '-')}{floor}.log"
    log.parent.mkdir(exist_ok=True)
    load, cpu_before, before = (
        os.getloadavg()[0],
        server_cpu(bench.plane),
        request_counts(bench.plane),
    )
    usage = run_process(turn.argv(step), log, tool_environment(turn.extra_env))
    after, cpu_after = request_counts(bench.plane), server_cpu(bench.plane)
    expected = 1 if step == "drift plan" else 0
    if usage.code != expected:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        raise RuntimeError(f"{turn.tool} {step}: exited {usage.code}, expected {expected}:\n{tail}")
    return asdict(
        report.Sample(
            size=turn.fleet.count,
            step=step,
            tool=turn.tool,
            repetition=repetition,
            seconds=round(usage.seconds, 3),
            cpu_seconds=round(usage.cpu_seconds, 3),
            rss_kib=usage.rss_kib,
            requests=after.service_accounts - before.service_accounts,
            by_verb=by_verb(before, after),
            server_cpu_seconds=round(cpu_after - cpu_before, 2),
            load=round(load, 2),
            etcd_lists=after.etcd_lists - before.etcd_lists,
        )
    )


# --- rounds ---------------------------------------------------------------------------------


IDLE_CPU = 0.1  # CPU seconds per second of the API server and etcd; idle here is about 0.03


def settle(bench: Bench, timeout: float = 300.0) -> None:
    """Wait until the API server is idle for two seconds: nobody sends requests about the
    counted resources, it serves no request but the one asking (its inflight gauge), and it
    and etcd use under IDLE_CPU of a core (a step right after a heavy one otherwise pays for
    the work the server still does for the one before: compaction, its own collector)."""
    deadline = time.monotonic() + timeout
    before, cpu = request_counts(bench.plane), server_cpu(bench.plane)
    while time.monotonic() < deadline:
        time.sleep(2.0)
        after, cpu_after = request_counts(bench.plane), server_cpu(bench.plane)
        quiet = not delta(before, after, COUNTED) and inflight(bench.plane) <= 1
        if quiet and (cpu_after - cpu) / 2.0 < IDLE_CPU:
            return
        before, cpu = after, cpu_after
    print("# the cluster did not settle; measuring anyway", file=sys.stderr)


def inflight(plane: launcher.ControlPlane) -> int:
    """The requests the API server is serving now (this one included)."""
    code, body = launcher.get(plane.folder, plane.server, "/metrics", timeout=30)
    if code != 200:
        raise RuntimeError(f"/metrics: {code}")
    gauge = "apiserver_current_inflight_requests{"
    return sum(
        int(float(line.rsplit(" ", 1)[1])) for line in body.splitlines() if line.startswith(gauge)
    )


def clean_up(bench: Bench, turn: Turn) -> None:
    """Delete the Deployments, release the cleanup finalizers, then the namespaces.

    Deployments go first so that the garbage collector finds no dependents to check when
    their owners go. Finalizers are released because no driftctl runs to honour them.
    """
    with config.new_client_from_config(config_file=str(bench.plane.kubeconfig)) as api:  # type: ignore[no-untyped-call]
        delete_deployments(api, turn.fleet.namespaces)
        release_finalizers(api, turn.fleet.namespaces)
    bench.admin("delete", "namespace", *turn.fleet.namespaces, "--wait=true", "--timeout=900s")
    bench.admin("delete", f"{f.APPLYSET_PLURAL}.{f.APPLYSET_GROUP}", "--all", "--ignore-not-found")
    bench.admin("delete", "lease", c.lease_name(turn.fleet.prefix), "-n", LOCK_NAMESPACE,
                "--ignore-not-found")  # fmt: skip


def delete_deployments(
    api: client.ApiClient, namespaces: Sequence[str], timeout: float = 600.0
) -> None:
    """One delete-collection per namespace, then wait until none is left.

    `kubectl delete deployments --all` sends one DELETE per object: about 3.5 minutes a
    namespace of 1,000, most of the time between two repetitions at 10,000.
    """
    apps = client.AppsV1Api(api)
    for namespace in namespaces:
        apps.delete_collection_namespaced_deployment(namespace)
    deadline = time.monotonic() + timeout
    for namespace in namespaces:
        while apps.list_namespaced_deployment(namespace, limit=1).items:
            if time.monotonic() > deadline:
                raise RuntimeError(f"Deployments in {namespace} still there after {timeout:.0f} s")
            time.sleep(1.0)


def release_finalizers(api: client.ApiClient, namespaces: Sequence[str]) -> None:
    objects = client.CustomObjectsApi(api)
    held: list[tuple[str, str]] = []
    for namespace in namespaces:
        listed: dict[str, Any] = objects.list_namespaced_custom_object(  # type: ignore[assignment]
            c.GROUP, c.VERSION, namespace, c.PLURAL
        )
        held += [
            (namespace, item["metadata"]["name"])
            for item in listed["items"]
            if item["metadata"].get("finalizers")
        ]

    def release(place: tuple[str, str]) -> None:
        objects.patch_namespaced_custom_object(
            c.GROUP, c.VERSION, place[0], c.PLURAL, place[1],
            {"metadata": {"finalizers": None}}, _content_type="application/merge-patch+json",
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(release, held))


def run_repetition(
    bench: Bench, count: int, repetition: int, options: argparse.Namespace, *, last: bool = False
) -> list[dict[str, Any]]:
    """Both tools, step by step, interleaved; who goes first alternates."""
    stem = f"{count}-{repetition}"
    turns = [
        kubectl_turn(bench, f.Fleet(count, f"k{stem}"), options.kubectl_version),
        driftctl_turn(bench, f.Fleet(count, f"d{stem}"), options.concurrency),
    ]
    turns = turns if repetition % 2 == 0 else turns[::-1]
    for turn in turns:
        for namespace in turn.fleet.namespaces:
            bench.admin("create", "namespace", namespace)
    floor = floor_turn(bench, next(turn.fleet for turn in turns if turn.tool == "driftctl"))
    samples = []
    for step in STEPS:
        for turn in turns:
            turn.before(step)
            with_floor = step == "no-drift plan" and turn.tool == "driftctl"
            measured = [turn, floor] if with_floor else [turn]
            for each in measured:
                settle(bench)
                samples.append(measure(bench, each, step, repetition))
                done = samples[-1]
                print(f"# N={count} #{repetition + 1} {each.tool} {step}: {done['seconds']:.2f} s "
                      f"(load {done['load']:.1f})", file=sys.stderr)  # fmt: skip
    for turn in turns:
        check_converged(bench, turn)
    if not (last and options.controlplane is None):  # a control plane about to go
        for turn in turns:
            clean_up(bench, turn)
    return samples


def check_converged(bench: Bench, turn: Turn) -> None:
    """After the last step every Deployment left is back to what Git declares, 1% fewer."""
    wanted = len(turn.fleet.apps(removed=True))
    template = "jsonpath={range .items[*]}{.metadata.namespace} {.spec.replicas}\n{end}"
    out = bench.admin("get", "deployments", "-A", "-o", template)
    mine = [
        line.split()[1] for line in out.splitlines() if line.startswith(turn.fleet.prefix + "-")
    ]
    if len(mine) != wanted or set(mine) != {str(f.REPLICAS)}:
        raise RuntimeError(
            f"{turn.tool} did not converge: {len(mine)} of {wanted}, {Counter(mine)}"
        )


# --- the whole run ------------------------------------------------------------------------------


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_cluster", description=__doc__)
    parser.add_argument("--sizes", default="100,1000,10000", help="WebApp counts")
    parser.add_argument("--repeat", default="5,3,1", help="repetitions per size (one or one each)")
    parser.add_argument("--concurrency", type=int, help="driftctl --concurrency (default: its own)")
    parser.add_argument("--controlplane", type=Path, help="folder of a running control plane")
    parser.add_argument("--no-record", action="store_true", help="print only, write no file")
    parser.add_argument("--name", help="results file name (default: the date)")
    parser.add_argument(
        "--append", action="store_true", help="add to the samples already in that file"
    )
    parser.add_argument(
        "--latency-ms", type=float, default=0.0, help="round trip added to every exchange"
    )
    options = parser.parse_args(argv)
    options.sizes = [int(size) for size in options.sizes.split(",")]
    repeats = [int(n) for n in options.repeat.split(",")]
    options.repeats = repeats * len(options.sizes) if len(repeats) == 1 else repeats
    options.record = not options.no_record
    return options


def main(argv: Sequence[str] | None = None) -> None:
    options = parse(sys.argv[1:] if argv is None else argv)
    started, load_before = time.monotonic(), os.getloadavg()
    samples: list[dict[str, Any]] = earlier(options) if options.append else []
    with (
        tempfile.TemporaryDirectory() as folder,
        control_plane(options.controlplane, Path(folder)) as plane,
        latency.DelayingRelay(
            latency.upstream_of(plane.kubeconfig), options.latency_ms / 1000
        ) as relay,
    ):
        bench = prepare(plane, Path(folder))
        if options.latency_ms:
            bench = through(bench, relay)
        options.kubectl_version = kubectl_version(bench)
        rounds = [
            (count, repetition)
            for count, repeat in zip(options.sizes, options.repeats, strict=True)
            for repetition in range(repeat)
        ]
        for index, (count, repetition) in enumerate(rounds):
            last = index == len(rounds) - 1
            samples += run_repetition(bench, count, repetition, options, last=last)
            if options.record:
                record(samples, options, started, load_before)
    if not options.record:
        print(report.markdown(results(samples, options, started, load_before)))


def through(bench: Bench, relay: latency.DelayingRelay) -> Bench:
    """The bench with both tools reaching the API server through `relay` (admin does not),
    kubectl's discovery cache warm for that address too."""
    kubeconfig = latency.relayed_kubeconfig(bench.kubeconfig, relay, bench.work / "relayed")
    relayed = replace(bench, kubeconfig=kubeconfig)
    subprocess.run([*relayed.kubectl_base(), "api-resources"], capture_output=True, check=True)
    return relayed


def results_folder(options: argparse.Namespace) -> Path:
    return RESULTS / "latency" if options.latency_ms else RESULTS


def results_name(options: argparse.Namespace) -> str:
    name = options.name or datetime.date.today().isoformat()
    return (
        f"{name}-rtt{options.latency_ms:g}ms" if options.latency_ms and not options.name else name
    )


def earlier(options: argparse.Namespace) -> list[dict[str, Any]]:
    """The samples of an earlier invocation recorded under the same name (--append)."""
    path = results_folder(options) / f"{results_name(options)}.json"
    data = json.loads(path.read_text())
    options.runs = [*data.get("runs", [_run_of(data)]), None]
    samples: list[dict[str, Any]] = data["samples"]
    return samples


def _run_of(data: dict[str, Any]) -> dict[str, Any]:
    settings = data["settings"]
    return {
        "commit": data["commit"],
        "sizes": settings["sizes"],
        "repetitions": settings["repetitions"],
        "elapsed_minutes": data["elapsed_minutes"],
        "load_average": data["load_average"],
    }


def results(
    samples: list[dict[str, Any]],
    options: argparse.Namespace,
    started: float,
    load_before: tuple[float, float, float],
) -> dict[str, Any]:
    """Every sample so far, with where, when and how they were made (one entry in `runs`
    per invocation: --append adds one)."""
    this = {
        "commit": report.commit(),
        "sizes": options.sizes,
        "repetitions": options.repeats,
        "elapsed_minutes": round((time.monotonic() - started) / 60, 1),
        "load_average": {"start": list(load_before), "end": list(os.getloadavg())},
    }
    runs = [*getattr(options, "runs", [None])[:-1], this]
    sizes = sorted({sample["size"] for sample in samples})
    repetitions = [len({s["repetition"] for s in samples if s["size"] == size}) for size in sizes]
    return {
        "date": datetime.date.today().isoformat(),
        "machine": report.machine(),
        "versions": {"kubectl and control plane": options.kubectl_version, **report.versions()},
        "commit": ", ".join(dict.fromkeys(run["commit"] for run in runs)),
        "settings": {
            "sizes": sizes,
            "repetitions": repetitions,
            "driftctl concurrency": options.concurrency or "default",
            "round trip added, ms": options.latency_ms,
            "namespaces": f.NAMESPACES,
            "files": f.FILES,
        },
        "elapsed_minutes": round(sum(run["elapsed_minutes"] for run in runs), 1),
        "load_average": {
            "start": runs[0]["load_average"]["start"],
            "end": this["load_average"]["end"],
        },
        "runs": runs,
        "samples": samples,
    }


def record(
    samples: list[dict[str, Any]],
    options: argparse.Namespace,
    started: float,
    load_before: tuple[float, float, float],
) -> None:
    """Write what was measured so far: <name>.json, and <name>.md made from it."""
    folder, name = results_folder(options), results_name(options)
    folder.mkdir(exist_ok=True)
    data = results(samples, options, started, load_before)
    (folder / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
    (folder / f"{name}.md").write_text(report.markdown(data))
    print(f"# written to {folder.relative_to(ROOT)}/{name}.json and .md", file=sys.stderr)


def kubectl_version(bench: Bench) -> str:
    done = subprocess.run(
        [str(bench.kubectl), "version", "--client", "-o", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    version: str = json.loads(done.stdout)["clientVersion"]["gitVersion"]
    return version


if __name__ == "__main__":
    main()
