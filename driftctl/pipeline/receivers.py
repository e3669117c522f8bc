"""The receivers: how one receiver is told an occasion (a run's digest, or watch's window).

Each receiver takes the occasion and what it was last told (its record, core.notify.record)
and returns its record now, or why it failed: a digest receiver (a webhook, Slack) is sent
one body when something is new, reminded or resolved (render.digest, render.sinks); the
Alertmanager gets each condition found, fired again within its ttl, and each condition gone
sent resolved; a forge (GitHub, GitLab) gets the commit applied's status (and a GitHub
deployment). Requests are sent by shell.notify_http within --notify-timeout, retries
included. pipeline.notify runs them, each in a thread of its own. Decides nothing.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from driftctl.core.notify import forge
from driftctl.core.notify.facts import Item, RunFacts
from driftctl.core.notify.outbox import Heading, Post
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
from driftctl.shell.notify_http import Failed, Sent, read_secret, send


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


def receivers_of(notify: Notify) -> dict[str, Receiver]:
    """Each receiver the settings name, by name."""
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
