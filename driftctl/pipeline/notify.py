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
from dataclasses import dataclass
from pathlib import Path

from driftctl.core.notify import forge
from driftctl.core.notify.facts import Category, Item, RunFacts, items_of
from driftctl.core.notify.outbox import Heading, Post
from driftctl.core.notify.record import (
    Record,
    Tidings,
    decoded,
    encoded,
    lasting,
    merged,
    recorded,
    tidings,
)
from driftctl.errors import DriftctlError
from driftctl.pipeline.engine import Notice, open_cluster
from driftctl.render import digest, sinks
from driftctl.settings import Cluster, Forge, Lock, Notify, Shard
from driftctl.shell import notify_record
from driftctl.shell.kube import Kube, in_cluster_namespace
from driftctl.shell.notify_http import Failed, Sent, read_secret, send

JOIN_MARGIN = 2.0  # seconds past --notify-timeout a run waits for its receivers' threads


@dataclass(frozen=True)
class Delivery:
    """What one receiver did: its record now (None: unchanged), or why it failed."""

    document: str | None = None
    failed: str | None = None


@dataclass(frozen=True)
class Occasion:
    """What the receivers are told about: the items standing, the run, and the facts of
    the run whose commit a forge is told of (None: no commit status this time)."""

    items: tuple[Item, ...]
    heading: Heading
    commit: RunFacts | None


Receiver = Callable[[Occasion, str | None], Delivery]  # (occasion, its record) -> Told


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
        self.receivers: dict[str, Receiver] = _receivers(notify)

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
        namespace = self._lock.namespace or in_cluster_namespace()
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


# ---- the receivers --------------------------------------------------------------------


def _receivers(notify: Notify) -> dict[str, Receiver]:
    found: dict[str, Receiver] = {}
    if notify.webhook is not None:
        webhook = notify.webhook
        found["webhook"] = lambda o, doc: _digest(
            notify, o, doc, _webhook_post(webhook.url, webhook.secret_file, notify)
        )
    if notify.slack_file is not None:
        slack = notify.slack_file
        found["slack"] = lambda o, doc: _digest(notify, o, doc, _slack_post(slack, notify))
    if notify.alertmanager is not None:
        url = notify.alertmanager
        found["alertmanager"] = lambda o, doc: _alerts(notify, url, o, doc)
    if notify.github is not None:
        github = notify.github
        found["github"] = lambda o, doc: _commit(notify, github, o, doc, _github)
    if notify.gitlab is not None:
        gitlab = notify.gitlab
        found["gitlab"] = lambda o, doc: _commit(notify, gitlab, o, doc, _gitlab)
    return found


PostOf = Callable[[Heading, Tidings], Post | Failed]


def _digest(notify: Notify, occasion: Occasion, document: str | None, post_of: PostOf) -> Delivery:
    """A digest receiver: sent when something is new, reminded or resolved."""
    now, record = occasion.heading.at, decoded(document)
    told = tidings(occasion.items, record, now, notify.repeat)
    after = encoded(recorded(told, record, now))
    if not told.worth_sending:
        return Delivery(after if after != document else None)
    post = post_of(occasion.heading, told)
    if isinstance(post, Failed):
        return Delivery(failed=post.reason)
    sent = send(post, notify.timeout)
    return Delivery(after) if isinstance(sent, Sent) else Delivery(failed=sent.reason)


def _webhook_post(url: str, secret_file: Path | None, notify: Notify) -> PostOf:
    def post_of(heading: Heading, told: Tidings) -> Post | Failed:
        secret = None
        if secret_file is not None:
            read = read_secret(secret_file)
            if isinstance(read, Failed):
                return Failed(f"the webhook's secret: {read.reason}")
            secret = read
        return sinks.webhook_post(url, digest.json_body(heading, told, notify.max_bytes), secret)

    return post_of


def _slack_post(url_file: Path, notify: Notify) -> PostOf:
    def post_of(heading: Heading, told: Tidings) -> Post | Failed:
        read = read_secret(url_file)
        if isinstance(read, Failed):
            return Failed(f"the Slack webhook's URL: {read.reason}")
        url = read.decode("utf-8", "replace").strip()
        return sinks.slack_post(url, digest.slack_body(heading, told, notify.max_bytes))

    return post_of


