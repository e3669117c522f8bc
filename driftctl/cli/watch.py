"""The operator form of apply: watch (pipeline.watch)."""

from __future__ import annotations

import dataclasses
import os
import threading

import click

from driftctl.cli.flag_groups import (
    cluster_flags,
    drift_flags,
    lock_flags,
    policy_flags,
    source_flags,
    verify_flags,
    watch_flags,
    watching_notify_flags,
)
from driftctl.cli.flags import flag
from driftctl.cli.logs import TextLog, style
from driftctl.settings import (
    MAX_EVENTS,
    Cluster,
    Drift,
    Lock,
    Notify,
    Policy,
    Source,
    Verify,
    Watch,
)


@click.command()
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@verify_flags
@lock_flags
@flag(
    "max-events",
    type=click.IntRange(min=0),
    default=MAX_EVENTS,
    help="Most Kubernetes Events one reconcile records (one per changed WebApp).",
)
@watch_flags
@watching_notify_flags
def watch(
    *,
    source: Source,
    cluster: Cluster,
    policy: Policy,
    drift: Drift,
    verify: Verify,
    lock: Lock,
    max_events: int,
    settings: Watch,
    notify: Notify,
) -> None:
    """Keep the cluster equal to Git continuously: the operator form of `apply`.

    One active process per instance: it takes the run lock's Lease (renewed; released on
    SIGTERM) and a second process waits as a standby. It watches this instance's WebApps
    and Deployments and reconciles a WebApp as soon as it or its Deployment changes, with
    the same plan and apply as `apply` (--timeout bounds each reconcile); a failed one is
    tried again after 1 s, doubling up to 5 minutes. It looks at the Git ref every
    --git-poll seconds and runs a full plan and apply when it moved, and every --resync
    seconds. With receivers (as apply's), one digest per --notify-window of what the
    reconciles did or found. Serves /healthz, /readyz and Prometheus /metrics on
    --metrics-addr. Runs until SIGTERM (exit 0); 3 when Git is invalid at the start, 4 when
    the cluster cannot be used, 6 when it lost the Lease to another process or could not
    renew it in time.

    With --verify, each commit is verified as `apply` verifies it before it is applied: at
    the start (a refusal exits 3) and at each Git poll that sees the ref move, where a
    refused commit is logged in one line and the last verified one stays in force.
    """
    from driftctl.pipeline import watch as run

    stop = _stopped_by_signals()
    cluster = dataclasses.replace(cluster, max_events=max_events)
    setup = run.Setup(source, cluster, policy, lock, settings, drift, notify, verify)
    log = TextLog(style())

    def say(line: str) -> None:
        click.echo(line, err=True)

    run.watch(
        setup,
        environ=os.environ,
        notice=log.retry,
        say=say,
        progress=log.progress("text"),
        stop=stop,
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
