"""The kind of value of a URL driftctl sends to (a webhook, Alertmanager, a Pushgateway, a
forge's API), and why a text cannot be one. Pure."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from driftctl.settings.kinds import Kind, Refusal


@dataclass(frozen=True)
class Url(Kind[str]):
    """An http(s) URL of a service driftctl sends to: a host, no credentials (they would be
    printed with every failed request; secrets belong in files), and no query or fragment
    unless `query`. The reason never repeats the URL."""

    query: bool = False
    hint: str | None = None
    metavar = "URL"

    def parse(self, text: str) -> str:
        problem = url_problem(text)
        if problem == "must not have a query or fragment" and self.query:
            problem = None
        if problem is not None:
            raise Refusal(problem, self.hint)
        return text


def url_problem(url: str) -> str | None:
    """Why `url` cannot name an http(s) service driftctl sends to, or None."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return "is not a URL"
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if "@" in parts.netloc:
        return "must not carry credentials (user:password@)"
    if not parts.hostname:
        return "has no host"
    if parts.query or parts.fragment:
        return "must not have a query or fragment"
    return None
