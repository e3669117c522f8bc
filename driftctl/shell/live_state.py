"""Reads the live state of one instance: its WebApps and Deployments, by paged LISTs.

Two LISTs limited by the instance label, parsed as plain JSON: cluster-wide, or, when the
run is limited to some namespaces (`--target-namespaces`, for a namespace-scoped RBAC),
two per namespace. No per-object GET: when nothing drifted, these pages are all a plan
costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from driftctl import conventions as c
from driftctl.core.cluster import requests as r
from driftctl.core.planning.live import LiveState
from driftctl.errors import ClusterError
from driftctl.shell.kube import NOT_FOUND, ApiError, Kube


def read_live(
    kube: Kube, instance: str, page_size: int = r.PAGE_SIZE, namespaces: Sequence[str] = ()
) -> LiveState:
    """List this instance's WebApps and Deployments, in `namespaces` or (none) everywhere."""
    selector = c.instance_selector(instance)
    scopes: Sequence[str | None] = tuple(namespaces) or (None,)
    try:
        webapps = _listed(kube, r.WEBAPP, selector, page_size, scopes)
    except ApiError as failed:
        if failed.status == NOT_FOUND:
            raise ClusterError(
                f"the cluster has no WebApp resource ({c.CRD_NAME} is not installed)",
                hint="install the CRD: driftctl crd | kubectl apply -f -",
            ) from None
        raise
    return LiveState.of(webapps, _listed(kube, r.DEPLOYMENT, selector, page_size, scopes))


def _listed(
    kube: Kube, kind: r.Kind, selector: str, page_size: int, scopes: Sequence[str | None]
) -> list[dict[str, Any]]:
    return [item for scope in scopes for item in kube.list_all(kind, selector, page_size, scope)]
