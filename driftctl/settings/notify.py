"""Whom a run tells, about what, how often, and how long it may try: `Notify` (apply and
watch; watch also gathers one digest per `--notify-window`).

Secrets are only ever named by file (the webhook's secret, Slack's URL, the forges'
tokens); the files are read when a run sends, never here. The receivers are read from the
settings as values (`webhook`, `github`, `gitlab`), each checked whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from driftctl.errors import UsageError
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import FilePath, Listed, Text, Whole
from driftctl.settings.spans import Seconds
from driftctl.settings.urls import Url

# What a run may tell people about (core.notify.facts.Category's values, in its order).
NOTIFY_ON = (
    "error",
    "invalid",
    "rollout",
    "conflict",
    "guard",
    "held",
    "drift",
    "prune",
    "applied",
)
DEFAULT_NOTIFY_BYTES = 16_384  # a digest's bound; Slack cuts a message's text at 40,000
MIN_NOTIFY_BYTES = 2_048
GITHUB_API = "https://api.github.com"
_GITHUB_REPO = re.compile(r"^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$")
_TOLD = frozenset({"apply", "watch", "doctor"})  # doctor checks the receivers a run tells


@dataclass(frozen=True)
class Webhook:
    """A generic webhook: its URL, and the file holding the secret its bodies are signed with."""

    url: str
    secret_file: Path | None = None


@dataclass(frozen=True)
class Forge:
    """Commit statuses on a Git forge: its API, the repository (GitHub `owner/name`, GitLab
    a project id or path) and the file holding the token; `environment`, for GitHub, also
    records a deployment of each commit applied."""

    api: str
    repository: str
    token_file: Path
    environment: str | None = None


def _github_repo(text: str) -> str | None:
    return None if _GITHUB_REPO.match(text) else f"must be OWNER/NAME, not {text!r}"


def _gitlab_project(text: str) -> str | None:
    return None if text.strip("/") else "must be a project id or path (group/name)"


@dataclass(frozen=True, kw_only=True)
class Notify:
    """Whom a run tells, about what, how often, and how long it may try (module docstring)."""

    GROUP: ClassVar = Group("Notification flags", _TOLD)

    on: tuple[str, ...] = setting(
        "notify-on",
        Listed(NOTIFY_ON),
        NOTIFY_ON,
        metavar="SET",
        help="What is worth telling, comma-separated: any of " + ", ".join(NOTIFY_ON) + ".",
    )
    repeat: float = setting(  # 0: never
        "notify-repeat",
        Seconds(),
        86_400.0,
        help="How long before something told and unchanged is told again, 0 for never.",
    )
    timeout: float = setting(
        "notify-timeout",
        Seconds(minimum=1),
        10.0,
        help="How long each receiver may take, retries included; a receiver that fails is a "
        "warning, never a failed run.",
    )
    max_bytes: int = setting(
        "notify-max-bytes",
        Whole(minimum=MIN_NOTIFY_BYTES),
        DEFAULT_NOTIFY_BYTES,
        help="Most bytes of a digest; the items that do not fit are counted, not listed.",
    )
    webhook_url: str | None = setting(
        "webhook-url", Url(query=True), help="POST each digest as JSON to this URL."
    )
    webhook_secret_file: Path | None = setting(
        "webhook-secret-file",
        FilePath(),
        help="File holding the secret the webhook's bodies are signed with "
        "(X-Driftctl-Signature-256: sha256=HMAC).",
    )
    slack_file: Path | None = setting(  # the incoming webhook's URL (itself a secret)
        "slack-webhook-file",
        FilePath(),
        help="File holding a Slack-compatible incoming webhook's URL (the URL is the secret).",
    )
    alertmanager: str | None = setting(
        "alertmanager-url",
        Url(),
        help="Send each condition found as an alert to this Prometheus Alertmanager "
        "(http://host:9093), resolved once it is gone.",
    )
    alert_ttl: float = setting(
        "alertmanager-ttl",
        Seconds(minimum=60),
        3_600.0,
        help="How long a firing alert lasts unless a later run sends it again: longer than the "
        "time between runs.",
    )
    github_repo: str | None = setting(
        "github-repo",
        Text(_github_repo),
        metavar="OWNER/NAME",
        help="Set the status of each commit applied on this GitHub repository.",
    )
    github_token_file: Path | None = setting(
        "github-token-file", FilePath(), help="File holding the GitHub token."
    )
    github_api: str = setting(
        "github-api",
        Url(),
        GITHUB_API,
        help="GitHub's API (Enterprise: https://HOST/api/v3).",
    )
    github_environment: str | None = setting(
        "github-environment",
        Text(),
        metavar="NAME",
        help="Also record a GitHub deployment of each commit applied to this environment.",
    )
    gitlab_project: str | None = setting(
        "gitlab-project",
        Text(_gitlab_project),
        metavar="ID|PATH",
        help="Set the status of each commit applied on this GitLab project.",
    )
    gitlab_token_file: Path | None = setting(
        "gitlab-token-file", FilePath(), help="File holding the GitLab token."
    )
    gitlab_api: str | None = setting(
        "gitlab-api", Url(), help="GitLab's API (https://HOST/api/v4)."
    )
    window: float = setting(
        "notify-window",
        Seconds(minimum=0.1),
        10.0,
        commands=frozenset({"watch"}),
        help="How long one digest gathers reconciles.",
    )

    def __post_init__(self) -> None:
        if self.webhook_secret_file is not None and self.webhook_url is None:
            raise UsageError("--webhook-secret-file needs --webhook-url")
        self.github  # noqa: B018 - each forge is checked whole
        self.gitlab  # noqa: B018

    @property
    def webhook(self) -> Webhook | None:
        """The generic webhook, if one is configured."""
        if self.webhook_url is None:
            return None
        return Webhook(self.webhook_url, self.webhook_secret_file)

    @property
    def github(self) -> Forge | None:
        """GitHub's commit statuses, if a repository is named (its token file needed)."""
        repo, token, environment = self.github_repo, self.github_token_file, self.github_environment
        if repo is None:
            if token is not None or environment is not None:
                raise UsageError("--github-token-file and --github-environment need --github-repo")
            return None
        if token is None:
            raise UsageError(
                "--github-repo needs --github-token-file",
                hint="a token that may write commit statuses (and deployments), in a mounted file",
            )
        return Forge(self.github_api.rstrip("/"), repo, token, environment or None)

    @property
    def gitlab(self) -> Forge | None:
        """GitLab's commit statuses, if a project is named (its API and token file needed)."""
        project, token, api = self.gitlab_project, self.gitlab_token_file, self.gitlab_api
        if project is None:
            if token is not None or api is not None:
                raise UsageError("--gitlab-token-file and --gitlab-api need --gitlab-project")
            return None
        if token is None or api is None:
            raise UsageError(
                "--gitlab-project needs --gitlab-api and --gitlab-token-file",
                hint="for example --gitlab-api https://gitlab.example.com/api/v4",
            )
        return Forge(api.rstrip("/"), project.strip("/"), token)

    @property
    def anyone(self) -> bool:
        """Whether any receiver is configured (else a run tells nobody and reads nothing)."""
        receivers = (self.webhook, self.slack_file, self.alertmanager, self.github, self.gitlab)
        return any(receiver is not None for receiver in receivers)
