"""What `driftctl status` says of an instance, and `driftctl version` of a cluster.

Pure. `status` is decided from what the instance's two LISTs and its Lease already hold,
with no dry-run: per WebApp (of Git, or live), whether it is in sync with Git as plan's
first step finds it locally (core.planning.preparation.prepare: the prefilter; `drifted`
is what the prefilter cannot clear, `plan` says exactly how), ready or not and which
revision it was last applied at (its status). Plan's first step is made as a plan makes it,
at the time status read the Lease and with the instance's suspension the Lease states
(core.planning.controls.Situation), so every control a plan honours is honoured here: what
a control holds whole (a suspension, a removal waiting for its approval or its grace) is
`held`, with the control's reason. Who holds the run lock is core.api.lease's `lock_state`.

`version` compares the WebApp CRD installed in the cluster with the one this driftctl
generates (its schema, version by version).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from driftctl.core.planning.actions import (
    Cleanup,
    Confirm,
    Conflict,
    Create,
    Held,
    Orphan,
    Prune,
    Quarantine,
    Replace,
    Skip,
    Unchanged,
    Update,
)
from driftctl.core.planning.candidates import Candidate, Entry
from driftctl.core.planning.controls import Hold, Situation
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import Obj, ObjectKey, is_terminating
from driftctl.core.planning.preparation import prepare
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import Place
from driftctl.settings import Drift, Policy


class Sync(enum.StrEnum):
    """Where one WebApp stands against Git, as far as the LISTs tell (worst first)."""

    CONFLICT = "conflict"  # another owner's object under its name
    DELETING = "deleting"  # being deleted; its cleanup pending
    MISSING = "missing"  # declared in Git, absent from the cluster
    UNDECLARED = "not in Git"  # this instance's, Git no longer declares it
    DRIFTED = "drifted"  # differs from Git (plan says how)
    HELD = "held"  # differs from Git, and a control holds all of it (a suspension, a removal
    # waiting for its approval or its grace): the row's `held` says which
    IN_SYNC = "in sync"


_WORST_FIRST = tuple(Sync)


@dataclass(frozen=True)
class Row:
    """One WebApp of the instance: where it stands, and what its status says."""

    place: Place
    sync: Sync
    revision: str  # lastAppliedRevision, "" when none
    ready: bool | None  # None: no status (yet), or no WebApp
    available: int | None
    replicas: int | None  # the live spec's
    held: str = ""  # what holds it (the controls' reasons), when it is held


@dataclass(frozen=True)
class InstanceStatus:
    """The instance at a glance: Git's revision and each WebApp (its run lock is
    core.api.lease.lock_state's)."""

    instance: str
    source: str
    revision: str  # Git's label: SHA, <sha>-dirty, uncommitted
    rows: tuple[Row, ...]

    def count(self, sync: Sync) -> int:
        return sum(1 for row in self.rows if row.sync is sync)


def instance_status(
    desired: DesiredState,
    live: LiveState,
    *,
    instance: str,
    manager: str,
    drift: Drift,
    situation: Situation,
) -> InstanceStatus:
    """The status of `instance` from plan's local decisions, made in `situation` (the time
    status read the Lease, and the instance's suspension it states)."""
    preparation = prepare(
        desired.webapps,
        live,
        Stamp.of(desired, instance),
        Policy(),
        manager=manager,
        drift=drift,
        situation=situation,
    )
    declared = {app.place for app in desired.webapps}
    found: dict[Place, list[tuple[Sync, str]]] = {}
    for entry in preparation.entries:
        standing = _held(entry, preparation.holds) or (_sync(entry, declared), "")
        found.setdefault(entry.key.place, []).append(standing)
    rows = tuple(_row(place, found[place], live.webapps.get(place)) for place in sorted(found))
    return InstanceStatus(instance, desired.revision.source, desired.revision.label, rows)


_BY_TYPE: dict[type, Sync] = {
    Conflict: Sync.CONFLICT,
    Cleanup: Sync.DELETING,
    Create: Sync.MISSING,
    Prune: Sync.UNDECLARED,
    Orphan: Sync.UNDECLARED,
    Confirm: Sync.UNDECLARED,
    Quarantine: Sync.UNDECLARED,
    Unchanged: Sync.IN_SYNC,
    Update: Sync.DRIFTED,
    Replace: Sync.DRIFTED,
}


def _held(entry: Entry, holds: Mapping[ObjectKey, Hold]) -> tuple[Sync, str] | None:
    """An entry a control holds whole: a Held removal, or what its WebApp's hold covers."""
    if isinstance(entry, Held):
        return (Sync.HELD, entry.reason)
    hold = holds.get(entry.key)
    if hold is None or isinstance(entry, Unchanged | Conflict):
        return None
    return (Sync.HELD, hold.reason)


def _sync(entry: Entry, declared: set[Place]) -> Sync:
    if isinstance(entry, Candidate):
        return Sync.MISSING if entry.live is None else Sync.DRIFTED
    if isinstance(entry, Skip):
        if entry.changes:
            return Sync.DRIFTED  # a replace not allowed
        # Git no longer declares it and it stays (--no-prune, a guard, its opt-out), or
        # it is being deleted
        return Sync.UNDECLARED if entry.key.place not in declared else Sync.DELETING
    return _BY_TYPE.get(type(entry), Sync.DRIFTED)


def _row(place: Place, standings: Sequence[tuple[Sync, str]], webapp: Obj | None) -> Row:
    worst = min((sync for sync, _ in standings), key=_WORST_FIRST.index)
    held = "; ".join(dict.fromkeys(why for sync, why in standings if sync is Sync.HELD and why))
    if webapp is not None and is_terminating(webapp) and worst is not Sync.CONFLICT:
        worst = Sync.DELETING
    status = (webapp or {}).get("status") or {}
    replicas = ((webapp or {}).get("spec") or {}).get("replicas")
    ready = status.get("ready")
    available = status.get("available_replicas")
    return Row(
        place,
        worst,
        str(status.get("lastAppliedRevision") or ""),
        bool(ready) if ready is not None else None,
        int(available) if available is not None else None,
        int(replicas) if replicas is not None else None,
        held if worst is Sync.HELD else "",
    )


class CrdState(enum.StrEnum):
    """The WebApp CRD in the cluster, against the one this driftctl generates."""

    MISSING = "not installed"
    SAME = "installed, the schema of this driftctl"
    OTHER = "installed, another schema than this driftctl's"


def crd_state(installed: Mapping[str, Any] | None, generated: Mapping[str, Any]) -> CrdState:
    """Whether the installed CRD serves this driftctl's schema, version by version."""
    if installed is None:
        return CrdState.MISSING
    return CrdState.SAME if _schemas(installed) == _schemas(generated) else CrdState.OTHER


def _schemas(crd: Mapping[str, Any]) -> dict[str, Any]:
    versions = (crd.get("spec") or {}).get("versions") or []
    return {str(v.get("name")): (v.get("schema") or {}) for v in versions if v.get("served")}


def crd_versions(installed: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The versions the installed CRD serves (none when it is not installed)."""
    return tuple(_schemas(installed)) if installed is not None else ()
