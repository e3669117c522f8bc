"""What a hold does to a WebApp's plan (core.planning.controls decides which holds there are).

Pure. Three ways, each decided before the dry-runs, so that what `plan` asks the server is
what `apply` sends:

- Git's changes held, drift still corrected: the WebApp is planned as Git last declared it
  (`held_declaration`: the fields driftctl owns on the live WebApp, which hold Git's values
  as last applied; Git's policy and ignore annotations are always Git's current ones, so a
  policy change from Git is never itself held), with the stamp it already carries. What Git
  changed since is reported as kept fields marked held (`held_changes`).
- Drift held (warn, a window) or off, Git's changes still applied: every field Git declares
  is followed as an ignored field is (core.planning.ignoring: a field Git did not change
  keeps the cluster's value, one Git changed is applied), and fields set outside Git are
  kept (`drift_left`); what stays is reported as kept fields, marked held unless drift is off.
- Whole objects: a suspension, or both kinds held, holds every write of the object
  (`controlled`), which is planned as usual first, so the plan says what would be done.
  An unchanged object with held fields is a hold too: the cluster differs from Git.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.actions import (
    Action,
    Cleanup,
    Held,
    Plan,
    Unchanged,
    changes_of,
    is_changing,
    kept_of,
)
from driftctl.core.planning.changes import Kept
from driftctl.core.planning.controls import (
    AppControls,
    Control,
    Hold,
    Situation,
    of_declared,
    of_removal,
)
from driftctl.core.planning.ignoring import Ignored, previous_declaration
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.planning.normalize import STAMP_ANNOTATIONS, equal
from driftctl.core.planning.objects import Obj, ObjectKey, annotations_of
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import WebApp
from driftctl.settings import Policy

# Annotations that say how driftctl treats a WebApp: always Git's current value, never held.
GIT_CONTROLS = (
    c.IGNORE_ANNOTATION,
    c.CHANGE_POLICY_ANNOTATION,
    c.DRIFT_POLICY_ANNOTATION,
    c.PRUNE_POLICY_ANNOTATION,
)


def last_applied(live: Obj, app: WebApp, manager: str) -> WebApp:
    """`app` as Git declared it when driftctl last applied it: the live WebApp's fields that
    driftctl still owns (ignoring.previous_declaration), its annotations included."""
    previous = previous_declaration(live, app, manager)
    owned = fs.owned_fields(live, manager, c.API_VERSION)
    annotations = {
        key: value
        for key, value in annotations_of(live).items()
        if ("f:metadata", "f:annotations", f"f:{key}") in owned and key not in STAMP_ANNOTATIONS
    }
    return dataclasses.replace(previous, annotations=annotations)


def held_declaration(live: Obj, app: WebApp, manager: str) -> WebApp:
    """`app` as Git last declared it (the live WebApp's own fields), with Git's controls."""
    previous = last_applied(live, app, manager)
    kept = {k: v for k, v in previous.annotations.items() if k not in GIT_CONTROLS}
    controls = {key: value for key, value in app.annotations.items() if key in GIT_CONTROLS}
    return dataclasses.replace(previous, annotations={**kept, **controls})


def held_stamp(stamp: Stamp, live: Obj) -> Stamp:
    """The stamp a WebApp whose Git changes are held keeps: the commit it was last written at."""
    annotations = annotations_of(live)
    return dataclasses.replace(
        stamp,
        revision=annotations.get(c.REVISION_ANNOTATION, stamp.revision),
        source=annotations.get(c.SOURCE_ANNOTATION, stamp.source),
    )


def held_changes(git: Obj, held: Obj, hold: Hold) -> tuple[Kept, ...]:
    """Each field Git changed since the last apply (`git` against `held`), kept as it was."""
    now, before = fs.leaves(git), fs.leaves(held)
    stamps = {("f:metadata", "f:annotations", f"f:{key}") for key in STAMP_ANNOTATIONS}
    out = []
    for path in sorted((set(now) | set(before)) - stamps):
        if path in now and path in before and equal(now[path], before[path]):
            continue
        out.append(
            Kept(fs.display_path(path), hold.reason, before.get(path), now.get(path), hold.control)
        )
    return tuple(out)


@dataclass(frozen=True)
class HeldChanges:
    """Git's changes a hold keeps out of the WebApp and of its Deployment, as kept fields."""

    webapp: tuple[Kept, ...] = ()
    deployment: tuple[Kept, ...] = ()

    @classmethod
    def of(cls, git: WebApp, held: WebApp, owner: str, stamp: Stamp, hold: Hold) -> HeldChanges:
        """What Git declares (`git`) against what stays (`held`), the WebApp of uid `owner`."""
        return cls(
            held_changes(webapp_manifest(git, stamp), webapp_manifest(held, stamp), hold),
            held_changes(
                build_deployment(git, stamp.instance, owner),
                build_deployment(held, stamp.instance, owner),
                hold,
            ),
        )


@dataclass(frozen=True)
class Leave:
    """Drift left as the cluster has it: why, and the control that holds it ("": off)."""

    reason: str
    control: str

    @classmethod
    def of(cls, controls: AppControls) -> Leave | None:
        if controls.drift is not None:
            return cls(controls.drift.reason, controls.drift.control)
        return cls(controls.drift_off, "") if controls.drift_off else None


def drift_hold(controls: AppControls) -> Hold | None:
    """What holds a correction of drift that is a whole object (one deleted in the cluster)."""
    if controls.drift is not None:
        return controls.drift
    return Hold(Control.DRIFT, controls.drift_off) if controls.drift_off else None


def drift_left(manifest: Obj, ignored: Ignored, reason: str) -> Ignored:
    """Every field `manifest` declares that no ignore rule names yet, left as the cluster
    has it unless Git changed it (as ignoring.follow does with ignored fields)."""
    covered = [path for path, _why in ignored]
    return tuple(
        (leaf, reason)
        for leaf in sorted(fs.fieldset(manifest))
        if not any(leaf[: len(path)] == path for path in covered)
    )


def marked(kept: tuple[Kept, ...], reason: str, control: str) -> tuple[Kept, ...]:
    """The kept fields `reason` keeps, marked held by `control` ("" : not a hold, drift off)."""
    return tuple(
        dataclasses.replace(each, held=control) if each.reason == reason else each for each in kept
    )


def controlled(action: Action, holds: Mapping[ObjectKey, Hold]) -> Action:
    """`action`, or a Held one: an object a control holds whole, or one left unchanged only
    because its differences are held."""
    hold = holds.get(action.key)
    if hold is not None and is_changing(action) and _holds(hold, action):
        return Held(
            action.key,
            hold.reason,
            action.verb,
            hold.control,
            changes_of(action),
            kept_of(action),
        )
    if isinstance(action, Unchanged):
        held = [each for each in action.kept if each.held]
        if held:
            reason = "; ".join(dict.fromkeys(each.reason for each in held))
            return Held(action.key, reason, Verb.UPDATE, held[0].held, kept=action.kept)
    return action


def _holds(hold: Hold, action: Action) -> bool:
    """A pending cleanup (a delete a person asked for) is held by a suspension only: a
    WebApp deleted in the cluster is cleaned up, even while its creation again (drift) waits."""
    return not isinstance(action, Cleanup) or hold.control in (Control.INSTANCE, Control.SUSPEND)


def held_counts(plan: Plan) -> tuple[tuple[str, int], ...]:
    """How many objects each kind of control holds in `plan`, whole or some of their fields
    (every kind, zeros included)."""
    counts = dict.fromkeys(Control, 0)
    for action in plan.actions:
        held = [kept.held for kept in kept_of(action) if kept.held]
        if isinstance(action, Held):
            counts[Control(action.control)] += 1
        elif held:  # written, but some of its fields are held
            counts[Control(held[0])] += 1
    return tuple((str(control), count) for control, count in counts.items())


@dataclass(frozen=True)
class Summary:
    """What a WebApp's chain holds, as its status condition and Event say it."""

    control: Control
    message: str

    @property
    def reason(self) -> str:
        """The CamelCase reason of the condition and the Event."""
        return _REASONS[self.control]


_REASONS = {
    Control.INSTANCE: "InstanceSuspended",
    Control.SUSPEND: "Suspended",
    Control.CHANGES: "ChangesHeld",
    Control.DRIFT: "DriftHeld",
    Control.WINDOW: "WindowClosed",
    Control.REMOVAL: "RemovalPending",
}


def held_summary(actions: Sequence[Action]) -> Summary | None:
    """What `actions` (one WebApp's) hold: whole objects, and fields of those still applied."""
    parts: dict[str, None] = {}
    controls: list[str] = []
    for action in actions:
        fields = [kept for kept in kept_of(action) if kept.held]
        if isinstance(action, Held) and not fields:
            parts[f"{action.key.display}: {action.would} held: {action.reason}"] = None
            controls.append(action.control)
        for kept in fields:  # the same words whether the rest of the object is written or not
            values = f"{_shown(kept.live)} here, {_shown(kept.git)} in Git"
            parts[f"{action.key.display} {kept.path} ({values}): {kept.reason}"] = None
            controls.append(kept.held)
    if not parts:
        return None
    return Summary(Control(controls[0]), "; ".join(parts))


def holds_now(
    desired: Sequence[WebApp],
    live: LiveState,
    policy: Policy,
    situation: Situation,
    manager: str,
) -> dict[ObjectKey, Hold]:
    """What holds each object whole at `situation`, for a plan made earlier (a saved plan):
    a suspension, or a window closed now on anything of it (more than a fresh plan would
    hold, never less). The policies of Git and the flags were the plan's already."""
    out: dict[ObjectKey, Hold] = {}
    for app in desired:
        found = of_declared(app, live.webapps.get(app.place), policy, situation)
        windows = [h for h in (found.changes, found.drift) if h and h.control is Control.WINDOW]
        hold = found.whole if found.whole and found.whole.control != Control.CHANGES else None
        hold = hold or (windows[0] if windows else None)
        if hold is not None:
            out |= dict.fromkeys(_keys(app.namespace, app.name), hold)
    wanted = {app.place for app in desired}
    for place, obj in live.webapps.items():
        if place not in wanted:
            removal = of_removal(obj, policy, situation, manager).hold
            if removal is not None:
                out |= dict.fromkeys(_keys(*place), removal)
    return out


def _keys(namespace: str, name: str) -> tuple[ObjectKey, ObjectKey]:
    return ObjectKey(c.KIND, namespace, name), ObjectKey(c.DEPLOYMENT_KIND, namespace, name)


_SHOWN = 40  # characters of a value a summary shows


def _shown(value: object) -> str:
    """A value as a summary shows it: JSON, shortened (a new value is new drift to report)."""
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
