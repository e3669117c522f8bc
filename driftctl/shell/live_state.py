"""Reads the live state of one instance: its WebApps and Deployments, by paged LISTs.

First the installed WebApp CRD, once (`read_crd`): missing, or unable to hold a WebApp's
spec, the run stops there, before anything is written; its status schema rides along in
the live state (core.planning.installed_crd judges it).

Two LISTs limited by the instance label, parsed as plain JSON, the two kinds at once (the
API server encodes a page of WebApps, custom resources, several times slower than one of
Deployments; meanwhile the other kind's pages are read and parsed): cluster-wide, or, when
the run is limited to some namespaces (`--target-namespaces`, for a namespace-scoped
RBAC), two per namespace. No per-object GET: when nothing drifted, these pages are all a
plan costs. What else a plan needs (core.planning.extra_reads decides) is read by
`read_found`: other owners' objects in the namespaces where Git declares a name the
instance lacks, and the autoscalers (within the target namespaces, when there are some).

Memory: most of a live object is its managedFields, and their field trees are the same in
every object driftctl applied (only a Deployment's ownerReference uid differs). Equal
trees are kept once and shared (`_shared_field_trees`); nothing changes a live object, the
core only reads it. It halved the live state of 10,000 WebApps (Performance, in
docs/development/benchmarks.md).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.planning.extra_reads import ExtraReads, Reach
from driftctl.core.planning.installed_crd import (
    SHOW_UPGRADE,
    UPGRADE,
    InstalledCrd,
    installed,
    spec_refusal,
    unreadable,
)
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import Obj
from driftctl.errors import ClusterError
from driftctl.shell.kube import NOT_FOUND, ApiError, Kube

FORBIDDEN = 403


def _not_installed() -> ClusterError:
    return ClusterError(
        f"the cluster has no WebApp resource ({c.CRD_NAME} is not installed)",
        hint="install the CRD: driftctl crd | kubectl apply -f -",
    )


def fetch_crd(kube: Kube) -> Obj | None:
    """The installed WebApp CRD as the API server returns it; None when it is not installed."""
    return kube.send_unless_missing(r.get_crd())


def read_crd(kube: Kube) -> InstalledCrd:
    """The installed WebApp CRD, judged; ClusterError when it is missing or cannot hold a
    WebApp's spec. Not allowed to read it (403), driftctl's own is assumed (and said)."""
    try:
        found = fetch_crd(kube)
    except ApiError as failed:
        if failed.status == FORBIDDEN:
            return unreadable(failed.short)
        raise
    if found is None:
        raise _not_installed()
    crd = installed(found)
    refusal = spec_refusal(crd)
    if refusal is not None:
        raise ClusterError(
            refusal, hint=f"see what an upgrade changes: {SHOW_UPGRADE}; upgrade it: {UPGRADE}"
        )
    return crd


def read_live(
    kube: Kube,
    instance: str,
    page_size: int = r.PAGE_SIZE,
    tick: Callable[[str, int, int | None], None] = lambda phase, done, total: None,
    namespaces: Sequence[str] = (),
) -> LiveState:
    """The installed CRD, then this instance's WebApps and Deployments, in `namespaces` or
    (none) everywhere."""
    crd = read_crd(kube)
    selector = c.instance_selector(instance)
    scopes: Sequence[str | None] = tuple(namespaces) or (None,)

    def listed(kind: r.Kind) -> list[Obj]:
        return [
            item
            for scope in scopes
            for item in kube.list_all(kind, selector, page_size, scope, on_page=page)
        ]

    trees: dict[str, Any] = {}
    counted = [0]
    lock = threading.Lock()

    def page(items: list[Obj]) -> None:
        for obj in items:  # as each page arrives, so that its copies are freed at once
            _shared_field_trees(obj, trees)
        with lock:
            counted[0] += len(items)
            tick("listing", counted[0], None)

    with ThreadPoolExecutor(max_workers=2) as pool:  # the two kinds' pages at once
        deployments = pool.submit(listed, r.DEPLOYMENT)
        try:
            webapps = listed(r.WEBAPP)
        except ApiError as failed:
            if failed.status == NOT_FOUND:  # deleted since it was read
                raise _not_installed() from None
            raise
        return LiveState.of(webapps, deployments.result(), crd)


def _shared_field_trees(obj: Obj, trees: dict[str, Any]) -> None:
    """Replace each managedFields tree, and each of its top two levels, by an equal one seen
    before (`trees`, keyed by its JSON), so that equal trees are held once."""
    for entry in (obj.get("metadata") or {}).get("managedFields") or []:
        if isinstance(entry, dict) and isinstance(entry.get("fieldsV1"), dict):
            entry["fieldsV1"] = _shared(entry["fieldsV1"], trees, depth=2)


def _shared(tree: dict[str, Any], trees: dict[str, Any], depth: int) -> dict[str, Any]:
    text = json.dumps(tree, separators=(",", ":"))
    if text in trees:
        shared: dict[str, Any] = trees[text]
        return shared
    if depth > 0:
        tree = {
            key: _shared(child, trees, depth - 1) if isinstance(child, dict) else child
            for key, child in tree.items()
        }
    trees[text] = tree
    return tree


def read_found(
    kube: Kube,
    live: LiveState,
    needed: ExtraReads,
    instance: str,
    *,
    page_size: int = r.PAGE_SIZE,
    namespaces: Sequence[str] = (),
) -> LiveState:
    """`live` with what `needed` names: others' WebApps and Deployments, the autoscalers.

    With `namespaces` (--target-namespaces), nothing is read outside them: a lookup that
    would go cluster-wide goes to each of them instead.
    """
    others = c.not_instance_selector(instance)
    webapps = _found(kube, r.WEBAPP, others, needed.webapps, size=page_size, within=namespaces)
    deployments = _found(
        kube, r.DEPLOYMENT, others, needed.deployments, size=page_size, within=namespaces
    )
    everywhere = Reach(everywhere=True)
    scalers = (
        _found(kube, r.AUTOSCALER, "", everywhere, size=page_size, within=namespaces)
        if needed.autoscalers
        else []
    )
    return live.with_found(webapps, deployments, scalers)


def _found(
    kube: Kube, kind: r.Kind, selector: str, reach: Reach, *, size: int, within: Sequence[str]
) -> list[Obj]:
    """Objects of `kind` where `reach` says, never outside `within` when it names some."""
    if reach.everywhere and not within:
        return kube.list_all(kind, selector, size)
    scopes = within if reach.everywhere else reach.namespaces
    if within:
        scopes = [scope for scope in scopes if scope in within]
    return [obj for scope in scopes for obj in kube.list_all(kind, selector, size, scope)]
