"""What goes out: one HTTP request to a receiver, as a value, and what a digest is about.

Pure values: render.sinks builds each receiver's `Post`, shell.notify_http sends it.
A `Post` names where it goes for messages (`what`, never a URL that may hold a secret)
and carries its secret-bearing headers apart (`secret_headers`), so that nothing that
prints a request can print a secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Post:
    """One POST: where, its JSON body, its headers (secret ones apart)."""

    url: str
    body: bytes
    what: str  # "the webhook at http://host/path", "GitHub commit status": for messages
    headers: Mapping[str, str] = field(default_factory=dict)
    secret_headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Heading:
    """Which run a digest is about: instance, shard, the commit, the exit code, when."""

    instance: str
    revision: str
    exit_code: int
    at: float  # seconds since the epoch
    shard_index: int = 0
    shard_count: int = 1

    @property
    def who(self) -> str:
        """`default`, or `default (shard 1 of 3)`."""
        if self.shard_count <= 1:
            return self.instance
        return f"{self.instance} (shard {self.shard_index} of {self.shard_count})"
