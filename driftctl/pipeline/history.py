"""What the instance's runs applied: recorded by each run that wrote something (apply, a
watch reconcile), read by `history` and `status`.

A run's record is decided by the core (core.history.record) from its plan, its report and
the live WebApps it planned from, and added to the ring in the run lock's namespace
(shell.history_store) while the run still holds its lock; a run that wrote nothing sends
nothing. A record that cannot be kept is a warning, never a failed run. Decides nothing.
"""

from __future__ import annotations

import datetime
import socket
from collections.abc import Mapping

from driftctl.core.history.query import Entry, entries, last_entries, records, runs
from driftctl.core.history.record import RunOf, RunRecord, lines_of, record_of
from driftctl.core.planning.actions import Plan
from driftctl.core.planning.objects import Obj
from driftctl.core.planning.outcomes import ApplyReport
from driftctl.core.source.model import Place
from driftctl.errors import DriftctlError
from driftctl.kube_formats import api_time
from driftctl.pipeline.listener import Notice
from driftctl.pipeline.runs import open_cluster, utc_now
from driftctl.settings import Cluster, HistoryRequest, Lock
from driftctl.shell.history_store import HistoryRef, Keeper, read_ring
from driftctl.shell.kube import Kube


def ref_of(cluster: Cluster, lock: Lock) -> HistoryRef:
    """Where the instance's history is: beside its run lock, wherever the run runs."""
    return HistoryRef(lock.namespace, cluster.instance)


def keeper(cluster: Cluster, lock: Lock) -> Keeper:
    """What records the instance's runs (one per apply; one per watch, for all its
    reconciles)."""
    return Keeper(ref_of(cluster, lock))


def record(
    kube: Kube,
    keeping: Keeper,
    ran: tuple[Plan, ApplyReport],
    webapps: Mapping[Place, Obj],
    warn: Notice,
) -> None:
    """Keep what a run applied (nothing, and no request, when it wrote nothing)."""
    plan, report = ran
    run = RunOf(api_time(utc_now()), socket.gethostname(), webapps)
    found = record_of(plan, report, run)
    if found is None:
        return
    failed = keeping.append(kube, lines_of(found))
    if failed is not None:
        warn(f"history: {failed}; this run's changes are not recorded")


def last_changes(kube: Kube, ref: HistoryRef) -> dict[Place, Entry] | str:
    """Each WebApp's newest change (`status`), or why the history cannot be read."""
    try:
        return last_entries(records(read_ring(kube, ref)))
    except DriftctlError as failed:
        return failed.message


def history(request: HistoryRequest, notice: Notice) -> tuple[list[RunRecord], list[Entry] | None]:
    """The `history` command: the runs that wrote something, newest first, and (given NAME...
    or -l) the changes of the WebApps picked (None: no WebApp was asked for)."""
    kube = open_cluster(request.cluster, notice)
    found = records(read_ring(kube, ref_of(request.cluster, request.lock)))
    since = request.period.since
    cutoff = None if since is None else utc_now() - datetime.timedelta(seconds=since)
    if request.selection.everything:
        return runs(found, cutoff), None
    return runs(found, cutoff), entries(found, request.selection, cutoff)
