"""`driftctl watch` polls Git for days: its open files and child processes stay flat.

GitPython keeps a `git cat-file` helper (two, with --batch-check) and their pipes for each
`Repo` until it is closed. The watch process (a real one, with operator/'s RBAC) polls a
ref that moves every tenth poll, 200 polls in all, reading and applying each new commit;
its open file descriptors and its child processes, counted from /proc before and after,
are the same. Each count is the least of a few looks a moment apart, so that a git the
poll of that instant runs (and ends) is not taken for one left behind.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.harness import Harness, eventually
from tests.support.processes import children, open_files
from tests.support.watching import Watching, replicas, start

WATCH_ACCOUNT = "driftctl-watch-polls"
POLLS = 200
MOVE_EVERY = 10
APPS = ("shop", "blog", "docs")


def held(pid: int) -> tuple[int, int]:
    """(open files, child processes): the least of five looks, 50 ms apart."""
    looks = []
    for _ in range(5):
        looks.append((open_files(pid), children(pid)))
        time.sleep(0.05)
    return min(fd for fd, _ in looks), min(child for _, child in looks)


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
    assert after == before, f"(open files, children) before {before}, after {after}"
    assert before[1] == 0
    assert process.stop() == 0, process.log()
