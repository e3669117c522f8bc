"""Keeps one kind of this instance's objects in memory: a LIST, then a WATCH from it.

One informer per kind and scope (the whole cluster, or one of --target-namespaces). It
lists the objects (one streamed list, or paged where the server will not stream; limited
by the instance label), then watches from the list's
resourceVersion with bookmarks on, so that a quiet watch still moves its resourceVersion
on. A watch the server ends is started again from the last resourceVersion seen; one the
server refuses as too old (410 Gone, as an answer or as an ERROR event) starts over with a
fresh LIST, whose differences from memory are told like watch events. A broken connection
(the API server restarted) is tried again after a short wait, from where it was. Each
change is told to `changed(before, after)` (None: absent), in order, from one thread.

Only the objects `keep` accepts are held (a shard's): the others are told to `elsewhere`
as they come (True) and go (False), and forgotten. What an informer holds is its
`Watched`, whom it tells its `Listener`, how it runs (stop signal, notices, jitter) its
`Running`. Equal managedFields trees are held once (shell.live_state.share_field_trees,
with a bounded table of trees seen), whether an object came in a LIST or in an event.
Decides nothing about WebApps; the caller decides what a change means
(core.watch.changes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from driftctl.core.api import requests as r
from driftctl.core.retries import Backoff
from driftctl.core.source.model import Place
from driftctl.core.watch.changes import place_of
from driftctl.shell.kube import GONE, ApiError, Deadline, Kube
from driftctl.shell.kube_credentials import Connection
from driftctl.shell.live_state import share_field_trees

Obj = dict[str, Any]
Changed = Callable[[Obj | None, Obj | None], None]
Elsewhere = Callable[[Obj, bool], None]
WATCH_SECONDS = 300  # the server ends each watch after this; a new one follows at once
LIST_SECONDS = 300.0  # how long a LIST may take, unless the caller says (its --timeout)
IDLE_SECONDS = WATCH_SECONDS + 30  # silence longer than that is a dead connection
RECONNECT = Backoff(base=0.5, cap=5.0)
MAX_TREES = 200_000  # parts remembered for sharing (small keys); past that, a new table


def _everything(place: Place) -> bool:
    return True


def _nowhere(obj: Obj, live: bool) -> None:
    return None


@dataclass(frozen=True)
class Watched:
    """What one informer holds: the objects of `kind` in `namespace` (None: the whole
    cluster) that the label `selector` lists ("": all), of those the ones at a place
    `keep` accepts (a shard's)."""

    kind: r.Kind
    namespace: str | None
    selector: str
    keep: Callable[[Place], bool] = _everything


@dataclass(frozen=True)
class Listener:
    """Whom an informer tells: each change of what it holds, `changed(before, after)`
    (None: absent), and each object `keep` refuses, `elsewhere(obj, live)`."""

    changed: Changed
    elsewhere: Elsewhere = _nowhere


@dataclass(frozen=True)
class Running:
    """How an informer runs: until `stop` is set, telling retries and restarts to
    `notice`, its reconnect waits jittered by `jitter`, each LIST within `list_timeout`."""

    stop: threading.Event
    notice: Callable[[str], None]
    jitter: Callable[[], float]
    list_timeout: float = LIST_SECONDS


class KindInformer:
    """The objects of one kind in one scope, kept equal to the cluster's."""

    def __init__(
        self, api: Connection, watched: Watched, listener: Listener, running: Running
    ) -> None:
        self._api, self.kind, self._namespace = api, watched.kind, watched.namespace
        self._selector, self._keep = watched.selector, watched.keep
        self._changed, self._elsewhere = listener.changed, listener.elsewhere
        self._stop, self._notice, self._jitter = running.stop, running.notice, running.jitter
        self._list_timeout = running.list_timeout
        self._trees: dict[Any, Any] = {}
        self._store: dict[Place, Obj] = {}
        self._lock = threading.Lock()
        self.synced = threading.Event()
        self.lists = 0  # LISTs done (the first, then one per 410 Gone)
        self.watches = 0  # WATCH requests started

    def objects(self) -> list[Obj]:
        """The objects as last seen (a copy of the list; the objects are never changed)."""
        with self._lock:
            return list(self._store.values())

    def version_of(self, place: Place) -> str | None:
        """The resourceVersion of the object at `place` as last seen (None: not held)."""
        with self._lock:
            held = self._store.get(place)
        return None if held is None else str((held.get("metadata") or {}).get("resourceVersion"))

    def holds(self, kind: str, namespace: str) -> bool:
        """Whether objects of `kind` in `namespace` are this informer's."""
        return kind == self.kind.kind and self._namespace in (None, namespace)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name=f"watch-{self.kind.plural}", daemon=True)
        thread.start()
        return thread

    def _run(self) -> None:
        failures = 0
        version: str | None = None
        while not self._stop.is_set():
            try:
                if version is None:
                    version = self._relist()
                version = self._watch(version)
                failures = 0
            except ApiError as failed:
                if failed.status == GONE:
                    self._notice(f"{failed.request.what}: 410 Gone, listing again")
                    version = None
                    continue
                failures += 1
                self._notice(f"{failed.message}; watching again")
                self._stop.wait(RECONNECT.delay(failures - 1, self._jitter()))

    def _relist(self) -> str:
        kube = Kube(self._api, Deadline(self._list_timeout), notice=self._notice)
        items, version = kube.list_streamed(self.kind, self._selector, namespace=self._namespace)
        self.lists += 1
        fresh: dict[Place, Obj] = {}
        for obj in items:
            if self._keep(place_of(obj)):
                fresh[place_of(obj)] = self._shared(obj)
            else:
                self._elsewhere(obj, True)
        with self._lock:
            old, self._store = self._store, fresh
        for place in sorted(old.keys() | fresh.keys()):
            if old.get(place) is not fresh.get(place):
                self._changed(old.get(place), fresh.get(place))
        self.synced.set()
        return version

    def _watch(self, version: str) -> str:
        """Follow one WATCH to its end; the resourceVersion reached."""
        kube = Kube(self._api, Deadline(float("inf")), notice=self._notice)
        request = r.watch(self.kind, self._selector, version, self._namespace, WATCH_SECONDS)
        self.watches += 1
        for event in kube.stream(request, IDLE_SECONDS):
            if self._stop.is_set():
                break
            version = self._take(event, request) or version
        return version

    def _take(self, event: Obj, request: r.Request) -> str | None:
        """Apply one event to memory; the resourceVersion it carries."""
        kind, obj = event.get("type"), event.get("object") or {}
        if kind == "ERROR":  # 410 Gone, or any other reason this watch cannot go on
            raise ApiError(request, GONE, obj)
        version = (obj.get("metadata") or {}).get("resourceVersion")
        if kind == "BOOKMARK":
            return str(version) if version else None
        api_version = self.kind.prefix.removeprefix("/apis/").removeprefix("/api/")
        obj = {"apiVersion": api_version, "kind": self.kind.kind, **obj}
        place = place_of(obj)
        if not self._keep(place):
            self._elsewhere(obj, kind != "DELETED")
            return str(version) if version else None
        obj = self._shared(obj)
        with self._lock:
            before = self._store.get(place)
            if kind == "DELETED":
                self._store.pop(place, None)
            else:
                self._store[place] = obj
        self._changed(before, None if kind == "DELETED" else obj)
        return str(version) if version else None

    def _shared(self, obj: Obj) -> Obj:
        if len(self._trees) > MAX_TREES:
            self._trees = {}
        share_field_trees(obj, self._trees)
        return obj
