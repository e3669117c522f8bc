"""The everyday commands' flows: status, version, show (a saved plan).

`status` reads Git and what a plan's first step reads of the cluster (the instance's two
LISTs) plus its Lease and its history (each WebApp's last change): no dry-run, no write;
the core decides each WebApp's standing (core.planning.overview) at the time the Lease
was read, with the suspension it states, as a plan decides it. `version` asks the API
server its build and reads the WebApp CRD, unless only the client's is asked for. `show`
reads a saved-plan file. Each decides nothing and prints nothing.
"""

from __future__ import annotations

import datetime
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from driftctl import __version__
from driftctl.core.api import requests as r
from driftctl.core.api.lease import LockState, lock_state
from driftctl.core.history.query import Entry
from driftctl.core.planning.controls import Situation
from driftctl.core.planning.overview import (
    CrdState,
    InstanceStatus,
    crd_state,
    crd_versions,
    instance_status,
)
from driftctl.core.planning.saved_plan import SavedPlan, parse_saved_plan
from driftctl.core.source.crd import webapp_crd
from driftctl.core.source.model import Place
from driftctl.pipeline.history import last_changes
from driftctl.pipeline.history import ref_of as history_ref
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.runs import Notice, in_scope, lease_of, open_cluster, utc_now
from driftctl.settings import Cluster, StatusRequest
from driftctl.shell.live_state import read_live
from driftctl.shell.lock import read_lease
from driftctl.shell.plan_file import read_plan_file


@dataclass(frozen=True)
class Standing:
    """What `status` found: the WebApps, the run lock, each WebApp's last change recorded
    (`unread`: why the history could not be read, or ""), and when."""

    status: InstanceStatus
    lock: LockState
    changes: Mapping[Place, Entry]
    unread: str
    now: datetime.datetime


def status(request: StatusRequest, *, environ: Mapping[str, str], notice: Notice) -> Standing:
    """The `status` command: the instance's WebApps against Git, from its LISTs, its run
    lock, from its Lease, and each WebApp's last change, from its history."""
    source, cluster, lock, drift = request.source, request.cluster, request.lock, request.drift
    desired = in_scope(load_desired(source, environ), cluster)
    kube = open_cluster(cluster, notice)
    live = read_live(kube, cluster.instance, namespaces=cluster.namespaces)
    ref = lease_of(cluster, lock)
    lease = read_lease(kube, ref)
    now = utc_now()
    found = instance_status(
        desired,
        live,
        instance=cluster.instance,
        manager=cluster.field_manager,
        drift=drift,
        situation=Situation.of(now, lease, ref.display),
    )
    changes = last_changes(kube, history_ref(cluster, lock))
    unread = changes if isinstance(changes, str) else ""
    last = {} if isinstance(changes, str) else changes
    return Standing(found, lock_state(lease, ref, now), last, unread, now)


ClientVersion = tuple[str, str]
ClusterVersions = tuple[dict[str, Any] | None, tuple[CrdState, tuple[str, ...]] | None]


def client_version() -> ClientVersion:
    """The `version` command's first line: this driftctl's and Python's."""
    return (__version__, platform.python_version())


def cluster_versions(cluster: Cluster | None, notice: Notice) -> ClusterVersions:
    """The rest of `version`, with a cluster: the API server's build and the WebApp CRD it
    has against this driftctl's (nothing read without one)."""
    if cluster is None:
        return (None, None)
    kube = open_cluster(cluster, notice)
    server = kube.send(r.server_version())
    installed = kube.send_unless_missing(r.get_crd())
    return (server, (crd_state(installed, webapp_crd()), crd_versions(installed)))


def saved(path: Path) -> SavedPlan:
    """The `show` command: a saved plan, read and checked as `apply --plan` reads it."""
    return parse_saved_plan(read_plan_file(path), str(path))
