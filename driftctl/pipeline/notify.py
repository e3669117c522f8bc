"""Telling people what a run did: one digest per run, to each receiver, once, and what a
receiver could not take, later.

For a run (apply) or a window of reconciles (watch), in order:
1. its items (core.notify.facts), of the categories --notify-on names;
2. what each receiver was last told and what waits in its outbox, from the cluster
   (shell.notify_record);
3. each receiver prepared (pipeline.receivers): what it is told now, its digest kept in its
   outbox and the entries this run sends claimed, all written before anything is sent, in
   one write guarded by the record's resourceVersion (another run wrote it since: read
   again, prepared again);
4. per receiver, at once, each in a thread of its own: sent (shell.notify_http) within
   --notify-timeout, retries included;
5. what each receiver took, settled in the record as it is then (read again while another
   run wrote it since): a digest delivered leaves the outbox, one that was not stays for
   the next run (at least once: docs/operations/notifications.md).
A failure anywhere is a warning (`warn`) and never changes the run's exit code; the whole
of it ends within --notify-timeout and a moment, even if a receiver never answers.
Without a receiver configured nothing is read, written or sent.

`Gatherer` is watch's: reconciles report their facts as they finish (`heard`), and one
digest goes out per --notify-window with whatever changed (core.notify.record.merged).
Decides nothing itself.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from driftctl.core.notify.facts import Category, Item, RunFacts, items_of
from driftctl.core.notify.outbox import Heading
from driftctl.core.notify.record import lasting, merged
from driftctl.errors import DriftctlError
from driftctl.pipeline.receivers import (
    Delivery,
    Occasion,
    Prepared,
    Receiver,
    Run,
    receivers_of,
)
from driftctl.pipeline.runs import Notice, open_cluster
from driftctl.settings import Cluster, Lock, Notify, Shard
from driftctl.shell import notify_record
from driftctl.shell.kube import Kube

JOIN_MARGIN = 2.0  # seconds past --notify-timeout a run waits for its receivers' threads
CLAIM_MARGIN = 30.0  # seconds past --notify-timeout a run's claims hold (JOIN_MARGIN, writes)
WRITE_TRIES = 5  # writes of the record tried while other runs write it too


@dataclass(frozen=True)
class Where:
    """Where the record is, and the client that reads and writes it (None: unreachable)."""

    ref: notify_record.RecordRef
    kube: Kube | None


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
        now = self.clock()
        run = Run(uuid.uuid4().hex, now, now + self.notify.timeout + CLAIM_MARGIN)
        ref, kube, kept = self._record()
        kept, prepared = self._claim(occasion, run, Where(ref, kube), kept)
        jobs = {name: each.send for name, each in prepared.items()}
        done = _in_threads(jobs, self.notify.timeout + JOIN_MARGIN)
        for delivery in done.values():
            if delivery.failed is not None:
                self._warn(f"notification not sent: {delivery.failed}")
        self._settle(done, Where(ref, kube), kept)

    def _claim(
        self, occasion: Occasion, run: Run, where: Where, kept: notify_record.Kept | str
    ) -> tuple[notify_record.Kept | str, dict[str, Prepared]]:
        """Each receiver prepared on the record as read, and the record kept so (claims,
        digests kept to deliver, what was told) before anything is sent."""
        prepared: dict[str, Prepared] = {}

        def prepare(data: Mapping[str, str]) -> dict[str, str]:
            prepared.clear()
            for name, receiver in self.receivers.items():
                prepared[name] = receiver(occasion, data.get(name), run)
            documents = {name: each.document for name, each in prepared.items()}
            return {**data, **{name: doc for name, doc in documents.items() if doc is not None}}

        kept = self._rewritten(where, kept, prepare)
        if not prepared:  # nothing was read: told as if nothing was told before
            prepare({})
        return kept, prepared

    def _settle(
        self, done: Mapping[str, Delivery], where: Where, kept: notify_record.Kept | str
    ) -> None:
        """What each receiver took, kept in the record as it is now."""

        def settle(data: Mapping[str, str]) -> dict[str, str]:
            after = dict(data)
            for name, delivery in done.items():
                document = delivery.settle(data.get(name))
                if document is not None:
                    after[name] = document
            return after

        self._rewritten(where, kept, settle)

    def _rewritten(
        self,
        where: Where,
        kept: notify_record.Kept | str,
        change: Callable[[Mapping[str, str]], dict[str, str]],
    ) -> notify_record.Kept | str:
        """The record with `change` made to it and written, guarded by the resourceVersion
        read: read again and changed again while another run writes it too."""
        for _ in range(WRITE_TRIES):
            if where.kube is None or not isinstance(kept, notify_record.Kept):
                return kept
            after = change(kept.data)
            if after == kept.data:
                return kept
            written = notify_record.write(where.kube, where.ref, kept, after)
            if isinstance(written, str):
                self._warn(f"notifications: {written}")
            if not isinstance(written, notify_record.Conflict):
                return written
            kept = notify_record.read(where.kube, where.ref)
        self._warn(f"notifications: {where.ref.display} kept changing under other runs' writes")
        return kept

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
            self._items = lasting(self._items)  # the happenings are told now
        self._teller.tell(occasion)
