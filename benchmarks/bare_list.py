"""The floor of a no-drift run: a bare paged LIST of one instance's WebApps and Deployments.

What any client must do to see the objects a no-drift `driftctl plan` compares: the same
LIST pages (the same label selector and page size, the two kinds at once, as driftctl reads
them), each page's bytes read and none of them decoded but for its continue token.
bench_cluster times it as a step of its own beside driftctl's no-drift plan; the ratio of
the two is what driftctl adds to the server's part.

Run: `python -m benchmarks.bare_list KUBECONFIG INSTANCE` (prints pages and bytes per kind).
"""

from __future__ import annotations

import base64
import json
import re
import sys
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import urllib3

from driftctl import conventions as c
from driftctl.core.api.requests import PAGE_SIZE

PATHS = {
    "deployments": "/apis/apps/v1/deployments",
    "webapps": f"/apis/{c.GROUP}/{c.VERSION}/{c.PLURAL}",
}
_CONTINUE = re.compile(rb'"continue":"([^"]*)"')


def pool_of(kubeconfig: Path) -> tuple[urllib3.PoolManager, str, dict[str, str]]:
    """A connection pool to the kubeconfig's server, its address, and the token header."""
    config: dict[str, Any] = json.loads(kubeconfig.read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    authority = base64.b64decode(cluster["certificate-authority-data"]).decode()
    pool = urllib3.PoolManager(cert_reqs="CERT_REQUIRED", ca_cert_data=authority)
    headers = {"Authorization": f"Bearer {user['token']}", "Accept": "application/json"}
    return pool, cluster["server"], headers


def pages(kubeconfig: Path, path: str, selector: str) -> tuple[int, int]:
    """Every page of one LIST, read to its end: (pages, bytes)."""
    pool, server, headers = pool_of(kubeconfig)
    count = size = 0
    token = ""
    while True:
        query = {"limit": str(PAGE_SIZE), "labelSelector": selector}
        if token:
            query["continue"] = token
        answer = pool.request("GET", f"{server}{path}?{urllib.parse.urlencode(query)}",
                              headers=headers)  # fmt: skip
        if answer.status != 200:
            raise SystemExit(f"{path}: {answer.status} {answer.data[:200]!r}")
        body = answer.data
        count, size = count + 1, size + len(body)
        # The list's metadata comes first in a built-in kind's list, last in a custom one's.
        found = _CONTINUE.search(body[:4096]) or _CONTINUE.search(body[-4096:])
        token = found.group(1).decode() if found else ""
        if not token:
            return count, size


def main(argv: list[str]) -> None:
    kubeconfig, instance = Path(argv[0]), argv[1]
    selector = c.instance_selector(instance)
    with ThreadPoolExecutor(max_workers=len(PATHS)) as both:
        read = {
            kind: both.submit(pages, kubeconfig, path, selector) for kind, path in PATHS.items()
        }
        for kind, future in read.items():
            count, size = future.result()
            print(f"{kind}: {count} pages, {size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
