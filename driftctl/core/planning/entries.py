"""The entry of one declared object the cluster holds: unchanged, or what the server's
dry-runs are asked about, decided without the server.

Pure. For a WebApp Git declares and the cluster holds (`webapp_entry`), and for its
Deployment (`deployment_entry`), after what the controls leave or hold
(core.planning.holding), the local prefilter (core.planning.prefilter) says: Unchanged
when nothing can change, else a Candidate. A Deployment whose selector is not driftctl's
is adopted with its own selector, or replaced with --recreate (core.planning.predicted).

Drift (settings.Drift): before the prefilter, each object's ignored fields are followed
(core.planning.ignoring) and its fields set outside Git found (core.planning.outside_git);
those become a guarded revert that is dry-run beside the apply. Objects of another owner
are conflicts (core.planning.owners); a change that corrects drift already corrected in
earlier runs, by the same manager, is counted as a fight (core.planning.fights).

Every decision reads the run's rules (`Run`). Must not pair desired with live objects nor
choose which WebApps are planned (core.planning.preparation), and must not talk to the
cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning import fights, ignoring, owners
from driftctl.core.planning.actions import Conflict, Skip, Unchanged
from driftctl.core.planning.candidates import Candidate, Entry, FieldNotes
from driftctl.core.planning.changes import Kept
from driftctl.core.planning.controls import TIMELESS, Situation
from driftctl.core.planning.guards import is_ours
from driftctl.core.planning.holding import Leave, drift_left, held_stamp, last_applied, marked
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import (
    Stamp,
    build_deployment,
    keeping_selector,
    selector_text,
    webapp_manifest,
)
from driftctl.core.planning.normalize import equal
from driftctl.core.planning.objects import Obj, annotations_of, is_terminating, key_of, uid
from driftctl.core.planning.outside_git import field_revert, outside_git
from driftctl.core.planning.predicted import replace_locally
from driftctl.core.planning.prefilter import needs_server_check
from driftctl.core.source.model import WebApp
from driftctl.settings import Drift, Policy

ADOPTED = "made without an instance label, declared in Git"


@dataclass(frozen=True)
class Run:
    """What every decision of one plan reads: the stamp, the flags, the field manager, and
    what the controls are decided against (the time, the instance's suspension)."""

    stamp: Stamp
    policy: Policy
    drift: Drift
    manager: str
    situation: Situation = TIMELESS


@dataclass(frozen=True)
class Holding:
    """What the controls do to one object's entry. `leave`: its drift stays as the cluster
    has it (core.planning.holding.drift_left); `held`: Git's changes a hold keeps out,
    reported beside what the object keeps."""

    leave: Leave | None = None
    held: tuple[Kept, ...] = ()


@dataclass(frozen=True)
class _Grounds:
    """What an entry is decided on besides Git's manifest and the live object: the fields
    its ignore rules follow, Git's previous declaration (what Git changed, against drift),
    the corrections counted so far, why it changes, and whether it is adopted (not this
    instance's yet)."""

    ignored: ignoring.Ignored
    previous: Obj
    record: fights.Record
    reason: str = ""
    adopting: bool = False


def webapp_entry(
    manifest: Obj, live: Obj, app: WebApp, run: Run, holding: Holding, *, adopted: bool
) -> Entry:
    """The entry of a declared WebApp the cluster holds as `live` (`adopted`: found without
    this instance's label)."""
    rules = (*run.drift.ignore, *app.ignore)
    ignored = ignoring.ignored_fields(live, manifest, rules, run.drift, run.manager)
    reason = ADOPTED if adopted else _restored(live)
    previous = manifest  # the WebApp is Git's declaration: what it keeps is never Git's change
    leave = holding.leave
    if leave is not None:  # but drift left as it is: Git as last applied tells Git's changes
        applied = last_applied(live, app, run.manager)
        previous = webapp_manifest(applied, held_stamp(run.stamp, live))
    grounds = _Grounds(ignored, previous, fights.record_of(live), reason, adopting=adopted)
    return _apply_entry(manifest, live, run, grounds, holding)


def _restored(live: Obj) -> str:
    """Why a WebApp whose removal was pending (confirm, quarantine) changes: it is back."""
    if c.REMOVED_IN_ANNOTATION in annotations_of(live):
        return "back in Git: its pending removal is dropped"
    return ""


def deployment_entry(
    app: WebApp, owner: Obj, live: Obj | None, state: LiveState, run: Run, *, holding: Holding
) -> Entry:
    """The entry of the Deployment of `app`, whose WebApp the cluster holds as `owner`."""
    manifest = build_deployment(app, run.stamp.instance, uid(owner))
    key = key_of(manifest)
    if live is None:
        return Candidate(key, manifest, None)
    conflict = owners.deployment_conflict(
        live, app.name, uid(owner), run.stamp.instance, run.manager
    )
    if conflict is not None:
        return Conflict(key, conflict)
    if is_terminating(live):
        return Skip(key, "being deleted; the next run creates it again")
    reason, adopting = "", False
    if not equal(_selector(live), _selector(manifest)):
        if run.policy.recreate:
            return replace_locally(manifest, live, run.manager)
        manifest = keeping_selector(manifest, live)
        adopting = not is_ours(live, run.stamp.instance)
        reason = _kept_selector(live) if adopting else ""
    rules = (*run.drift.ignore, *app.ignore)
    scaler = state.autoscalers.get(app.place)
    ignored = ignoring.ignored_fields(
        live, manifest, rules, run.drift, run.manager, autoscaler=scaler
    )
    before, leave = manifest, holding.leave
    if ignored or leave is not None:  # Git as last applied tells whether Git changed a field
        previous = ignoring.previous_declaration(owner, app, run.manager)
        before = build_deployment(previous, run.stamp.instance, uid(owner))
        if not equal(_selector(live), _selector(before)):
            before = keeping_selector(before, live)
    reason = reason or _restored(owner)
    grounds = _Grounds(ignored, before, fights.record_of(owner), reason, adopting)
    return _apply_entry(manifest, live, run, grounds, holding)


def _kept_selector(live: Obj) -> str:
    """Why a Deployment is adopted with its own selector."""
    return (
        f"its WebApp controls it; its selector {selector_text(_selector(live) or {})} and "
        "Pod template are "
        "kept, so no Pod restarts (--recreate moves it to driftctl's selector)"
    )


def _apply_entry(manifest: Obj, live: Obj, run: Run, grounds: _Grounds, holding: Holding) -> Entry:
    """Unchanged when nothing can change; else a candidate for the server's dry-runs (an
    adoption's, when `grounds.adopting`: the object is not this instance's yet)."""
    ignored, leave = grounds.ignored, holding.leave
    followed_fields, outside_fields = ignored, ignored
    if leave is not None:
        followed_fields = (*ignored, *drift_left(manifest, ignored, leave.reason))
        outside_fields = (*ignored, ((), leave.reason))
    followed = ignoring.follow(manifest, live, followed_fields, grounds.previous, run.manager)
    outside = outside_git(live, followed.manifest, run.drift, run.manager, outside_fields)
    revert = field_revert(live, outside)
    check = needs_server_check(followed.manifest, live, run.manager)
    followed_paths = {each.path for each in followed.kept}  # a field is kept once
    kept = followed.kept + tuple(k for k in outside.kept if k.path not in followed_paths)
    if leave is not None:
        kept = marked(kept, leave.reason, leave.control)
    kept += holding.held
    key = key_of(manifest)
    if not check and revert is None:
        return Unchanged(key, kept=kept, foreign=outside.foreign)
    kind = key.kind
    corrections = {name: entry for (of, name), entry in grounds.record.items() if of == kind}
    applied = followed.applied
    if leave is not None:  # a field Git changed is simply applied, drift left or not
        applied = tuple(each for each in applied if not each[1].startswith(leave.reason))
    notes = FieldNotes(kept, outside.foreign, applied, corrections, grounds.reason)
    return Candidate(key, followed.manifest, live, revert, check, notes, grounds.adopting)


def _selector(obj: Obj) -> Obj | None:
    selector: Obj | None = (obj.get("spec") or {}).get("selector")
    return selector
