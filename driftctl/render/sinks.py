"""Each receiver's request, built as a value (core.notify.outbox.Post): paths, headers,
bodies. Pure; shell.notify_http sends them.

- the generic webhook: the digest's JSON (render.digest.json_body), signed with
  HMAC-SHA256 of the body under the secret, in `X-Driftctl-Signature-256: sha256=<hex>`;
- a Slack-compatible incoming webhook: render.digest.slack_body, to the URL (the secret);
- Prometheus Alertmanager, API v2 (`POST /api/v2/alerts`): one alert per condition found,
  ending `ttl` seconds later unless a later run sends it again, and one with `endsAt` now
  for each condition resolved, so Alertmanager's routing, grouping and silences apply;
- GitHub: a commit status (`POST /repos/{owner}/{repo}/statuses/{sha}`), and with an
  environment a deployment (`POST /repos/{owner}/{repo}/deployments`) and its statuses
  (`POST .../deployments/{id}/statuses`); the token in `Authorization: Bearer`;
- GitLab: a commit status (`POST /projects/{id or url-encoded path}/statuses/{sha}`), the
  token in `PRIVATE-TOKEN`.
Tokens and secrets go only into `Post.secret_headers`; a Slack URL only into `Post.url`.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from driftctl import __version__
from driftctl.core.notify.facts import KINDS, RUN, Category, Item
from driftctl.core.notify.outbox import Heading, Post
from driftctl.core.notify.record import Resolved
from driftctl.settings import Forge

SIGNATURE_HEADER = "X-Driftctl-Signature-256"
EVENT_HEADER = "X-Driftctl-Event"
GITHUB_MEDIA = "application/vnd.github+json"
GITHUB_API_VERSION = "2022-11-28"
_JSON = {"Content-Type": "application/json", "User-Agent": f"driftctl/{__version__}"}


def signature(secret: bytes, body: bytes) -> str:
    """`sha256=<hex>`: HMAC-SHA256 of the exact body bytes under the shared secret."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def shown_url(url: str) -> str:
    """A URL as messages show it: scheme, host and path (a query may hold a token)."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


def webhook_post(url: str, body: bytes, secret: bytes | None) -> Post:
    headers = {**_JSON, EVENT_HEADER: "digest"}
    if secret is not None:
        headers[SIGNATURE_HEADER] = signature(secret, body)
    return Post(url, body, f"the webhook at {shown_url(url)}", headers)


def slack_post(url: str, body: bytes) -> Post:
    return Post(url, body, "the Slack webhook", dict(_JSON))


# ---- Alertmanager ------------------------------------------------------------------------


def alertmanager_post(
    url: str,
    heading: Heading,
    firing: Sequence[Item],
    resolved: Sequence[Resolved],
    ttl: float,
) -> Post:
    """The alerts of one run: those firing (until `ttl` from now) and those resolved now."""
    now = heading.at
    alerts = [
        _alert(heading, item.category, item.subject, (now, now + ttl), _described(item))
        for item in firing
    ]
    alerts += [
        _alert(heading, each.category, each.subject, (min(each.since, now), now), "resolved")
        for each in resolved
    ]
    body = json.dumps(alerts, separators=(",", ":")).encode()
    return Post(
        url.rstrip("/") + "/api/v2/alerts", body, f"Alertmanager at {shown_url(url)}", dict(_JSON)
    )


def _alert(
    heading: Heading, category: Category, subject: str, when: tuple[float, float], text: str
) -> dict[str, Any]:
    """One alert, from `when[0]` to `when[1]` (seconds since the epoch)."""
    kind = KINDS[category]
    labels = {
        "alertname": kind.alert,
        "severity": kind.severity,
        "driftctl_instance": heading.instance,
        "category": str(category),
        "object": subject,
    }
    if heading.shard_count > 1:
        labels["driftctl_shard"] = str(heading.shard_index)
    summary = f"{kind.title}: {'the run' if subject == RUN else subject}"
    return {
        "labels": labels,
        "annotations": {"summary": summary, "description": text},
        "startsAt": _time(when[0]),
        "endsAt": _time(when[1]),
    }


def _described(item: Item) -> str:
    return "\n".join([item.what, *item.lines])


def _time(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# ---- GitHub and GitLab -----------------------------------------------------------------


@dataclass(frozen=True)
class CommitStatus:
    """What a forge is told of one commit: its state (in the forge's words), one line, and
    the status's name (`context_of`)."""

    sha: str
    state: str
    description: str
    context: str


def _github(forge: Forge, path: str, body: Mapping[str, Any], token: str, what: str) -> Post:
    headers = {**_JSON, "Accept": GITHUB_MEDIA, "X-GitHub-Api-Version": GITHUB_API_VERSION}
    data = json.dumps(body, separators=(",", ":")).encode()
    secret = {"Authorization": f"Bearer {token}"}
    return Post(f"{forge.api}{path}", data, what, headers, secret)


def github_status_post(forge: Forge, status: CommitStatus, token: str) -> Post:
    body = {"state": status.state, "description": status.description, "context": status.context}
    path = f"/repos/{forge.repository}/statuses/{status.sha}"
    return _github(forge, path, body, token, "GitHub commit status")


def github_deployment_post(forge: Forge, status: CommitStatus, token: str) -> Post:
    """A deployment of the commit to the forge's environment: no merge of the default
    branch, no required contexts (the commit is already applied)."""
    body: dict[str, Any] = {
        "ref": status.sha,
        "environment": forge.environment,
        "description": status.description,
        "auto_merge": False,
        "required_contexts": [],
        "task": "deploy",
    }
    return _github(
        forge, f"/repos/{forge.repository}/deployments", body, token, "GitHub deployment"
    )


def github_deployment_status_post(
    forge: Forge, deployment: int, status: CommitStatus, token: str
) -> Post:
    body = {
        "state": status.state,
        "environment": forge.environment,
        "description": status.description,
        "auto_inactive": True,
    }
    path = f"/repos/{forge.repository}/deployments/{deployment}/statuses"
    return _github(forge, path, body, token, "GitHub deployment status")


def deployment_id(answer: object) -> int | None:
    """The id GitHub gave a deployment it created (its answer's `id`)."""
    if isinstance(answer, dict) and isinstance(answer.get("id"), int):
        return int(answer["id"])
    return None


def gitlab_status_post(forge: Forge, status: CommitStatus, token: str) -> Post:
    path = f"/projects/{quote(forge.repository, safe='')}/statuses/{status.sha}"
    body = {"state": status.state, "name": status.context, "description": status.description}
    data = json.dumps(body, separators=(",", ":")).encode()
    return Post(
        f"{forge.api}{path}", data, "GitLab commit status", dict(_JSON), {"PRIVATE-TOKEN": token}
    )


def context_of(heading: Heading) -> str:
    """The status's name on the forge: `driftctl/<instance>` (`/shard-<i>` when sharded)."""
    shard = f"/shard-{heading.shard_index}" if heading.shard_count > 1 else ""
    return f"driftctl/{heading.instance}{shard}"
