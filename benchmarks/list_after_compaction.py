"""Who serves a paged LIST: the API server's watch cache, or etcd once a compaction passed.

The API server answers a LIST's first page from its watch cache. Each later page (a
continue token) it answers from the cache only while the cache keeps a snapshot at or
before the token's resourceVersion; it drops every snapshot older than etcd's compacted
revision, and takes a new one only when an object of that resource changes. So once a
compaction passes (every 5 minutes by default) with no event of a resource, every
continue page of its LIST goes to etcd: each item read from etcd and decoded again (for a
WebApp, its schema applied again). A fleet that does not change, which is what a no-drift
run meets, is exactly that case.

A streamed list (a WATCH with sendInitialEvents=true, ended by the bookmark annotated
k8s.io/initial-events-end) is answered from the cache whatever the compactions.

This starts a control plane whose API server compacts every 15 s, writes 1,000 WebApps,
and counts the LIST requests the API server sends etcd for WebApps (its
etcd_request_duration_seconds_count: tests/support/control_plane.py) while a paged LIST of
10 pages, then a streamed list, reads them: at once, after 40 s with no event, right after
one WebApp changed, and 40 s later again. Nothing here asserts; it prints what it saw.

Run: `.venv/bin/python -m benchmarks.list_after_compaction` (about two minutes).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from driftctl import conventions as c
from tests.controlplane import launcher
from tests.support.control_plane import request_counts

CRD_FILE = Path(__file__).resolve().parents[1] / "specs" / "webapp-crd.yaml"
COMPACTION = "--etcd-compaction-interval=15s"
COUNT, PAGE = 1000, 100
COLLECTION = f"/apis/{c.GROUP}/{c.VERSION}/{c.PLURAL}"
SELECTOR = "bench=compaction"


def etcd_lists(plane: launcher.ControlPlane) -> int:
    """LIST requests the API server has sent etcd for WebApps (and Deployments) so far."""
    return request_counts(plane).etcd_lists


def paged_list(plane: launcher.ControlPlane) -> int:
    """A paged LIST of the WebApps, as a client reads one; how many pages it took."""
    token, pages = "", 0
    while True:
        query = {"labelSelector": SELECTOR, "limit": str(PAGE)}
        query.update({"continue": token} if token else {})
        path = f"{COLLECTION}?{urllib.parse.urlencode(query)}"
        code, body = launcher.get(plane.folder, plane.server, path, timeout=30)
        if code != 200:
            raise RuntimeError(f"LIST: {code} {body[:200]}")
        pages += 1
        token = json.loads(body)["metadata"].get("continue") or ""
        if not token:
            return pages


def streamed_list(plane: launcher.ControlPlane) -> int:
    """The WebApps as a streamed list (the watch's initial events); how many came."""
    query = {
        "labelSelector": SELECTOR,
        "watch": "1",
        "sendInitialEvents": "true",
        "resourceVersionMatch": "NotOlderThan",
        "allowWatchBookmarks": "true",
    }
    url = f"{plane.server}{COLLECTION}?{urllib.parse.urlencode(query)}"
    context = launcher._ssl_context(plane.folder)
    added = 0
    with urllib.request.urlopen(url, context=context, timeout=30) as answer:
        for line in answer:
            event = json.loads(line)
            annotations = event["object"]["metadata"].get("annotations") or {}
            if event["type"] == "ADDED":
                added += 1
            elif annotations.get("k8s.io/initial-events-end") == "true":
                return added
    raise RuntimeError("the stream ended before its initial events did")


def look(plane: launcher.ControlPlane, moment: str) -> None:
    before = etcd_lists(plane)
    pages = paged_list(plane)
    between = etcd_lists(plane)
    added = streamed_list(plane)
    after = etcd_lists(plane)
    print(
        f"{moment}: paged LIST, {pages} pages, {between - before} sent to etcd; "
        f"streamed list, {added} objects, {after - between} sent to etcd",
        flush=True,
    )


def webapps() -> str:
    label = dict([SELECTOR.split("=")])
    items = [
        {
            "apiVersion": c.API_VERSION,
            "kind": c.KIND,
            "metadata": {"name": f"app-{n:04d}", "namespace": "default", "labels": label},
            "spec": {"image": "nginx:1.27", "replicas": 1},
        }
        for n in range(COUNT)
    ]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        plane = launcher.start(
            Path(folder) / "controlplane", [CRD_FILE], apiserver_flags=[COMPACTION]
        )
        try:
            kubectl = [str(plane.bin_dir / "kubectl"), f"--kubeconfig={plane.kubeconfig}"]
            written = ["apply", "--server-side", "-f", "-"]
            subprocess.run(
                [*kubectl, *written], input=webapps(), text=True, check=True, capture_output=True
            )
            look(plane, "right after the writes")
            time.sleep(40)
            look(plane, "40 s later, no WebApp changed (compactions every 15 s)")
            touch = ["label", c.PLURAL, "app-0001", "-n", "default", "touched=1"]
            subprocess.run([*kubectl, *touch], check=True, capture_output=True)
            look(plane, "right after one WebApp changed")
            time.sleep(40)
            look(plane, "40 s later again")
        finally:
            launcher.stop(plane.folder)


if __name__ == "__main__":
    main()
