"""The live state is read as one streamed list per kind (a WATCH that sends what is there,
then a bookmark), the same objects in the same order as paged LISTs give; page by page
where the server refuses to stream, and where a stream breaks off."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.shell.kube import Deadline, Kube, connect
from driftctl.shell.live_state import read_live
from tests.controlplane import launcher
from tests.support.control_plane import request_counts
from tests.support.faultproxy import Cut, Fault, FaultProxy, kubeconfig_for
from tests.support.harness import Harness
from tests.support.paths import CRD_FILE

FIVE = {f"app-{i}": ("nginx:1.27", 1) for i in range(5)}


def client(kubeconfig: Path, said: list[str] | None = None) -> Kube:
    notice = said.append if said is not None else (lambda line: None)
    return Kube(connect(str(kubeconfig), None, pool_size=2), Deadline(60), notice=notice)


def test_one_request_per_kind_gives_what_the_pages_give_in_their_order(harness: Harness) -> None:
    harness.declare(FIVE)
    assert harness.driftctl("apply").code == 0
    selector = c.instance_selector(harness.instance)
    kube = client(harness.kubeconfig)
    groups: list[int] = []

    live = read_live(kube, harness.instance, page_size=2)
    streamed, version = kube.list_streamed(
        r.WEBAPP, selector, 2, harness.namespace, lambda items: groups.append(len(items))
    )

    assert kube.sent["GET"] == 1 + 2 + 1  # the CRD, a list of each kind, the second list
    assert sorted(o["metadata"]["name"] for o in live.webapps.values()) == sorted(FIVE)
    assert sorted(o["metadata"]["name"] for o in live.deployments.values()) == sorted(FIVE)
    assert {o["kind"] for o in live.webapps.values()} == {c.KIND}
    assert groups == [2, 2, 1]  # handed on as they come, in groups of the page size
    paged, paged_version = kube.list_at(r.WEBAPP, selector, 2, harness.namespace)
    assert streamed == paged
    assert int(version) <= int(paged_version)


def test_a_role_that_may_not_watch_reads_page_by_page_and_says_so_once(
    harness: Harness, no_watch_kubeconfig: Path
) -> None:
    harness.declare(FIVE)
    assert harness.driftctl("apply").code == 0
    said: list[str] = []
    kube = client(no_watch_kubeconfig, said)

    live = read_live(kube, harness.instance, page_size=2)

    assert len(live.webapps) == len(live.deployments) == 5
    # the CRD; a refused stream; three pages of each kind (the kind that lost the race
    # to the refusal may have tried to stream too)
    assert kube.sent["GET"] in (1 + 1 + 6, 1 + 2 + 6)
    [notice] = said  # once, for both kinds
    assert "403 Forbidden" in notice
    assert 'cannot watch resource "' in notice
    assert notice.endswith("; reading page by page (grant `watch` to stream)")

    ran = harness.driftctl("plan", kubeconfig=no_watch_kubeconfig)
    assert ran.code == 0, ran.err
    [note] = ran.err.splitlines()
    assert note.startswith("note: list ")
    assert note.endswith("; reading page by page (grant `watch` to stream)")


def test_a_stream_broken_off_midway_is_read_again_in_pages(
    harness: Harness,
    fault_proxy: FaultProxy,
    service_account_kubeconfig: Path,
    tmp_path: Path,
) -> None:
    harness.declare(FIVE)
    assert harness.driftctl("apply").code == 0
    proxied = kubeconfig_for(service_account_kubeconfig, fault_proxy.url, tmp_path / "proxied")
    fault_proxy.inject(Fault(Cut(lines=3), path=f"/apis/{c.GROUP}/{c.VERSION}/{c.PLURAL}"))
    said: list[str] = []
    kube = client(proxied, said)
    counts: list[int] = []

    live = read_live(
        kube, harness.instance, page_size=2, tick=lambda phase, done, total: counts.append(done)
    )

    assert sorted(o["metadata"]["name"] for o in live.webapps.values()) == sorted(FIVE)
    assert len(live.deployments) == 5
    # the progress takes back what the broken stream gave (two WebApps) before the pages
    assert counts[-1] == 10
    assert max(counts) <= 10
    [notice] = said
    assert notice.startswith(f"list webapps: API server {fault_proxy.url} watch broken: ")
    assert notice.endswith("; reading it page by page")
    webapp_gets = [e for e in fault_proxy.exchanges if e.path.endswith("/webapps")]
    assert [(e.status, "watch=1" in e.query) for e in webapp_gets] == [
        (0, True),  # cut after three lines
        (200, False),
        (200, False),
        (200, False),
    ]


def test_another_instance_sees_none_of_them(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    assert harness.driftctl("apply").code == 0
    kube = client(harness.kubeconfig)

    live = read_live(kube, f"{harness.instance}-other")

    assert (live.webapps, live.deployments) == ({}, {})


def test_an_api_server_without_streamed_lists_is_read_in_pages_and_nothing_is_said(
    tmp_path: Path,
) -> None:
    """The WatchList feature off, as on Kubernetes 1.27 to 1.31 and 1.33: the server refuses
    the streamed list (422) once, and the same objects come in pages."""
    plane = launcher.start(
        tmp_path / "plane", [CRD_FILE], apiserver_flags=["--feature-gates=WatchList=false"]
    )
    try:
        instance = c.instance_selector("default")
        label = dict([instance.split("=", 1)])
        webapps = [
            {
                "apiVersion": f"{c.GROUP}/{c.VERSION}",
                "kind": c.KIND,
                "metadata": {"name": f"app-{i}", "namespace": "default", "labels": label},
                "spec": {"image": "nginx:1.27", "replicas": 1},
            }
            for i in range(3)
        ]
        subprocess.run(
            [
                str(plane.bin_dir / "kubectl"),
                f"--kubeconfig={plane.kubeconfig}",
                "apply",
                "-f",
                "-",
            ],
            input=json.dumps({"apiVersion": "v1", "kind": "List", "items": webapps}),
            text=True,
            check=True,
            capture_output=True,
        )
        said: list[str] = []
        kube = client(plane.kubeconfig, said)
        before = request_counts(plane)

        first, _ = kube.list_streamed(r.WEBAPP, instance, 2)
        second, _ = kube.list_streamed(r.WEBAPP, instance, 2)

        after = request_counts(plane)
        assert [o["metadata"]["name"] for o in first] == ["app-0", "app-1", "app-2"]
        assert second == first
        assert said == []
        refused = ("webapps", "", "WATCH", "cluster", "", "422")
        assert after.by_series[refused] - before.by_series[refused] == 1  # asked once
        assert kube.sent["GET"] == 1 + 2 + 2  # the refused stream, then two pages each time
    finally:
        launcher.stop(tmp_path / "plane")
