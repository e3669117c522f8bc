"""`driftctl watch --shard-count 2`, three replicas of it as the operator Deployment runs
them (no --shard-index: each takes whichever shard's Lease is free), on the real control
plane with operator/'s RBAC:

- two lead, one shard each (Lease driftctl-<instance>-shard-<i>), the third waits as a
  standby; each puts back a hand `kubectl scale` of its own shard's WebApps, and never
  touches the other shard's;
- the leader of a shard is killed (SIGKILL, no release): once its Lease expires, the
  standby takes that shard over and puts its WebApps back; the other shard's leader goes
  on as it was.
Which shard a WebApp is in is core.planning.shards' stable hash, the batch job's. Waits
are short polls on conditions, bounded; nothing here asserts a time.
"""

from __future__ import annotations

import re
from pathlib import Path

from driftctl.core.planning.shards import shard_of
from tests.support.harness import Harness, eventually
from tests.support.watching import Watching, replicas, start

WATCH_ACCOUNT = "driftctl-watch-shards"
SHARDS = ("--shard-count", "2", "--lease-duration", "8")
_LEADING = re.compile(r"leading: holds Lease \S+-shard-(\d)")


def shard_led(process: Watching) -> int | None:
    """The shard a process says it leads (None: it leads none)."""
    for line in process.log().splitlines():
        if found := _LEADING.search(line):
            return int(found.group(1))
    return None


def by_shard(namespace: str, count: int) -> dict[int, list[str]]:
    """Names of WebApps in `namespace`, `count` of each of the two shards; of one width, so
    that no name is the start of another in a log (app-1, app-10)."""
    names: dict[int, list[str]] = {0: [], 1: []}
    n = 0
    while any(len(each) < count for each in names.values()):
        name = f"app-{n:03d}"
        shard = shard_of(namespace, name, 2)
        if len(names[shard]) < count:
            names[shard].append(name)
        n += 1
    return names


def scaled_and_put_back(harness: Harness, name: str, leader: Watching) -> None:
    harness.kubectl("scale", f"deployment/{name}", "--replicas=4", "-n", harness.namespace)
    assert eventually(lambda: replicas(harness, name) == 1, 60), leader.log()
    assert eventually(
        lambda: leader.said(f"configured Deployment/{harness.namespace}/{name}"), 10
    ), leader.log()


def test_two_shards_split_the_fleet_and_a_standby_takes_over_a_dead_leaders_shard(
    harness: Harness, watch_kubeconfig: Path, watching: list[Watching]
) -> None:
    names = by_shard(harness.namespace, 3)
    harness.declare({name: ("nginx:1.27", 1) for shard in names.values() for name in shard})
    processes = [start(harness, watch_kubeconfig, watching, *SHARDS) for _ in range(3)]

    def two_lead() -> bool:
        return sorted(s for s in map(shard_led, processes) if s is not None) == [0, 1]

    assert eventually(two_lead, 60), "\n".join(each.log() for each in processes)
    leader = {shard_led(each): each for each in processes if shard_led(each) is not None}
    [standby] = [each for each in processes if shard_led(each) is None]
    assert eventually(lambda: all(each.ready() for each in processes), 60)
    assert eventually(lambda: standby.said("standby:"), 10), standby.log()
    assert leader[0].metric("driftctl_watch_shard_info", shard="0/2") == 1

    for shard, other in ((0, 1), (1, 0)):
        scaled_and_put_back(harness, names[shard][0], leader[shard])
        assert not leader[other].said(f"Deployment/{harness.namespace}/{names[shard][0]}")
    for shard, other in ((0, 1), (1, 0)):  # each holds, and so plans, only its own
        for name in names[other]:
            assert not leader[shard].said(f"/{harness.namespace}/{name}")

    leader[0].kill()  # a crash: the Lease is not released, it expires
    assert eventually(lambda: shard_led(standby) == 0, 60), standby.log()
    assert eventually(standby.ready, 60), standby.log()
    scaled_and_put_back(harness, names[0][1], standby)
    scaled_and_put_back(harness, names[1][1], leader[1])
    for name in names[1]:
        assert not standby.said(f"/{harness.namespace}/{name}")
    assert leader[1].process.poll() is None, leader[1].log()
