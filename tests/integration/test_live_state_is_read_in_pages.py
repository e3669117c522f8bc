"""The live state is read with paged LISTs that follow the server's continue tokens."""

from __future__ import annotations

from driftctl import conventions as c
from driftctl.shell.kube import Deadline, Kube, connect
from driftctl.shell.live_state import read_live
from tests.support.harness import Harness


def test_small_pages_still_give_every_object_once(harness: Harness) -> None:
    harness.declare({f"app-{i}": ("nginx:1.27", 1) for i in range(5)})
    assert harness.driftctl("apply").code == 0
    kube = Kube(connect(str(harness.kubeconfig), None, pool_size=1), Deadline(60))

    live = read_live(kube, harness.instance, page_size=2)

    names = sorted(o["metadata"]["name"] for o in live.webapps.values())
    assert names == [f"app-{i}" for i in range(5)]
    assert sorted(o["metadata"]["name"] for o in live.deployments.values()) == names
    assert {o["kind"] for o in live.webapps.values()} == {c.KIND}
    assert kube.sent["GET"] == 1 + 6  # the CRD; three pages of WebApps, three of Deployments


def test_another_instance_sees_none_of_them(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    assert harness.driftctl("apply").code == 0
    kube = Kube(connect(str(harness.kubeconfig), None, pool_size=1), Deadline(60))

    live = read_live(kube, f"{harness.instance}-other")

    assert (live.webapps, live.deployments) == ({}, {})
