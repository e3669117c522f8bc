"""The feed of `watch`: this instance's WebApps and Deployments in memory, and which of
their changes become work.

Informers (shell.informer) LIST, then WATCH, each kind in each namespace of
--target-namespaces (or everywhere), into memory; `live` is that memory as a live state, to
plan one WebApp from. A change queues its WebApp's place, unless it arrived during the first
LISTs (the full pass at the start covers those), changed only bookkeeping
(core.watch.changes), or is driftctl's own write coming back: the clients of `client` tell
the feed the resourceVersion each write answered with (core.watch.own_writes), and the
event that carries that version queues nothing. Decides nothing itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from driftctl.core.api import requests as r
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.source.model import Place
from driftctl.core.watch.changes import place_of, worth_reconciling
from driftctl.core.watch.own_writes import OwnWrites
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.setup import Runtime
from driftctl.settings import Cluster
from driftctl.shell.informer import Informer
from driftctl.shell.kube import Deadline, Kube


class Feed:
    """The informers of one leading process, and the filter of its own writes."""

    def __init__(self, api: Any, cluster: Cluster, runtime: Runtime, metrics: WatchMetrics) -> None:
        self._api, self._cluster, self._runtime, self._metrics = api, cluster, runtime, metrics
        self._informers: list[Informer] = []
        self._queue: Callable[[Place], None] = lambda place: None
        self._written = OwnWrites()
        self._written_lock = threading.Lock()
        metrics.gauge_of(
            "watch_own_writes_pending",
            "Objects written by this process whose watch event has not come back yet.",
            lambda: self.writes_pending,
        )

    def start(self, queue: Callable[[Place], None]) -> None:
        """Start listing and watching; each change worth acting on goes to `queue`."""
        self._queue = queue
        cluster, runtime = self._cluster, self._runtime
        scopes: Sequence[str | None] = cluster.namespaces or (None,)
        for kind in (r.WEBAPP, r.DEPLOYMENT):
            for scope in scopes:
                informer = Informer(
                    self._api,
                    kind,
                    cluster.instance,
                    scope,
                    self._changed,
                    stop=runtime.stop,
                    notice=runtime.notice,
                    jitter=runtime.jitter,
                    list_timeout=cluster.timeout,
                )
                self._informers.append(informer)
        self._count_requests()
        for informer in self._informers:
            informer.start()

    def _count_requests(self) -> None:
        for kind in (r.WEBAPP, r.DEPLOYMENT):
            informers = [each for each in self._informers if each.kind is kind]
            self._metrics.gauge_of(
                f"watch_lists_{kind.plural}",
                f"LISTs of {kind.plural} (the first, then one per 410 Gone).",
                lambda these=informers: sum(each.lists for each in these),  # type: ignore[misc]
            )
            self._metrics.gauge_of(
                f"watch_watches_{kind.plural}",
                f"WATCH requests of {kind.plural} started.",
                lambda these=informers: sum(each.watches for each in these),  # type: ignore[misc]
            )

    @property
    def synced(self) -> bool:
        """Whether every informer has its first LIST in memory."""
        return all(each.synced.is_set() for each in self._informers)

    def live(self) -> LiveState:
        """The instance's WebApps and Deployments as the memory holds them now."""
        webapps = [o for each in self._informers if each.kind is r.WEBAPP for o in each.objects()]
        deployments = [
            o for each in self._informers if each.kind is r.DEPLOYMENT for o in each.objects()
        ]
        return LiveState.of(webapps, deployments)

    def client(self) -> Kube:
        """A client for one reconcile or pass: its retries bounded by --timeout, its writes
        told to the feed, so that their events coming back queue nothing."""
        return Kube(
            self._api,
            Deadline(self._cluster.timeout),
            notice=self._runtime.notice,
            answered=self._record_write,
        )

    @property
    def writes_pending(self) -> int:
        """Objects whose write of ours has not come back as an event yet."""
        with self._written_lock:
            return len(self._written)

    def _changed(self, before: dict[str, Any] | None, after: dict[str, Any] | None) -> None:
        """An informer saw a change: queue its WebApp, unless it is nothing to act on."""
        if not self.synced:
            return  # the first lists: the full pass at the start covers them
        obj = after if after is not None else before
        assert obj is not None
        if self._is_own_write(obj, after is not None):
            return
        if not worth_reconciling(before, after):
            return
        self._queue(place_of(obj))

    def _is_own_write(self, obj: dict[str, Any], present: bool) -> bool:
        """Whether this event is one of our writes coming back (core.watch.own_writes)."""
        meta = obj.get("metadata") or {}
        version = str(meta.get("resourceVersion")) if present else None
        with self._written_lock:
            return self._written.seen(_written_key(obj), version)

    def _record_write(self, request: r.Request, body: dict[str, Any]) -> None:
        """Remember the resourceVersion each write of ours answered with, unless its event
        came back already (the informer holds that version)."""
        if request.method != "PATCH" or ("dryRun", "All") in request.query:
            return
        meta = body.get("metadata") or {}
        if "resourceVersion" not in meta:
            return
        key = _written_key(body)
        with self._written_lock:  # the informer's store is read and the write told at once
            held = next(
                (
                    each.version_of(key.place)
                    for each in self._informers
                    if each.holds(key.kind, key.namespace)
                ),
                None,
            )
            self._written.wrote(key, str(meta["resourceVersion"]), held)


def _written_key(obj: dict[str, Any]) -> ObjectKey:
    meta = obj.get("metadata") or {}
    return ObjectKey(str(obj.get("kind")), str(meta.get("namespace")), str(meta.get("name")))