def _alerts(notify: Notify, url: str, occasion: Occasion, document: str | None) -> Delivery:
    """Alertmanager: every condition found fires (again when half its ttl passed); each
    condition gone is sent resolved."""
    now, record = occasion.heading.at, decoded(document)
    conditions = lasting(occasion.items)
    told = tidings(conditions, record, now, notify.alert_ttl / 2)
    if not told.worth_sending:
        after = encoded(recorded(told, record, now))
        return Delivery(after if after != document else None)
    post = sinks.alertmanager_post(
        url, occasion.heading, conditions, told.resolved, notify.alert_ttl
    )
    sent = send(post, notify.timeout)
    if isinstance(sent, Failed):
        return Delivery(failed=sent.reason)
    return Delivery(encoded(recorded(Tidings(new=conditions), {}, now)))


@dataclass(frozen=True)
class ForgeCall:
    """One commit's state, to be posted on a forge within the time `left` gives."""

    where: Forge
    state: forge.CommitState
    status: sinks.CommitStatus
    token: str
    record: Record
    left: Callable[[], float]


Forged = Callable[[ForgeCall], tuple[Failed | None, int | None]]  # (failure, deployment)


def _commit(
    notify: Notify, where: Forge, occasion: Occasion, document: str | None, post: Forged
) -> Delivery:
    """A forge: the commit's state, posted once per state."""
    facts = occasion.commit
    state = forge.commit_state(facts) if facts is not None else None
    if facts is None or state is None:
        return Delivery()
    record, sha = decoded(document), facts.revision
    if not forge.needs_post(record, sha, state):
        return Delivery()
    token = read_secret(where.token_file)
    if isinstance(token, Failed):
        return Delivery(failed=f"the forge's token: {token.reason}")
    context = sinks.context_of(occasion.heading)
    status = sinks.CommitStatus(sha, str(state), forge.description(facts, state), context)
    call = ForgeCall(
        where, state, status, token.decode("utf-8", "replace"), record, _budget(notify.timeout)
    )
    failed, deployment = post(call)
    if failed is not None:
        return Delivery(failed=failed.reason)
    now = occasion.heading.at
    return Delivery(encoded(forge.posted(record, sha, state, now, deployment)))


def _budget(seconds: float) -> Callable[[], float]:
    """The seconds left of `seconds` from now, as sends go one after the other."""
    give_up = time.monotonic() + seconds
    return lambda: max(give_up - time.monotonic(), 0.0)


def _github(call: ForgeCall) -> tuple[Failed | None, int | None]:
    """The commit status; with an environment, the commit's deployment (made once) and
    its status."""
    where, sha = call.where, call.status.sha
    named = dataclasses.replace(call.status, state=forge.GITHUB_STATUS[call.state])
    sent = send(sinks.github_status_post(where, named, call.token), call.left())
    if isinstance(sent, Failed) or where.environment is None:
        return (sent if isinstance(sent, Failed) else None), None
    deployment = forge.deployment_of(call.record, sha)
    if deployment is None:
        made = send(sinks.github_deployment_post(where, named, call.token), call.left())
        if isinstance(made, Failed):
            return made, None
        deployment = sinks.deployment_id(made.answer)
        if deployment is None:
            return Failed("GitHub deployment: the answer had no id"), None
    state = forge.GITHUB_DEPLOYMENT[call.state]
    told = dataclasses.replace(call.status, state=state)
    post = sinks.github_deployment_status_post(where, deployment, told, call.token)
    sent = send(post, call.left())
    return (sent if isinstance(sent, Failed) else None), deployment


def _gitlab(call: ForgeCall) -> tuple[Failed | None, int | None]:
    named = dataclasses.replace(call.status, state=forge.GITLAB_STATUS[call.state])
    sent = send(sinks.gitlab_status_post(call.where, named, call.token), call.left())
    return (sent if isinstance(sent, Failed) else None), None


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
