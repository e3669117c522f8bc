"""`driftctl watch` polls Git for days: its open files and child processes stay flat.

GitPython keeps a `git cat-file` helper (two, with --batch-check) and their pipes for each
`Repo` until it is closed. The watch process (a real one, with operator/'s RBAC) polls a
ref that moves every tenth poll, 200 polls in all, reading and applying each new commit;
its open files and pipes and its child processes, counted from /proc before and after,
are the same. Each count is the least of a few looks a moment apart, so that a git the
poll of that instant runs (and ends) is not taken for one left behind.

Its sockets are the probe server's and the API server's connections, which Git never
opens (Git runs in the child processes counted). The HTTP pool keeps a connection it
opened while two requests overlapped (a Lease renewal beside an apply), so their number may
grow by one or two and is held to the pool's bound instead: a socket left behind on each
poll would pass it.
"""

from __future__ import annotations

import time
from pathlib import Path

from driftctl.pipeline.watch.leader import pool_size
from driftctl.settings.cluster import DEFAULT_CONCURRENCY
from tests.support.harness import Harness, eventually
from tests.support.processes import children, open_targets
from tests.support.watching import Watching, replicas, start

WATCH_ACCOUNT = "driftctl-watch-polls"
POLLS = 200
MOVE_EVERY = 10
APPS = ("shop", "blog", "docs")
SOCKETS_AT_MOST = 1 + pool_size(DEFAULT_CONCURRENCY)  # the probe server's, and the pool full


def held(pid: int) -> tuple[int, int, int]:
    """(open files and pipes, sockets, child processes): each the least of five looks, 50 ms
    apart."""
    files, sockets, processes = [], [], []
    for _ in range(5):
        targets = open_targets(pid)  # one reading of /proc: files and sockets of one instant
        sockets.append(sum(target.startswith("socket:") for target in targets))
        files.append(len(targets) - sockets[-1])
        processes.append(children(pid))
        time.sleep(0.05)
    return min(files), min(sockets), min(processes)


def shop(version: int) -> int:
    return 1 + version % 3


def declare(harness: Harness, version: int) -> None:
    """The WebApps of one version: each one's replicas move with it."""
    harness.declare({app: ("nginx:1.27", 1 + (version + i) % 3) for i, app in enumerate(APPS)})


def test_two_hundred_git_polls_on_a_moving_ref_leave_files_and_processes_flat(
    harness: Harness, watch_kubeconfig: Path, watching: list[Watching]
) -> None:
    declare(harness, 0)
    process = start(harness, watch_kubeconfig, watching, "--git-poll", "0.1")
    assert eventually(process.ready, 60), process.log()
    pid = process.process.pid

    def polls() -> float:
        return process.metric("driftctl_watch_git_polls_total")

    version = 1
    declare(harness, version)  # one commit read and applied before counting: pools warm
    assert eventually(lambda: replicas(harness, "shop") == shop(version), 30), process.log()
    before, first = held(pid), polls()

    while polls() < first + POLLS:
        if polls() >= first + version * MOVE_EVERY:
            version += 1
            declare(harness, version)
        time.sleep(0.05)
    assert eventually(lambda: replicas(harness, "shop") == shop(version), 30), process.log()
    after = held(pid)

    assert version >= POLLS // MOVE_EVERY, "the ref moved every tenth poll"
    assert process.said(f"Git moved to {harness.repo.git('rev-parse', 'HEAD')[:12]}")
    files, sockets, processes = after
    counts = f"(open files and pipes, sockets, children) before {before}, after {after}"
    assert files == before[0], f"{counts}; open now: {open_targets(pid)}"
    assert processes == before[2] == 0, counts
    assert sockets <= SOCKETS_AT_MOST, f"sockets before {before[1]}, after {sockets}"
    assert process.stop() == 0, process.log()
