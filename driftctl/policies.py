"""The grammar of the controls a person sets: policy values, suspensions, prune approvals.

What each value may be, and how an annotation's text is read, in one place: the flags
(settings), the WebApps in Git (core.source.validate) and the live objects
(core.planning.controls) all parse here, so a value is refused with the same words
wherever it is written. What a control then does to a plan is core.planning.controls'.

- Per WebApp, from Git (annotations, validated with file and line) or from a flag for the
  whole instance: what happens to Git's own changes (`apply` | `hold`), to drift made in
  the cluster (`correct` | `warn` | `off`), and to a WebApp Git no longer declares
  (`delete` | `orphan` | `confirm` | `quarantine`).
- A suspension, on a live WebApp or on the instance's run-lock Lease, set with one
  `kubectl annotate`: `reason`, or `until=TIME; by=WHO; reason=TEXT` (any of the three;
  TIME in RFC 3339 with its zone). After `until` it lapses by itself.
- A prune approval, on a live WebApp: `<uid>@<revision>`, the object's uid and the Git
  revision that removed it, so an approval cannot serve another object or another removal.

Pure; below the settings and the core (it knows only conventions and time formats).
"""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass

from driftctl import conventions as c


class ChangePolicy(enum.StrEnum):
    """What a run does with Git's own changes of a WebApp."""

    APPLY = "apply"
    HOLD = "hold"  # left unapplied, and reported, until the policy says apply


class DriftPolicy(enum.StrEnum):
    """What a run does with drift made in the cluster."""

    CORRECT = "correct"  # reverted to Git
    WARN = "warn"  # reported (plan, status, Event, metric), never written
    OFF = "off"  # neither reported nor written


class PrunePolicy(enum.StrEnum):
    """What a run does with a WebApp Git no longer declares."""

    DELETE = "delete"  # deleted, its Deployment with it (cleanup)
    ORPHAN = "orphan"  # deleted; its Deployment stays, released from ownership and labels
    CONFIRM = "confirm"  # deleted once approved (an approval naming its uid and removal)
    QUARANTINE = "quarantine"  # its Deployment scaled to zero; deleted after a grace period


class Propagation(enum.StrEnum):
    """How a delete of driftctl's reaches what the deleted object owns (DeleteOptions)."""

    BACKGROUND = "background"
    FOREGROUND = "foreground"

    @property
    def api(self) -> str:
        """The value DeleteOptions.propagationPolicy takes."""
        return self.value.capitalize()


# The Git annotations that choose a policy, and the values each takes.
GIT_POLICIES: dict[str, type[enum.StrEnum]] = {
    c.CHANGE_POLICY_ANNOTATION: ChangePolicy,
    c.DRIFT_POLICY_ANNOTATION: DriftPolicy,
    c.PRUNE_POLICY_ANNOTATION: PrunePolicy,
}


def choices(values: type[enum.StrEnum]) -> str:
    """`apply | hold`: the values a policy takes, as messages list them."""
    return " | ".join(values)


def policy_problem(key: str, value: object) -> str | None:
    """Why `value` cannot be the Git annotation `key`'s policy, or None (other keys: None)."""
    values = GIT_POLICIES.get(key)
    if values is None:
        return None
    if value not in tuple(values):
        return f"must be one of {choices(values)}, got {value!r}"
    return None


@dataclass(frozen=True)
class Suspension:
    """A suspension as a live annotation states it.

    `problem` is set when the text could not be read: such a suspension is still one (a
    person asked to stop), without an end, and every message says what was wrong.
    """

    reason: str = ""
    until: datetime.datetime | None = None
    by: str = ""
    problem: str | None = None

    @classmethod
    def parse(cls, text: str) -> Suspension:
        """`reason`, or `until=TIME; by=WHO; reason=TEXT` (module docstring)."""
        parts = [part.strip() for part in text.split(";") if part.strip()]
        if len(parts) == 1 and "=" not in parts[0]:
            return cls(reason=parts[0])
        fields: dict[str, str] = {}
        for part in parts:
            key, equals, value = part.partition("=")
            key = key.strip()
            if not equals or key not in ("until", "by", "reason") or key in fields:
                return cls(reason=text.strip(), problem=_SHAPE)
            fields[key] = value.strip()
        try:
            until = _time(fields["until"]) if "until" in fields else None
        except ValueError as bad:
            return cls(fields.get("reason", ""), None, fields.get("by", ""), str(bad))
        return cls(fields.get("reason", ""), until, fields.get("by", ""))

    def active(self, now: datetime.datetime) -> bool:
        """Whether it still holds at `now` (one that cannot be read always does)."""
        return self.problem is not None or self.until is None or now < self.until

    @property
    def text(self) -> str:
        """`suspended until 2026-12-01 18:00 UTC by ops: incident 4711`."""
        out = "suspended"
        if self.until is not None:
            out += f" until {self.until.astimezone(datetime.UTC):%Y-%m-%d %H:%M:%S} UTC"
        if self.by:
            out += f" by {self.by}"
        if self.reason:
            out += f": {self.reason}"
        if self.problem is not None:
            out += f" (the annotation cannot be read: {self.problem}; it holds until removed)"
        return out


_SHAPE = "write a reason, or until=TIME; by=WHO; reason=TEXT"


def _time(text: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"until {text!r} is not an RFC 3339 time") from None
    if moment.tzinfo is None:
        raise ValueError(f"until {text!r} needs its zone (Z or +01:00)")
    return moment


MIN_REVISION = 7  # an approval may name the revision by a prefix this long, as git shows it


@dataclass(frozen=True)
class Approval:
    """A prune approval: the uid of the object and the Git revision that removed it."""

    uid: str
    revision: str

    @classmethod
    def parse(cls, text: str) -> Approval | None:
        """`<uid>@<revision>`, or None when the text is not one."""
        uid, at, revision = text.strip().partition("@")
        if not at or not uid or len(revision) < MIN_REVISION:
            return None
        return cls(uid, revision)

    def approves(self, uid: str, revision: str) -> bool:
        """Whether it names this object and this removal (the revision, or a prefix of it)."""
        return self.uid == uid and bool(revision) and revision.startswith(self.revision)

    def __str__(self) -> str:
        return f"{self.uid}@{self.revision}"
