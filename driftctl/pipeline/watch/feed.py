"""The feed of `watch`: this instance's WebApps and Deployments (and the autoscalers) in
memory, and which of their changes become work, how urgent.

Informers (shell.informer) LIST, then WATCH, each kind in each namespace of
--target-namespaces (or everywhere), into memory; a shard's informers hold only that
shard's WebApps and Deployments (core.planning.shards), and of the others only whether
they live (their uids own Deployments). Every change is told to the census
(core.watch.census), which keeps what a plan of one WebApp needs of the whole instance:
`view` is one WebApp's part of the memory, `whole` all of it (a full pass), `counts` the
prune guards' sums.

A change queues its WebApp's place, at the urgency core.watch.changes gives it (drift
first, a Deployment's status last), unless it arrived during the first LISTs (the full
pass at the start covers those), changed only bookkeeping, or is driftctl's own write
coming back: the clients of `client` tell the feed the resourceVersion each write
answered with (core.watch.own_writes), and the event that carries that version queues
nothing. The answer itself goes to the census when it is newer than what the informer
holds, so a reconcile reads its own writes before their events come back. An
autoscaler's change queues the WebApps of the Deployments it scales. Decides nothing
itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.planning.live import LiveState, scaled_deployments
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.removals import PruneCounts
from driftctl.core.planning.shards import owns
from driftctl.core.source.model import Place
from driftctl.core.watch.census import Census
from driftctl.core.watch.changes import place_of, urgency_of
from driftctl.core.watch.own_writes import OwnWrites, newer_than_held
from driftctl.core.watch.queue import Urgency
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.setup import Runtime
from driftctl.settings import Cluster, Shard
from driftctl.shell.informer import KindInformer, Listener, Running, Watched
from driftctl.shell.kube import Deadline, Kube
from driftctl.shell.kube_credentials import Connection

Obj = dict[str, Any]
Queue = Callable[[Place, Urgency], None]


class Feed:
    """The informers of one leading process, its census, and the filter of its own writes."""

    def __init__(
        self,
        api: Connection,
        cluster: Cluster,
        shard: Shard,
        runtime: Runtime,
        metrics: WatchMetrics,
    ) -> None:
        self._api, self._cluster, self._runtime, self._metrics = api, cluster, runtime, metrics
        self._shard = shard
        self._informers: list[KindInformer] = []
        self._queue: Queue = lambda place, urgency: None
        self._written = OwnWrites()
        self._lock = threading.Lock()  # the census and the writes told
        self._census = Census(cluster.instance)
        self.visited = 0  # live objects handed to plans of one WebApp (their views)
        metrics.gauge_of(
            "watch_own_writes_pending",
            "Objects written by this process whose watch event has not come back yet.",
            lambda: self.writes_pending,
        )
        metrics.gauge_of(
            "watch_objects_visited",
            "Live objects handed to plans of one WebApp, in all (a WebApp's own objects).",
            lambda: self.visited,
        )

    def start(self, queue: Queue, wanted: Collection[Place]) -> None:
        """Start listing and watching; each change worth acting on goes to `queue`.
        `wanted`: the places Git declares WebApps at (the guards count by them)."""
        self._queue = queue
        self._census.want(wanted)
        scopes: Sequence[str | None] = self._cluster.namespaces or (None,)
        for kind in (r.WEBAPP, r.DEPLOYMENT, r.AUTOSCALER):
            for scope in scopes:
                self._informers.append(self._informer(kind, scope))
        self._count_requests()
        for informer in self._informers:
            informer.start()

    def _informer(self, kind: r.Kind, scope: str | None) -> KindInformer:
        runtime, cluster = self._runtime, self._cluster

        def changed(before: Obj | None, after: Obj | None) -> None:
            self._changed(kind, before, after)

        def elsewhere(obj: Obj, live: bool) -> None:
            with self._lock:
                self._census.elsewhere(obj, live=live)

        scaler = kind is r.AUTOSCALER  # autoscalers are nobody's: all are read
        selector = "" if scaler else c.instance_selector(cluster.instance)
        keep = (lambda place: True) if scaler else self._mine
        return KindInformer(
            self._api,
            Watched(kind, scope, selector, keep),
            Listener(changed, elsewhere),
            Running(runtime.stop, runtime.notice, runtime.jitter, cluster.timeout),
        )

    def _mine(self, place: Place) -> bool:
        return owns(self._shard, *place)

    def _count_requests(self) -> None:
        for kind in (r.WEBAPP, r.DEPLOYMENT, r.AUTOSCALER):
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

    # -- what plans read -----------------------------------------------------------------

    def view(self, place: Place) -> LiveState:
        """The live objects a plan of the WebApp at `place` needs, and no others."""
        with self._lock:
            view = self._census.view(place)
        self.visited += len(view.webapps) + len(view.deployments)
        return view

    def whole(self) -> LiveState:
        """This instance's (shard's) WebApps and Deployments as the memory holds them now."""
        with self._lock:
            return self._census.whole()

    def counts(self, desired: int) -> PruneCounts:
        """The prune guards' counts of the whole instance (shard), `desired` WebApps in Git."""
        with self._lock:
            return self._census.counts(desired)

    def want(self, wanted: Collection[Place]) -> None:
        """Git moved: it declares WebApps at `wanted` now."""
        with self._lock:
            self._census.want(wanted)

    def unsettled(self, whole: LiveState) -> frozenset[Place]:
        """The places of `whole` and of Git not known equal to Git since they last changed."""
        with self._lock:
            places = {*whole.webapps, *whole.deployments, *self._census.wanted}
            return self._census.unsettled(places)

    def settle(self, places: Iterable[Place], seen: LiveState) -> None:
        """A full pass found these places equal to Git in `seen` (core.watch.census)."""
        with self._lock:
            for place in places:
                self._census.settle(place, seen)

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
        with self._lock:
            return len(self._written)

    # -- changes -------------------------------------------------------------------------

    def _changed(self, kind: r.Kind, before: Obj | None, after: Obj | None) -> None:
        """An informer saw a change: tell the census, and queue its WebApp unless it is
        nothing to act on."""
        obj = after if after is not None else before
        assert obj is not None
        place = place_of(obj)
        with self._lock:
            if kind is r.WEBAPP:
                self._census.webapp(place, after)
            elif kind is r.DEPLOYMENT:
                self._census.deployment(place, after)
            else:
                self._census.autoscaler(place, after)
            own = self._written.seen(_written_key(obj), _version(after))
        if not self.synced or own:
            return  # the first lists: the full pass at the start covers them
        if kind is r.AUTOSCALER:
            for each in _scaled(before) | _scaled(after):
                if self._mine(each):
                    self._queue(each, Urgency.DRIFT)
            return
        urgency = urgency_of(before, after)
        if urgency is not None:
            self._queue(place, urgency)

    def _record_write(self, request: r.Request, body: dict[str, Any]) -> None:
        """Remember the resourceVersion each write of ours answered with, unless its event
        came back already (the informer holds that version)."""
        if request.method != "PATCH" or ("dryRun", "All") in request.query:
            return
        meta = body.get("metadata") or {}
        if "resourceVersion" not in meta:
            return
        key = _written_key(body)
        with self._lock:  # the informer's store is read and the write told at once
            held = next(
                (
                    each.version_of(key.place)
                    for each in self._informers
                    if each.holds(key.kind, key.namespace)
                ),
                None,
            )
            version = str(meta["resourceVersion"])
            self._written.wrote(key, version, held)
            if newer_than_held(version, held) and "deletionTimestamp" not in meta:
                self._remember(key, body)

    def _remember(self, key: ObjectKey, answer: Obj) -> None:
        """The census takes a write's answer, newer than the informer's copy (held lock),
        when the informers would hold it: this shard's, with this instance's label."""
        labels = (answer.get("metadata") or {}).get("labels") or {}
        if labels.get(c.INSTANCE_LABEL) != self._cluster.instance or not self._mine(key.place):
            return
        if key.kind == c.KIND:
            self._census.webapp(key.place, answer)
        elif key.kind == c.DEPLOYMENT_KIND:
            self._census.deployment(key.place, answer)


def _written_key(obj: dict[str, Any]) -> ObjectKey:
    meta = obj.get("metadata") or {}
    return ObjectKey(str(obj.get("kind")), str(meta.get("namespace")), str(meta.get("name")))


def _version(obj: Obj | None) -> str | None:
    return None if obj is None else str((obj.get("metadata") or {}).get("resourceVersion"))


def _scaled(autoscaler: Obj | None) -> set[Place]:
    return set(scaled_deployments([autoscaler] if autoscaler is not None else []))
