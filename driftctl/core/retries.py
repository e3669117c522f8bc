"""Which failures are worth another try, from which peer, and how long to wait before it.

driftctl talks to two kinds of peer over HTTP: the API server (shell.kube, the one retry
loop of every request; shell.informer's watches) and the receivers of notifications
(shell.notify_http). What each retries is one table, `TRANSIENT`, with a column per peer:
a connection that failed (status 0 here), 429 Too Many Requests and 500/502/503/504 for
both; 408 Request Timeout and 425 Too Early for receivers only. Any other answer says
something about the request itself; sending it again changes nothing. Neither does the
API server's 500 whose message says the request does not fit the schema
(`DETERMINISTIC_500`: server-side apply of a field the installed CRD does not declare is
answered so every time): it ends that object's attempt at once, with the server's
message, like a 422. And a cluster that never answered this run and refuses the
connection is not failing for a moment (`never_answered`).

How long to wait is a `Backoff`, one value per peer: the API server's (`API_SERVER`, from
0.2 s doubling up to 10 s, jittered; its Retry-After replaces the wait whole, however long,
and the run's --timeout bounds it) and the receivers' (`RECEIVERS`, 0.5 s doubling to 4 s;
a Retry-After is bounded by 4 s too); watch's curves per WebApp (core.watch.backoff) are
values of the same type. The Retry-After header is read once, here.

Which API failures belong to one object (the run goes on without it) and which to the
cluster (the run stops) is decided here too: `is_object_refusal`, and `ends_the_run` for
a failure the retries gave up on.

Its home is the core, beside its rooms rather than in one: the API server's room (api) and
the receivers' (notify) both need it, and neither is the other's (the import contracts
keep this module below every room). Pure: the random number and the remaining time are
passed in.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

CONNECTION_FAILED = 0
INTERNAL_ERROR = 500


class Peer(enum.IntEnum):
    """Who answered: the column of `TRANSIENT` to read."""

    API_SERVER = 0
    RECEIVER = 1


# Whether a failure with this status is worth another try: (the API server, a receiver).
TRANSIENT: Mapping[int, tuple[bool, bool]] = {
    CONNECTION_FAILED: (True, True),  # no answer (the API server: unless it never answered)
    408: (False, True),  # Request Timeout: the receiver gave up waiting for the request
    425: (False, True),  # Too Early: the receiver asks for the request again later
    429: (True, True),  # Too Many Requests, honouring Retry-After
    500: (True, True),  # the API server: unless its message is a schema's (DETERMINISTIC_500)
    502: (True, True),  # Bad Gateway
    503: (True, True),  # Service Unavailable
    504: (True, True),  # Gateway Timeout
}

# What the API server says when it cannot type a request (or the object it applies to)
# against the schema: the same request gets the same answer every time. Server-side apply
# (k8s.io/apimachinery, managedfields/internal/structuredmerge.go) words them so.
DETERMINISTIC_500 = (
    "failed to create typed patch object",
    "failed to create typed live object",
    "failed to convert new object",
    "failed to convert live object",
    "field not declared in schema",
)


def transient(peer: Peer, status: int) -> bool:
    """Whether `peer`'s failure with `status` may be answered otherwise if asked again."""
    return TRANSIENT.get(status, (False, False))[peer]


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff: `base` seconds before the second try, doubling up to `cap`.

    `jittered`: each wait anywhere from half its ceiling up to it, so that clients that
    failed together do not come back together. `bounded_retry_after`: a Retry-After is a
    hint, bounded by `cap`, and one below zero is none; otherwise it is an order, replacing
    the wait whole however long (never sooner than asked: a negative one is at once).
    """

    base: float
    cap: float
    jittered: bool = True
    bounded_retry_after: bool = False

    def ceiling(self, attempt: int) -> float:
        """The longest wait after try `attempt` (0 the first) failed."""
        return min(self.cap, self.base * 2.0 ** min(attempt, 64))  # 2**64 is past any cap

    def delay(self, attempt: int, jitter: float = 0.0, retry_after: float | None = None) -> float:
        """Seconds to wait before try `attempt + 1`; `jitter` is uniform in [0, 1)."""
        if retry_after is not None and not self.bounded_retry_after:
            return max(retry_after, 0.0)
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.cap)
        ceiling = self.ceiling(attempt)
        return ceiling / 2 + jitter * ceiling / 2 if self.jittered else ceiling


API_SERVER = Backoff(base=0.2, cap=10.0)
RECEIVERS = Backoff(base=0.5, cap=4.0, jittered=False, bounded_retry_after=True)


def retry_after_seconds(header: str | None) -> float | None:
    """Retry-After as seconds (the API server sends an integer); None when absent or a date."""
    if header is None:
        return None
    try:
        return float(header)
    except ValueError:
        return None


def is_deterministic(status: int, message: str) -> bool:
    """Whether a 500 is a refusal the server repeats for the same request (module docstring)."""
    return status == INTERNAL_ERROR and any(marker in message for marker in DETERMINISTIC_500)


def is_transient(status: int, message: str = "") -> bool:
    """Whether the API server may answer otherwise if asked again (`message`: what it said)."""
    return transient(Peer.API_SERVER, status) and not is_deterministic(status, message)


def should_retry(status: int, delay: float, remaining: float, message: str = "") -> bool:
    """Retry the API server's transient failure only when the wait fits in the run's deadline."""
    return is_transient(status, message) and delay < remaining


def never_answered(reached: bool, connected: bool) -> bool:
    """Whether a failed request means the cluster cannot be reached at all: no connection
    could be made (refused, an unknown host, a TLS handshake refused) and the API server
    never answered this run before. Not a passing fault, so not retried: kubectl fails at
    once there too. Once the API server answered, a refused connection is a restart, and
    transient."""
    return not reached and not connected


def is_object_refusal(status: int, message: str = "") -> bool:
    """Whether a refused request says something about its object alone (400, 404, 409, 422
    ..., a schema refusal), not about the cluster or driftctl's credentials (no answer, 401,
    403, other 5xx)."""
    if is_deterministic(status, message):
        return True
    return status != CONNECTION_FAILED and status not in (401, 403) and status < 500


def ends_the_run(status: int, message: str = "") -> bool:
    """Whether a failure the retry loop gave up on ends the whole run, whatever the request.

    A transient failure is only given up on when the run's --timeout leaves no time for
    another try: the API server (or etcd behind it) is gone or stalled, and every request
    after it would fail the same way. The run stops with that one error (exit 4) rather
    than a failure for each object left; the next run goes on from what was written.
    """
    return is_transient(status, message)
