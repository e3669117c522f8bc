"""`driftctl watch`: the operator form of apply (pipeline.watch)."""

from __future__ import annotations

import os
import threading

from driftctl.cli.command import command
from driftctl.cli.logs import Log, logged
from driftctl.settings import WatchRequest


@command(
    WatchRequest,
    logged=logged,
    long_lived=True,
    examples=[
        "# The operator form of apply, as operator/ runs it:",
        "$ driftctl watch --repo https://git.example.com/you/webapps.git --ref main --path apps",
        "# Look at Git every 30 seconds, a full pass every 10 minutes, JSON logs:",
        "$ driftctl watch --ref main --path apps --git-poll 30s --resync 10m --log-format json",
    ],
)
def watch(*, request: WatchRequest, log: Log) -> None:
    """Keep the cluster equal to Git continuously: the operator form of `apply`.

    One active process per instance: it takes the run lock's Lease (renewed; released on
    SIGTERM) and a second process waits as a standby. It watches this instance's WebApps
    and Deployments and reconciles a WebApp as soon as it or its Deployment changes, with
    the same plan and apply as `apply` (--timeout bounds each reconcile); a failed one is
    tried again after 1 s, doubling up to 5 minutes. It looks at the Git ref every
    --git-poll (e.g. 30s) and runs a full plan and apply when it moved, and every --resync
    (e.g. 10m). With receivers (as apply's), one digest per --notify-window of what the
    reconciles did or found. Serves /healthz, /readyz and Prometheus /metrics on
    --metrics-addr. Runs until SIGTERM (exit 0); 3 when Git is invalid at the start, 4 when
    the cluster cannot be used, 6 when it lost the Lease to another process or could not
    renew it in time.

    With --verify, each commit is verified as `apply` verifies it before it is applied: at
    the start (a refusal exits 3) and at each Git poll that sees the ref move, where a
    refused commit is logged in one line and the last verified one stays in force.
    """
    from driftctl.pipeline import watch as run

    run.watch(
        request,
        environ=os.environ,
        notice=log.retry,
        say=log.say,
        progress=log.progress("text"),
        stop=_stopped_by_signals(),
    )


def _stopped_by_signals() -> threading.Event:
    """An event set by SIGTERM or SIGINT: watch stops cleanly (exit 0) when it is set."""
    import signal

    stop = threading.Event()

    def stopping(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    return stop
