"""Reads the live state of one instance: its WebApps and Deployments, by paged LISTs.

Two cluster-wide LISTs limited by the instance label, parsed as plain JSON. No per-object
GET: when nothing drifted, these pages are all a plan costs.
"""

from __future__ import annotations

from collections.abc import Callable

from driftctl import conventions as c
from driftctl.core.cluster import requests as r
from driftctl.core.planning.live import LiveState
from driftctl.errors import ClusterError
from driftctl.shell.kube import NOT_FOUND, ApiError, Kube


def read_live(
    kube: Kube,
    instance: str,
    page_size: int = r.PAGE_SIZE,
    tick: Callable[[str, int, int | None], None] = lambda phase, done, total: None,
) -> LiveState:
    """List this instance's WebApps and Deployments across all namespaces."""
    selector = c.instance_selector(instance)

    def listed(kind: str) -> Callable[[int], None]:
        return lambda items: tick(f"listing {kind}", items, None)

    try:
        webapps = kube.list_all(r.WEBAPP, selector, page_size, listed("WebApps"))
    except ApiError as failed:
        if failed.status == NOT_FOUND:
            raise ClusterError(
                f"the cluster has no WebApp resource ({c.CRD_NAME} is not installed)",
                hint="install the CRD: driftctl crd | kubectl apply -f -",
            ) from None
        raise
    deployments = kube.list_all(r.DEPLOYMENT, selector, page_size, listed("Deployments"))
    return LiveState.of(webapps, deployments)
