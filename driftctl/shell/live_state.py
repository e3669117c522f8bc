"""Reads the live state of one instance: its WebApps and Deployments, by streamed lists.

First the installed WebApp CRD, once (`read_crd`): missing, or unable to hold a WebApp's
spec, the run stops there, before anything is written; its status schema rides along in
the live state (core.planning.installed_crd judges it).

Two lists limited by the instance label, parsed as plain JSON, the two kinds at once (the
API server encodes WebApps, custom resources, several times slower than Deployments;
meanwhile the other kind's objects are read and parsed): cluster-wide, or, when the run is
limited to some namespaces (`--target-namespaces`, for a namespace-scoped RBAC), two per
namespace. Each is one streamed list, all of it from the API server's watch cache (a
paged LIST's continue pages come from etcd once etcd has compacted, the cost measured in
docs/development/benchmarks.md), or pages where the server will not stream
(shell.kube.Kube.list_streamed). No per-object GET: when nothing drifted, these lists are
all a plan costs. What else a plan needs (core.planning.extra_reads decides) is read by
`read_found`: other owners' objects in the namespaces where Git declares a name the
instance lacks (by that name alone, for a plan of one WebApp), and the autoscalers (within
the target namespaces, when there are some).

Memory: most of a live object is its managedFields, and their field trees are the same in
every object driftctl applied (only a Deployment's ownerReference uid differs); so are
its annotations, finalizers, a Deployment's pod template and strategy, often its status,
and the words its fields repeat. Equal parts are kept once and shared
(`share_field_trees`); nothing changes a live object, the core only reads it. It more
than halved the live state of 10,000 WebApps (Performance, in
docs/development/benchmarks.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
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
from driftctl.shell.kube import FORBIDDEN, NOT_FOUND, ApiError, Kube


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

    trees: dict[Any, Any] = {}
    progress = _Listed(tick)

    def listed(kind: r.Kind) -> list[Obj]:
        return [item for scope in scopes for item in one_list(kind, scope)]

    def one_list(kind: r.Kind, scope: str | None) -> list[Obj]:
        which = (kind.plural, scope)

        def page(items: list[Obj]) -> None:
            for obj in items:  # as each page arrives, so that its copies are freed at once
                share_field_trees(obj, trees)
            progress.add(which, len(items))

        restart = partial(progress.restart, which)
        return kube.list_streamed(kind, selector, page_size, scope, page, restart)[0]

    with ThreadPoolExecutor(max_workers=2) as pool:  # the two kinds' pages at once
        deployments = pool.submit(listed, r.DEPLOYMENT)
        try:
            webapps = listed(r.WEBAPP)
        except ApiError as failed:
            if failed.status == NOT_FOUND:  # deleted since it was read
                raise _not_installed() from None
            raise
        return LiveState.of(webapps, deployments.result(), crd)


class _Listed:
    """How many objects the lists read so far have given, for the progress line. A list
    (one kind, in one namespace or all) that starts over (a broken stream read again in
    pages, an expired continue token) takes back what it had counted."""

    def __init__(self, tick: Callable[[str, int, int | None], None]) -> None:
        self._tick = tick
        self._lock = threading.Lock()  # the two kinds are read at once
        self._counts: dict[tuple[str, str | None], int] = {}

    def add(self, one_list: tuple[str, str | None], count: int) -> None:
        with self._lock:
            self._counts[one_list] = self._counts.get(one_list, 0) + count
            self._tick("listing", sum(self._counts.values()), None)

    def restart(self, one_list: tuple[str, str | None]) -> None:
        with self._lock:
            self._counts[one_list] = 0
            self._tick("listing", sum(self._counts.values()), None)


# Parts of live objects that are equal across many objects of one instance (one function
# builds them all, and the API server defaults them alike): each is held once.
_SHARED_PARTS = (
    ("metadata", "annotations"),
    ("metadata", "finalizers"),
    ("spec", "strategy"),
    ("spec", "template", "spec"),
    ("status",),
)
_ANY_TYPES = ("status",)  # see _shared
_ENTRY_PLACE = ("manager", "operation", "subresource")  # whose tree: compared with its last
_ENTRY_WORDS = ("manager", "operation", "apiVersion", "time", "fieldsType", "subresource")


def share_field_trees(obj: Obj, trees: dict[Any, Any]) -> None:
    """Hold what is equal across objects once (`trees`: what was seen before, and words by
    themselves): each managedFields tree and each of its top two levels, the parts most
    objects share (_SHARED_PARTS), and the words of managedFields entries and object
    identities (the informers of watch share them too). Nothing changes a live object
    afterwards."""
    meta = obj.get("metadata") or {}
    for entry in meta.get("managedFields") or []:
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("fieldsV1"), dict):
            place = ("f", *(str(entry.get(word) or "") for word in _ENTRY_PLACE))
            entry["fieldsV1"] = _shared(entry["fieldsV1"], trees, place, depth=2)
        for word in _ENTRY_WORDS:
            if isinstance(entry.get(word), str):
                entry[word] = _word(entry[word], trees)
    for key in ("apiVersion", "kind"):
        if isinstance(obj.get(key), str):
            obj[key] = _word(obj[key], trees)
    for key in ("namespace", "creationTimestamp"):
        if isinstance(meta.get(key), str):
            meta[key] = _word(meta[key], trees)
    for path in _SHARED_PARTS:
        *parents, last = path
        holder: Any = obj
        for step in parents:
            holder = holder.get(step) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and isinstance(holder.get(last), dict | list):
            holder[last] = _shared(holder[last], trees, path, depth=0)


def _word(text: str, trees: dict[Any, Any]) -> str:
    word: str = trees.setdefault(text, text)  # a str key: apart from the parts' keys
    return word


def _shared(tree: Any, trees: dict[Any, Any], place: tuple[str, ...], depth: int) -> Any:
    """The part held for `tree`'s value, found without writing it out: first the last part
    held at its place (the same field of the object before), compared by == (in C); then
    any part seen, by the hash of its repr, confirmed by ==. A field tree (`depth` > 0)
    unlike the last is not written out whole: its parts are looked up.

    Python's == takes `1` for `True` and `1.0`; a repr spells each with its type. Only
    values of one type per field are compared by == alone: field trees (maps of maps),
    annotations and finalizers (strings), a Deployment's strategy and pod template (typed
    by the API). A status may be a custom resource's with fields of any type (another
    CRD than driftctl's, preserving unknown fields): it is found by its repr."""
    if place != _ANY_TYPES:
        last = trees.get(place)
        if last is not None and last == tree:
            return last
    if depth > 0 and isinstance(tree, dict):
        # Unlike the one before: most often this object's own (a Deployment's tree names
        # its owner's uid), so not looked up whole; its parts are.
        for element, child in tree.items():
            if isinstance(child, dict):
                tree[element] = _shared(child, trees, (*place, element), depth - 1)
        trees[place] = tree
        return tree
    key = hash(repr(tree))  # an int key: apart from words and places
    held = trees.get(key)
    if held is not None and held == tree:
        trees[place] = held
        return held
    trees[key] = trees[place] = tree
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
    if reach.places:
        return [
            obj
            for place in reach.places
            if not within or place.namespace in within
            for obj in kube.list_all(kind, selector, size, place.namespace, name=place.name)
        ]
    if reach.everywhere and not within:
        return kube.list_all(kind, selector, size)
    scopes = within if reach.everywhere else reach.namespaces
    if within:
        scopes = [scope for scope in scopes if scope in within]
    return [obj for scope in scopes for obj in kube.list_all(kind, selector, size, scope)]
