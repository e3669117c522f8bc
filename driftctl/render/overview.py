"""`driftctl status` and `driftctl version` as text and JSON. Pure: returns strings.

Text is a table for a person, as `kubectl get` prints one; JSON is stable:

status:
    instance, source, revision (Git's: SHA, <sha>-dirty, uncommitted)
    lock       {lease, holder (or null), expires, expired, lastRun}: times RFC 3339
    summary    {sync: count} for each of in sync, held, drifted, missing, not in Git,
               conflict, deleting
    webapps    one per WebApp: namespace, name, sync, revision, ready, available, replicas,
               held (what holds it, or null), lastChange (its last change the history
               records, as `history -o json` writes an entry, or null)
version:
    client     {driftctl, python}
    server     {gitVersion, platform} or null (--client)
    crd        {name, state, versions} or null (--client)
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from driftctl import conventions as c
from driftctl.core.api.lease import LockState
from driftctl.core.history.query import Entry
from driftctl.core.planning.overview import CrdState, InstanceStatus, Row, Sync
from driftctl.core.source.model import Place
from driftctl.kube_formats import api_time
from driftctl.render.history import entry_json, last_change_cell
from driftctl.render.style import Style

_SYNC_COLOURS = {
    Sync.IN_SYNC: "green",
    Sync.DRIFTED: "yellow",
    Sync.HELD: "blue",
    Sync.MISSING: "yellow",
    Sync.UNDECLARED: "yellow",
    Sync.CONFLICT: "red",
    Sync.DELETING: "cyan",
}
_HEADER = ("NAMESPACE", "NAME", "SYNC", "READY", "AVAILABLE", "REVISION", "LAST CHANGE")


@dataclass(frozen=True)
class Changes:
    """Each WebApp's last change the instance's history records, and the time of the read
    (how long ago each was)."""

    last: Mapping[Place, Entry] = field(default_factory=dict)
    now: datetime.datetime | None = None


def status_text(
    status: InstanceStatus,
    lock: LockState,
    style: Style | None = None,
    changes: Changes | None = None,
) -> str:
    """The instance's revision and lock, then one row per WebApp, then a summary line."""
    style = style or Style()
    changes = changes or Changes()
    lines = [
        f"Instance {status.instance}: Git {status.source} at {_short(status.revision)}",
        f"Lock: {_lock_text(lock)}",
        "",
    ]
    table = [_HEADER, *(_cells(row, changes) for row in status.rows)]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(_HEADER))]
    for index, cells in enumerate(table):
        padded = [cell.ljust(width) for cell, width in zip(cells, widths, strict=True)]
        if index:
            row = status.rows[index - 1]
            padded[2] = style.paint(padded[2], _SYNC_COLOURS[row.sync])
        lines.append("  ".join(padded).rstrip())
    if not status.rows:
        lines[-1:] = ["No WebApps: Git declares none and the instance has none."]
    held = [row for row in status.rows if row.held]
    if held:
        lines.append("")
        lines += [f"{row.place.namespace}/{row.place.name} is held: {row.held}" for row in held]
    counts = [f"{status.count(sync)} {sync}" for sync in reversed(Sync) if status.count(sync)]
    lines += ["", "Status: " + (", ".join(counts) or "nothing")]
    return "\n".join(lines) + "\n"


def _cells(row: Row, changes: Changes) -> tuple[str, ...]:
    ready = "-" if row.ready is None else ("yes" if row.ready else "no")
    available = "-" if row.available is None else f"{row.available}/{row.replicas or 0}"
    return (
        row.place.namespace,
        row.place.name,
        str(row.sync),
        ready,
        available,
        _short(row.revision) or "-",
        _last(row.place, changes),
    )


def _last(place: Place, changes: Changes) -> str:
    entry = changes.last.get(place)
    return last_change_cell(entry, changes.now) if changes.now else "-"


def _short(revision: str) -> str:
    sha, dirty, rest = revision.partition("-")
    return sha[:12] + dirty + rest if len(sha) == 40 else revision


def _lock_text(lock: LockState) -> str:
    last = f"; the last run took it at {api_time(lock.last_run)}" if lock.last_run else ""
    if lock.holder is None:
        return f"{lock.lease} is free{last}"
    until = f" until {api_time(lock.expires)}" if lock.expires else ""
    if lock.expired:
        return (
            f"{lock.lease} is held by {lock.holder}, expired{until.replace(' until', ' at')} "
            "(the run stopped: the next run takes it over; driftctl unlock frees it)"
        )
    return f"{lock.lease} is held by {lock.holder}{until}{last}"


def status_json(status: InstanceStatus, lock: LockState, changes: Changes | None = None) -> str:
    """The status as stable JSON (keys in the module docstring)."""
    last = (changes or Changes()).last
    document = {
        "instance": status.instance,
        "source": status.source,
        "revision": status.revision,
        "lock": {
            "lease": lock.lease,
            "holder": lock.holder,
            "expires": _time(lock.expires),
            "expired": lock.expired,
            "lastRun": _time(lock.last_run),
        },
        "summary": {str(sync): status.count(sync) for sync in reversed(Sync)},
        "webapps": [
            {
                "namespace": row.place.namespace,
                "name": row.place.name,
                "sync": str(row.sync),
                "revision": row.revision,
                "ready": row.ready,
                "available": row.available,
                "replicas": row.replicas,
                "held": row.held or None,
                "lastChange": entry_json(last[row.place]) if row.place in last else None,
            }
            for row in status.rows
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _time(moment: datetime.datetime | None) -> str | None:
    return api_time(moment) if moment else None


def version_document(
    client: str,
    python: str,
    server: dict[str, Any] | None,
    crd: tuple[CrdState, tuple[str, ...]] | None,
) -> dict[str, Any]:
    """What `version` found, as the JSON it prints."""
    return {
        "client": {"driftctl": client, "python": python},
        "server": None
        if server is None
        else {
            "gitVersion": server.get("gitVersion", ""),
            "platform": server.get("platform", ""),
        },
        "crd": None
        if crd is None
        else {
            "name": c.CRD_NAME,
            "state": str(crd[0]),
            "versions": list(crd[1]),
        },
    }


def client_version_text(document: dict[str, Any]) -> str:
    """`Client: driftctl 0.1.0 (Python 3.11.7)`: `version` prints it before it reads the
    cluster, whose lines (cluster_version_text) follow."""
    client = document["client"]
    return f"Client: driftctl {client['driftctl']} (Python {client['python']})\n"


def cluster_version_text(document: dict[str, Any]) -> str:
    """The server's and the CRD's lines, when read (empty when not)."""
    lines = []
    if document["server"] is not None:
        server = document["server"]
        lines.append(f"Server: Kubernetes {server['gitVersion']} ({server['platform']})")
    if document["crd"] is not None:
        crd = document["crd"]
        served = f" (serves {', '.join(crd['versions'])})" if crd["versions"] else ""
        lines.append(f"CRD: {crd['name']} {crd['state']}{served}")
        if crd["state"] != str(CrdState.SAME):
            lines.append(
                "     install this driftctl's: driftctl crd | kubectl apply --server-side -f -"
            )
    return "".join(f"{line}\n" for line in lines)


def version_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2) + "\n"
