"""Telling people what a run did: one digest per run, to each receiver, once.

For a run (apply) or a window of reconciles (watch), in order:
1. its items (core.notify.facts), of the categories --notify-on names;
2. what each receiver was last told, from the cluster (shell.notify_record);
3. per receiver, at once, each in a thread of its own: what is worth telling now
   (core.notify.record, core.notify.forge), its request (render.digest, render.sinks),
   sent (shell.notify_http) within --notify-timeout, retries included;
4. what each receiver took, written back: a receiver that failed keeps its old record, so
   the next run tells it again.
A failure anywhere is a warning (`warn`) and never changes the run's exit code; the whole
of it ends within --notify-timeout and a moment, even if a receiver never answers.
Without a receiver configured nothing is read, written or sent.

`Gatherer` is watch's: reconciles report their facts as they finish (`heard`), and one
digest goes out per --notify-window with whatever changed (core.notify.record.merged).
Decides nothing itself.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections.abc import Callable, Mapping

from driftctl.core.notify.facts import Category, Item, RunFacts, items_of
from driftctl.core.notify.outbox import Heading
from driftctl.core.notify.record import (
    merged,
)
from driftctl.errors import DriftctlError
from driftctl.pipeline.receivers import Delivery, Occasion, Receiver, receivers_of
from driftctl.pipeline.runs import Notice, open_cluster
from driftctl.settings import Cluster, Lock, Notify, Shard
from driftctl.shell import notify_record
from driftctl.shell.kube import Kube

JOIN_MARGIN = 2.0  # seconds past --notify-timeout a run waits for its receivers' threads


class Teller:
    """The receivers of one instance (or shard), and where what they were told is kept."""

    def __init__(
        self,
        notify: Notify,
        cluster: Cluster,
        lock: Lock,
        shard: Shard,
        warn: Notice,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.notify, self._cluster, self._lock, self._shard = notify, cluster, lock, shard
        self._warn, self.clock = warn, clock
        self.receivers: dict[str, Receiver] = receivers_of(notify)

    @property
    def wanted(self) -> frozenset[Category]:
        return frozenset(Category(name) for name in self.notify.on)

    def heading(self, facts: RunFacts) -> Heading:
        shard = self._shard
        return Heading(
            self._cluster.instance, facts.revision, facts.exit_code, self.clock(), shard.index,
            shard.count,
        )  # fmt: skip

    def tell_run(self, facts: RunFacts) -> None:
        """A batch run's digest (apply): its items, its commit's status."""
        if self.receivers:
            self.tell(Occasion(items_of(facts, self.wanted), self.heading(facts), facts))

    def tell(self, occasion: Occasion) -> None:
        """Tell every receiver what it was not told yet (module docstring); never raises."""
        if not self.receivers:
            return
        ref, kube, kept = self._record()
        data = kept.data if isinstance(kept, notify_record.Kept) else {}
        jobs = {
            name: functools.partial(receiver, occasion, data.get(name))
            for name, receiver in self.receivers.items()
        }
        done = _in_threads(jobs, self.notify.timeout + JOIN_MARGIN)
        after = dict(data)
        for name, told in done.items():
            if told.failed is not None:
                self._warn(f"notification not sent: {told.failed}")
            elif told.document is not None:
                after[name] = told.document
        if kube is not None and isinstance(kept, notify_record.Kept) and after != data:
            failed = notify_record.write(kube, ref, kept, after)
            if failed is not None:
                self._warn(f"notifications: {failed}")

    def _record(self) -> tuple[notify_record.RecordRef, Kube | None, notify_record.Kept | str]:
        shard = self._shard.index if self._shard.sharded else None
        namespace = self._lock.namespace  # the lock's: one namespace wherever a run runs
        ref = notify_record.RecordRef(namespace, self._cluster.instance, shard)
        cluster = dataclasses.replace(self._cluster, timeout=self.notify.timeout)
        try:
            kube = open_cluster(cluster, lambda line: None)
        except DriftctlError as failed:
            self._warn(f"notifications: what was last told cannot be read: {failed.message}")
            return ref, None, "unread"
        kept = notify_record.read(kube, ref)
        if isinstance(kept, str):
            self._warn(f"notifications: {kept}; everything found is told again")
        elif kept.foreign:
            self._warn(f"notifications: {ref.display} is not this instance's; it is left alone")
        return ref, kube, kept


def _in_threads(jobs: Mapping[str, Callable[[], Delivery]], timeout: float) -> dict[str, Delivery]:
    """Run each job in a daemon thread; a job still running after `timeout` failed."""
    results: dict[str, Delivery] = {}
    threads = []
    for name, job in jobs.items():

        def run(name: str = name, job: Callable[[], Delivery] = job) -> None:
            results[name] = job()

        thread = threading.Thread(target=run, name=f"notify-{name}", daemon=True)
        thread.start()
        threads.append((name, thread))
    give_up = time.monotonic() + timeout
    for name, thread in threads:
        thread.join(max(give_up - time.monotonic(), 0.0))
        if thread.is_alive():
            results[name] = Delivery(failed=f"{name}: no answer within {timeout:g}s")
    return results


# ---- watch ----------------------------------------------------------------------------


class Gatherer:
    """watch's digests: the facts of reconciles and passes, one digest per window."""

    def __init__(self, teller: Teller) -> None:
        self._teller = teller
        self._lock = threading.Lock()
        self._items: tuple[Item, ...] = ()
        self._latest: RunFacts | None = None  # the facts heard last
        self._commit: RunFacts | None = None  # the last full pass's, until told
        self._pending = False

    def heard(self, facts: RunFacts) -> None:
        """A reconcile (scope: its WebApps) or a full pass (scope None) finished."""
        found = items_of(facts, self._teller.wanted)
        with self._lock:
            self._items = merged(self._items, found, facts.scope)
            self._latest = facts
            if facts.scope is None and facts.revision:
                self._commit = facts
            self._pending = True

    def run(self, stop: threading.Event) -> None:
        """Every --notify-window, tell what was heard; once more when stopped."""
        window = self._teller.notify.window
        while not stop.wait(window):
            self.flush()
        self.flush()

    def flush(self) -> None:
        with self._lock:
            if not self._pending or self._latest is None:
                return
            occasion = Occasion(self._items, self._teller.heading(self._latest), self._commit)
            self._pending, self._commit = False, None
        self._teller.tell(occasion)
