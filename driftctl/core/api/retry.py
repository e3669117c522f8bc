"""Which failures are worth another try, and how long to wait before it.

Only transient failures are retried: a connection that failed (status 0 here), 429 Too
Many Requests (honouring Retry-After) and 500/502/503/504; but a cluster that never
answered this run and refuses the connection is not failing for a moment (`never_answered`).
400, 401, 403, 404, 409 and 422 say something about the request itself; sending it again
changes nothing. Neither does a 500 whose message says the request does not fit the schema
(`DETERMINISTIC_500`: server-side apply of a field the installed CRD does not declare is
answered so every time): it ends that object's attempt at once, with the server's message,
like a 422.

Which failures belong to one object (the run goes on without it) and which to the
cluster (the run stops) is decided here too: `is_object_refusal`, and `ends_the_run` for
a failure the retries gave up on.
Pure: the random number and the remaining time are passed in.
"""

from __future__ import annotations

from dataclasses import dataclass

CONNECTION_FAILED = 0
TRANSIENT = frozenset({CONNECTION_FAILED, 429, 500, 502, 503, 504})
INTERNAL_ERROR = 500

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


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with full jitter, capped per wait; a Retry-After replaces it whole."""

    base: float = 0.2
    cap: float = 10.0

    def delay(self, attempt: int, jitter: float, retry_after: float | None = None) -> float:
        """Seconds to wait before try `attempt + 1`; `jitter` is uniform in [0, 1)."""
        if retry_after is not None:  # never sooner than the server asked (--timeout bounds it)
            return max(retry_after, 0.0)
        ceiling = min(self.cap, self.base * 2.0**attempt)
        return ceiling / 2 + jitter * ceiling / 2


def is_deterministic(status: int, message: str) -> bool:
    """Whether a 500 is a refusal the server repeats for the same request (module docstring)."""
    return status == INTERNAL_ERROR and any(marker in message for marker in DETERMINISTIC_500)


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


def is_transient(status: int, message: str = "") -> bool:
    """Whether another try may be answered otherwise (`message`: what the server said)."""
    return status in TRANSIENT and not is_deterministic(status, message)


def never_answered(reached: bool, connected: bool) -> bool:
    """Whether a failed request means the cluster cannot be reached at all: no connection
    could be made (refused, an unknown host, a TLS handshake refused) and the API server
    never answered this run before. Not a passing fault, so not retried: kubectl fails at
    once there too. Once the API server answered, a refused connection is a restart, and
    transient."""
    return not reached and not connected


def retry_after_seconds(header: str | None) -> float | None:
    """Retry-After as seconds (the API server sends an integer); None when absent or a date."""
    if header is None:
        return None
    try:
        return float(header)
    except ValueError:
        return None


def should_retry(status: int, delay: float, remaining: float, message: str = "") -> bool:
    """Retry a transient failure only when the wait still fits in the run's deadline."""
    return is_transient(status, message) and delay < remaining
