"""WebApps stuck in deletion, why when it can be told, and which of them driftctl may
release (`doctor --release-finalizers`).

Pure. A WebApp is stuck when it carries driftctl's finalizer and was deleted longer ago
than --stuck-after: a run cleans a deleted WebApp up at once (it deletes its Deployment,
then removes the finalizer), so one still there means no run could. What can be told:
its Deployment is another owner's (a run leaves it, and releases the WebApp), or is
itself held (its own finalizers), or the account may not do what cleanup does, or no run
has taken the lock since the deletion.

Releasing removes driftctl's finalizer alone, with the guarded JSON Patch a run's cleanup
sends (core.planning.finalizers.remove_patch: it `test`s the index first), only from a
WebApp of this instance being deleted, and only after the proofs a prune asks
(core.planning.guards.protected: this instance's label, no prune opt-out) and the marks
driftctl leaves on what it applied (core.planning.owners.made_by_us: its managed-by label
and its own server-side apply in managedFields; a person copying labels makes none). Its
Deployment, when the WebApp owns it, goes with it (the garbage collector follows the
ownerReference); another owner's stays.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.doctor.findings import Finding, fail, ok
from driftctl.core.planning.finalizers import Patch, has_finalizer, remove_patch
from driftctl.core.planning.guards import protected
from driftctl.core.planning.objects import Obj, is_terminating, key_of, labels_of, metadata, uid
from driftctl.core.planning.owners import deployment_conflict, made_by_us
from driftctl.durations import text as duration_text
from driftctl.kube_formats import api_time, parse_api_time

CHECK = "finalizers"
RELEASE = "driftctl doctor --release-finalizers"


@dataclass(frozen=True)
class Stuck:
    """A WebApp deleted longer ago than the bound, still holding driftctl's finalizer."""

    webapp: Obj
    since: datetime.datetime

    @property
    def display(self) -> str:
        return key_of(self.webapp).display


def stuck(webapps: Iterable[Obj], now: datetime.datetime, bound: float) -> list[Stuck]:
    """The WebApps (of any instance) stuck in deletion, oldest deletion first."""
    found = []
    for webapp in webapps:
        deleted = parse_api_time(metadata(webapp).get("deletionTimestamp"))
        if deleted is None or not has_finalizer(webapp):
            continue
        if (now - deleted).total_seconds() >= bound:
            found.append(Stuck(webapp, deleted))
    return sorted(found, key=lambda each: (each.since, each.display))


def is_instances(webapp: Obj, instance: str) -> bool:
    return labels_of(webapp).get(c.INSTANCE_LABEL) == instance


@dataclass(frozen=True)
class Seen:
    """What else `doctor` read that may say why a WebApp is stuck."""

    deployments: Mapping[str, Obj | None]  # by the WebApp's display: its name's Deployment
    last_run: datetime.datetime | None  # when the last run took the lock
    refused: Sequence[str] = ()  # what the account may not do that cleanup does


def verdicts(
    found: Sequence[Stuck], instance: str, seen: Seen, now: datetime.datetime, bound: float
) -> list[Finding]:
    """One failure per stuck WebApp of this instance, saying why when it can; else one ok."""
    ours = [each for each in found if is_instances(each.webapp, instance)]
    if not ours:
        over = duration_text(datetime.timedelta(seconds=bound))
        line = f"no WebApp of instance {instance} deleted over {over} ago holds {c.FINALIZER}"
        return [ok(CHECK, line)]
    return [
        fail(
            CHECK,
            f"{each.display} is stuck: deleted at {api_time(each.since)} "
            f"({_age(each.since, now)} ago), it still holds {c.FINALIZER}; "
            f"{why(each, instance, seen)}",
            _fix(seen, instance),
        )
        for each in ours
    ]


def _fix(seen: Seen, instance: str) -> str:
    """What releases a stuck WebApp: a run, once it may; or doctor's release."""
    release = f"{RELEASE} --instance {instance}"
    if seen.refused:
        granted = "grant the run what it may not (see permissions): its next run cleans it up"
        return f"{granted}; or {release}"
    return f"driftctl apply (a run cleans it up), or {release}"


def why(each: Stuck, instance: str, seen: Seen) -> str:
    """What can be told of why no run released it."""
    reasons = []
    deployment = seen.deployments.get(each.display)
    name = key_of(each.webapp).name
    if deployment is not None:
        conflict = deployment_conflict(deployment, name, uid(each.webapp), instance)
        held = metadata(deployment).get("finalizers") or []
        if conflict is not None:
            reasons.append(f"its Deployment {conflict.split(';')[0]}: a run leaves it as it is")
        elif held:
            reasons.append(f"its Deployment is held by its own finalizers {', '.join(held)}")
    reasons += [f"the run may not {each}" for each in seen.refused]
    # deletionTimestamp is to the second: a run within that second may be before it.
    if seen.last_run is None or seen.last_run < each.since + datetime.timedelta(seconds=1):
        last = api_time(seen.last_run) if seen.last_run else "never"
        reasons.append(f"no run took the lock since it was deleted (last: {last})")
    return "; ".join(reasons) or "its cleanup keeps failing: see the WebApp's Events"


def _age(since: datetime.datetime, now: datetime.datetime) -> str:
    return duration_text(datetime.timedelta(seconds=max(int((now - since).total_seconds()), 0)))


@dataclass(frozen=True)
class Release:
    """What releasing one stuck WebApp is: its patch, or why it is refused."""

    webapp: Obj
    patch: Patch | None
    refusal: str | None = None

    @property
    def display(self) -> str:
        return key_of(self.webapp).display


def release(webapp: Obj, instance: str, manager: str = c.FIELD_MANAGER) -> Release:
    """Whether driftctl may release `webapp` and with which patch (module docstring)."""
    refusal = _refusal(webapp, instance, manager)
    if refusal is not None:
        return Release(webapp, None, refusal)
    return Release(webapp, remove_patch(webapp))


def _refusal(webapp: Obj, instance: str, manager: str) -> str | None:
    other = labels_of(webapp).get(c.INSTANCE_LABEL)
    if other and other != instance:
        return f"belongs to instance {other}: its own doctor releases it"
    guarded = protected(webapp, instance)
    if guarded is not None:
        return guarded
    if not is_terminating(webapp):
        return "is not being deleted"
    if not made_by_us(webapp, instance, manager):
        return (
            f"driftctl cannot prove it applied it (no {c.MANAGED_BY_LABEL}={c.MANAGED_BY_VALUE} "
            f"label or no server-side apply of field manager {manager}); never released"
        )
    if remove_patch(webapp) is None:
        return f"does not hold {c.FINALIZER}"
    return None


def what_goes(webapp: Obj, deployment: Obj | None, instance: str) -> str:
    """What happens to the WebApp's Deployment once it is released."""
    if deployment is None:
        return "it had no Deployment left"
    key = key_of(deployment).display
    if uid(webapp) and uid(webapp) in {
        str(ref.get("uid")) for ref in metadata(deployment).get("ownerReferences") or []
    }:
        return f"{key} goes with it (its ownerReference)"
    return f"{key} is another owner's and stays"
