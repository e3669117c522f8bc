"""Reads the live state of one instance: its WebApps and Deployments, by paged LISTs.

Two cluster-wide LISTs limited by the instance label, parsed as plain JSON. No per-object
GET: when nothing drifted, these pages are all a plan costs. What else a plan needs
(core.planning.lookups decides) is read by `read_found`: other owners' objects in the
namespaces where Git declares a name the instance lacks, and the autoscalers.
"""

from __future__ import annotations

from driftctl import conventions as c
from driftctl.core.cluster import requests as r
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.lookups import Lookups, Reach
from driftctl.core.planning.objects import Obj
from driftctl.errors import ClusterError
from driftctl.shell.kube import NOT_FOUND, ApiError, Kube


def read_live(kube: Kube, instance: str, page_size: int = r.PAGE_SIZE) -> LiveState:
    """List this instance's WebApps and Deployments across all namespaces."""
    selector = c.instance_selector(instance)
    try:
        webapps = kube.list_all(r.WEBAPP, selector, page_size)
    except ApiError as failed:
        if failed.status == NOT_FOUND:
            raise ClusterError(
                f"the cluster has no WebApp resource ({c.CRD_NAME} is not installed)",
                hint="install the CRD: driftctl crd | kubectl apply -f -",
            ) from None
        raise
    return LiveState.of(webapps, kube.list_all(r.DEPLOYMENT, selector, page_size))


def read_found(
    kube: Kube, live: LiveState, needed: Lookups, instance: str, page_size: int = r.PAGE_SIZE
) -> LiveState:
    """`live` with what `needed` names: others' WebApps and Deployments, the autoscalers."""
    others = c.not_instance_selector(instance)
    webapps = _listed(kube, r.WEBAPP, others, needed.webapps, page_size)
    deployments = _listed(kube, r.DEPLOYMENT, others, needed.deployments, page_size)
    scalers = kube.list_all(r.AUTOSCALER, "", page_size) if needed.autoscalers else []
    return live.with_found(webapps, deployments, scalers)


def _listed(kube: Kube, kind: r.Kind, selector: str, reach: Reach, page_size: int) -> list[Obj]:
    if reach.everywhere:
        return kube.list_all(kind, selector, page_size)
    return [
        obj
        for namespace in reach.namespaces
        for obj in kube.list_all(kind, selector, page_size, namespace)
    ]
