"""The receivers: how one receiver is told an occasion (a run's digest, or watch's window).

Each receiver is told in two steps. `prepare` (pure, on the record as read) decides what
it is told and returns its record as it must be kept *before* anything is sent, with
`send`, which sends and returns the `Delivery`: whether it failed, and how to `settle` the
record afterwards (applied to the record as it is then, so another run's writes in between
are kept).

- A digest receiver (a webhook, Slack): what is new, reminded or resolved becomes a digest
  (core.notify.record, core.notify.outbox), kept in its outbox with what was told; every
  entry this run may send is claimed in the record kept before sending; `send` delivers
  the claimed entries oldest first (those of earlier runs marked late: render.digest,
  render.sinks) and stops at the first failure; `settle` takes those delivered out of the
  outbox and releases the others.
- Alertmanager: each condition found fires (again when half its ttl passed); each
  condition gone is sent resolved; a forge (GitHub, GitLab): the commit applied's status
  (and a GitHub deployment). States, not events: only the newest is sent, and `settle`
  keeps what was sent as the record.
Requests are sent by shell.notify_http within --notify-timeout, retries included.
pipeline.notify runs them, each in a thread of its own. Decides nothing.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from driftctl.core.notify import forge
from driftctl.core.notify import outbox as box
from driftctl.core.notify.facts import Item, RunFacts
from driftctl.core.notify.outbox import Digest, Heading, Letter, Post
from driftctl.core.notify.record import (
    Record,
    Tidings,
    decoded,
    encoded,
    lasting,
    recorded,
    tidings,
)
from driftctl.render import digest, sinks
from driftctl.settings import Forge, Notify
from driftctl.shell.notify_http import Failed, read_secret, send

Settle = Callable[[str | None], str | None]  # a receiver's record as it is -> as it is kept


def unchanged(document: str | None) -> str | None:
    return document


@dataclass(frozen=True)
class Delivery:
    """What one receiver's send did: why it failed (None: it did not), and how its record
    is kept now."""

    failed: str | None = None
    settle: Settle = unchanged


@dataclass(frozen=True)
class Run:
    """Who tells: the run's id, which its claims carry, when it claims and when its claims
    lapse (seconds since the epoch, on the teller's clock: its --notify-timeout and a
    margin from `now`)."""

    id: str
    now: float
    until: float


@dataclass(frozen=True)
class Prepared:
    """A receiver ready to be told: its record as kept before sending (None: as read), and
    its send."""

    document: str | None
    send: Callable[[], Delivery]


@dataclass(frozen=True)
class Occasion:
    """What the receivers are told about: the items standing, the run, and the facts of
    the run whose commit a forge is told of (None: no commit status this time)."""

    items: tuple[Item, ...]
    heading: Heading
    commit: RunFacts | None


Receiver = Callable[[Occasion, str | None, Run], Prepared]  # (occasion, its record, run)


def receivers_of(notify: Notify) -> dict[str, Receiver]:
    """Each receiver the settings name, by name."""
    found: dict[str, Receiver] = {}
    if notify.webhook is not None:
        webhook = notify.webhook
        found["webhook"] = lambda o, doc, run: _digest(
            notify, o, doc, run, _webhook_post(webhook.url, webhook.secret_file, notify)
        )
    if notify.slack_file is not None:
        slack = notify.slack_file
        found["slack"] = lambda o, doc, run: _digest(
            notify, o, doc, run, _slack_post(slack, notify)
        )
    if notify.alertmanager is not None:
        url = notify.alertmanager
        found["alertmanager"] = lambda o, doc, run: _state(lambda: _alerts(notify, url, o, doc))
    if notify.github is not None:
        github = notify.github
        found["github"] = lambda o, doc, run: _state(
            lambda: _commit(notify, github, o, doc, _github)
        )
    if notify.gitlab is not None:
        gitlab = notify.gitlab
        found["gitlab"] = lambda o, doc, run: _state(
            lambda: _commit(notify, gitlab, o, doc, _gitlab)
        )
    return found


PostOf = Callable[[Letter], Post | Failed]


def _digest(
    notify: Notify, occasion: Occasion, document: str | None, run: Run, post_of: PostOf
) -> Prepared:
    """A digest receiver: what is worth telling now joins its outbox, and every entry this
    run may send is claimed (module docstring)."""
    now, (record, outbox) = occasion.heading.at, box.document_of(document)
    told = tidings(occasion.items, record, now, notify.repeat)
    own = box.digest_of(occasion.heading, told) if told.worth_sending else None
    if own is not None:
        outbox = box.kept(outbox, own, notify.max_bytes)
    outbox, letters = box.claimed(outbox, run.id, run.now, run.until)
    claimed = box.document_text(recorded(told, record, now), outbox)
    own_id = own.id if own is not None else None
    return Prepared(claimed, lambda: _deliver(letters, own_id, post_of, notify.timeout, run))


def _deliver(
    letters: tuple[Letter, ...], own: str | None, post_of: PostOf, timeout: float, run: Run
) -> Delivery:
    """Send `letters` in order (each but the run's own marked late) within `timeout`; stop
    at the first that fails."""
    left, delivered, failed = _budget(timeout), [], None
    for letter in letters:
        late = dataclasses.replace(letter, late=True) if isinstance(letter, Digest) else letter
        post = post_of(letter if letter.id == own else late)
        sent = post if isinstance(post, Failed) else send(post, left())
        if isinstance(sent, Failed):
            failed = sent.reason
            break
        delivered.append(letter.id)

    def settle(document: str | None) -> str | None:
        record, outbox = box.document_of(document)
        return box.document_text(record, box.settled(outbox, run.id, delivered))

    return Delivery(failed, settle)


def _state(send_state: Callable[[], str | Failed | None]) -> Prepared:
    """A state receiver: nothing kept before sending; its record once sent, the newest."""

    def sent() -> Delivery:
        after = send_state()
        if isinstance(after, Failed):
            return Delivery(after.reason)
        if after is None:
            return Delivery()
        return Delivery(settle=lambda document: after)

    return Prepared(None, sent)


def _webhook_post(url: str, secret_file: Path | None, notify: Notify) -> PostOf:
    def post_of(letter: Letter) -> Post | Failed:
        secret = None
        if secret_file is not None:
            read = read_secret(secret_file)
            if isinstance(read, Failed):
                return Failed(f"the webhook's secret: {read.reason}")
            secret = read
        return sinks.webhook_post(url, digest.json_body(letter, notify.max_bytes), secret)

    return post_of


def _slack_post(url_file: Path, notify: Notify) -> PostOf:
    def post_of(letter: Letter) -> Post | Failed:
        read = read_secret(url_file)
        if isinstance(read, Failed):
            return Failed(f"the Slack webhook's URL: {read.reason}")
        url = read.decode("utf-8", "replace").strip()
        return sinks.slack_post(url, digest.slack_body(letter, notify.max_bytes))

    return post_of


def _alerts(
    notify: Notify, url: str, occasion: Occasion, document: str | None
) -> str | Failed | None:
    """Alertmanager: every condition found fires (again when half its ttl passed); each
    condition gone is sent resolved. Its record now (None: as it was), or why it failed."""
    now, record = occasion.heading.at, decoded(document)
    conditions = lasting(occasion.items)
    told = tidings(conditions, record, now, notify.alert_ttl / 2)
    if not told.worth_sending:
        after = encoded(recorded(told, record, now))
        return after if after != document else None
    post = sinks.alertmanager_post(
        url, occasion.heading, conditions, told.resolved, notify.alert_ttl
    )
    sent = send(post, notify.timeout)
    if isinstance(sent, Failed):
        return sent
    return encoded(recorded(Tidings(new=conditions), {}, now))


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
) -> str | Failed | None:
    """A forge: the commit's state, posted once per state. Its record now (None: as it
    was), or why it failed."""
    facts = occasion.commit
    state = forge.commit_state(facts) if facts is not None else None
    if facts is None or state is None:
        return None
    record, sha = decoded(document), facts.revision
    if not forge.needs_post(record, sha, state):
        return None
    token = read_secret(where.token_file)
    if isinstance(token, Failed):
        return Failed(f"the forge's token: {token.reason}")
    context = sinks.context_of(occasion.heading)
    status = sinks.CommitStatus(sha, str(state), forge.description(facts, state), context)
    call = ForgeCall(
        where, state, status, token.decode("utf-8", "replace"), record, _budget(notify.timeout)
    )
    failed, deployment = post(call)
    if failed is not None:
        return failed
    return encoded(forge.posted(record, sha, state, occasion.heading.at, deployment))


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
