"""The only module that talks to a Prometheus Pushgateway: pushes one run's metrics.

Push-add (HTTP POST) to `/metrics/job/<job>/instance/<instance>/shard/<shard>`: the
metrics a push carries replace those of the same name in the group; the others stay (the
last-success timestamp after a failed run). A push that fails is reported back as a
reason, never raised: metrics are how a run is watched, not part of what it does, so a
Pushgateway that is down must not fail the run. Which metrics are pushed is
render.metrics' business; this module only sends them.
"""

from __future__ import annotations

import http.client
import urllib.error
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

PUSH_TIMEOUT = 10.0  # seconds: a CronJob must not hang on its monitoring
_BODY_SHOWN = 200  # characters of the Pushgateway's error text


def push_add(
    url: str,
    job: str,
    grouping_key: Mapping[str, str],
    registry: CollectorRegistry,
    *,
    timeout: float = PUSH_TIMEOUT,
) -> str | None:
    """Push the registry's metrics into one group; None when done, else why it failed."""
    from prometheus_client.exposition import pushadd_to_gateway  # only runs that push import it

    try:
        pushadd_to_gateway(
            url, job=job, registry=registry, grouping_key=dict(grouping_key), timeout=timeout
        )
    except urllib.error.HTTPError as refused:
        return f"the Pushgateway at {url} answered {refused.code} {refused.reason}{_body(refused)}"
    except urllib.error.URLError as failed:
        return f"the Pushgateway at {url} is unreachable: {failed.reason}"
    except (OSError, http.client.HTTPException) as failed:
        return f"the Pushgateway at {url} is unreachable: {failed or type(failed).__name__}"
    return None


def _body(refused: urllib.error.HTTPError) -> str:
    """The Pushgateway says why it refused a push (e.g. inconsistent metrics) in its body."""
    try:
        text = refused.read(_BODY_SHOWN).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f": {text.splitlines()[0]}" if text else ""
