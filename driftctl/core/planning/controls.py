"""The controls, decided: what a run may do to each WebApp now, and what it holds, and why.

Pure; the time is passed in (`Situation.now`), read once per run by the pipeline, so a plan
made at a given time is exactly what an apply at that time does. The grammar of each
control is driftctl.policies and driftctl.schedules; here they meet one WebApp:

- a suspension: of the whole instance (the annotation driftctl.example.com/suspend on its
  run-lock Lease, read by the pipeline into `Situation.instance`; a shard's run reads its
  own Lease and the instance's, `Situation.or_instance`), or of one WebApp (the same
  annotation on the live WebApp). Suspended, nothing of it is written, whatever the plan
  would do; a suspension with an end lapses by itself at that time;
- Git's own changes (`apply` | `hold`) and drift made in the cluster (`correct` | `warn`
  | `off`): a WebApp's annotation in Git, else the instance's flag;
- change windows (--window), each holding changes, drift and/or prunes while closed;
  --override-windows goes through them for one run, and says so (`lifted`);
- for a WebApp Git no longer declares, its prune policy: the one Git last declared for it
  (its annotation, as the live WebApp holds it by driftctl's own apply), else the flag.

What a hold does to the plan is core.planning.preparation's and core.planning.plan's
(and core.planning.pending's for removals); the results are `Held` actions, and `Kept`
fields marked held.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning import fieldset as fs
from driftctl.core.planning.objects import Obj, annotations_of
from driftctl.core.source.model import WebApp
from driftctl.policies import ChangePolicy, DriftPolicy, PrunePolicy, Suspension
from driftctl.schedules import Closed, Scope, Window, held
from driftctl.settings import Policy


class Control(enum.StrEnum):
    """Which kind of control holds something (Held.control, Kept.held, metrics)."""

    INSTANCE = "instance"  # the instance is suspended
    SUSPEND = "suspend"  # the WebApp is suspended
    CHANGES = "changes"  # Git's changes are held (change policy hold)
    DRIFT = "drift"  # drift is held (drift policy warn; off is not a hold: it is not drift)
    WINDOW = "window"  # a change window is closed
    REMOVAL = "removal"  # a removal waits (confirm: an approval; quarantine: its grace)


@dataclass(frozen=True)
class Hold:
    """A control that holds a write, and why (`reason` is what a plan prints)."""

    control: Control
    reason: str


@dataclass(frozen=True)
class Situation:
    """What a run's controls are decided against, besides its flags and Git: the time, and
    the instance's suspension (`where` it is set: the Lease, as messages name it)."""

    now: datetime.datetime | None = None
    instance: Suspension | None = None
    where: str = ""

    @classmethod
    def of(cls, now: datetime.datetime, lease: Obj | None, where: str) -> Situation:
        """The situation at `now`, with the suspension the Lease's annotation states (if any)."""
        text = annotations_of(lease or {}).get(c.SUSPEND_ANNOTATION)
        return cls(now, Suspension.parse(text) if text is not None else None, where)

    def or_instance(self, lease: Obj | None, where: str) -> Situation:
        """This situation, or, when its own Lease states no suspension, the one `lease`
        states: a shard's, the instance's own Lease, which holds every shard."""
        text = annotations_of(lease or {}).get(c.SUSPEND_ANNOTATION)
        if self.instance is not None or text is None:
            return self
        return dataclasses.replace(self, instance=Suspension.parse(text), where=where)

    @property
    def clock(self) -> datetime.datetime:
        """The run's time; only a plan with time-bound controls needs it."""
        if self.now is None:
            raise ValueError("this plan has time-bound controls and was given no time")
        return self.now


TIMELESS = Situation()  # no time, no instance suspension: for plans without time-bound controls


def instance_hold(situation: Situation) -> Hold | None:
    """The instance's suspension, while it holds."""
    found = situation.instance
    if found is None or not _active(found, situation):
        return None
    return Hold(Control.INSTANCE, f"the instance is {found.text} ({_on(situation.where)})")


def _on(where: str) -> str:
    return f"{c.SUSPEND_ANNOTATION} on {where}" if where else c.SUSPEND_ANNOTATION


def _active(suspension: Suspension, situation: Situation) -> bool:
    if suspension.problem is None and suspension.until is None:
        return True
    return suspension.active(situation.clock)


def suspension_hold(live: Obj | None, situation: Situation) -> Hold | None:
    """The suspension a live object's annotation states, while it holds."""
    text = annotations_of(live or {}).get(c.SUSPEND_ANNOTATION)
    if text is None:
        return None
    found = Suspension.parse(text)
    return Hold(Control.SUSPEND, found.text) if _active(found, situation) else None


@dataclass(frozen=True)
class AppControls:
    """What the controls decide for one WebApp Git declares, this run.

    `whole`: nothing of it is written, whatever its plan (a suspension; or both its changes
    and its drift held); `changes`: Git's changes are held, drift still corrected; `drift`:
    drift is held and reported, Git's changes still applied; `drift_off`: drift is neither
    reported nor corrected; `lifted`: the windows this run goes through.
    """

    whole: Hold | None = None
    changes: Hold | None = None
    drift: Hold | None = None
    drift_off: str | None = None  # why drift is off
    lifted: str = ""

    @property
    def drift_left(self) -> str | None:
        """Why drift stays as it is (held or off), or None when it is corrected."""
        return self.drift.reason if self.drift is not None else self.drift_off


FREE = AppControls()


def of_declared(app: WebApp, live: Obj | None, policy: Policy, situation: Situation) -> AppControls:
    """The controls of `app` (declared in Git), its live WebApp being `live` (None: absent)."""
    suspended = instance_hold(situation) or suspension_hold(live, situation)
    if suspended is not None:
        return AppControls(whole=suspended)
    changes = _policy_hold(app, c.CHANGE_POLICY_ANNOTATION, policy.change_policy)
    drift_policy = _chosen(app, c.DRIFT_POLICY_ANNOTATION, policy.drift_policy)
    drift = _drift_hold(app, drift_policy)
    off = _said(app, c.DRIFT_POLICY_ANNOTATION, drift_policy, "drift is off")
    lifted: list[str] = []
    if policy.windows:
        changes = changes or _window(policy, Scope.CHANGES, situation, lifted)
        window = _window(policy, Scope.DRIFT, situation, lifted)
        drift = drift or (window if drift_policy is not DriftPolicy.OFF else None)
    if changes is not None and (drift is not None or drift_policy is DriftPolicy.OFF):
        both = drift.reason if drift is not None else off
        reason = changes.reason if both == changes.reason else f"{changes.reason}; {both}"
        whole = Hold(changes.control, reason)
    else:
        whole = None
    return AppControls(
        whole,
        changes,
        drift,
        off if drift_policy is DriftPolicy.OFF else None,
        "; ".join(dict.fromkeys(lifted)),
    )


def _chosen(app: WebApp, key: str, default: DriftPolicy) -> DriftPolicy:
    value = app.annotations.get(key)
    return DriftPolicy(value) if value is not None else default


def _said(app: WebApp, key: str, value: str, what: str) -> str:
    """`held by driftctl.example.com/drift-policy: warn in apps/shop.yaml:1`, or by the flag."""
    flag = "--" + key.rpartition("/")[2]
    if key in app.annotations:
        where = f" in {app.origin}" if app.origin is not None else ""
        return f"{what} ({key}: {value}{where})"
    return f"{what} ({flag} {value})"


def _policy_hold(app: WebApp, key: str, default: ChangePolicy) -> Hold | None:
    value = ChangePolicy(app.annotations.get(key, default))
    if value is not ChangePolicy.HOLD:
        return None
    return Hold(Control.CHANGES, _said(app, key, value, "Git's changes are held"))


def _drift_hold(app: WebApp, value: DriftPolicy) -> Hold | None:
    if value is not DriftPolicy.WARN:
        return None
    what = "drift is reported and left as it is"
    return Hold(Control.DRIFT, _said(app, c.DRIFT_POLICY_ANNOTATION, value, what))


def _window(policy: Policy, scope: Scope, situation: Situation, lifted: list[str]) -> Hold | None:
    closed = _closed(policy.windows, scope, situation.clock)
    if closed is None:
        return None
    if policy.override_windows:
        lifted.append(f"{closed.text}: overridden by --override-windows")
        return None
    return Hold(Control.WINDOW, closed.text)


@functools.lru_cache(maxsize=64)
def _closed(windows: tuple[Window, ...], scope: Scope, now: datetime.datetime) -> Closed | None:
    """The windows' answer for one scope at one time: the same for every WebApp of a run."""
    return held(windows, scope, now)


@dataclass(frozen=True)
class RemovalControls:
    """What the controls decide for an object Git no longer declares, this run: a hold (a
    suspension, a window on prunes), its prune policy and where that policy comes from."""

    hold: Hold | None
    policy: PrunePolicy
    origin: str
    lifted: str = ""


def of_removal(live: Obj, policy: Policy, situation: Situation, manager: str) -> RemovalControls:
    """The controls of a live object Git no longer declares (a WebApp, an orphaned Deployment)."""
    chosen, origin = prune_policy_of(live, policy, manager)
    hold = instance_hold(situation) or suspension_hold(live, situation)
    lifted: list[str] = []
    if hold is None and policy.windows:
        hold = _window(policy, Scope.PRUNES, situation, lifted)
    return RemovalControls(hold, chosen, origin, "; ".join(lifted))


def prune_policy_of(live: Obj, policy: Policy, manager: str) -> tuple[PrunePolicy, str]:
    """The prune policy of a live object, and where it comes from: Git's, as the live object
    holds it from driftctl's last apply, else --prune-policy. A value a person annotated
    (not driftctl's own) does not count: only Git chooses it."""
    value = annotations_of(live).get(c.PRUNE_POLICY_ANNOTATION)
    path = ("f:metadata", "f:annotations", f"f:{c.PRUNE_POLICY_ANNOTATION}")
    owned = fs.owned_fields(live, manager, str(live.get("apiVersion", "")))
    if value in tuple(PrunePolicy) and path in owned:
        return PrunePolicy(value), f"{c.PRUNE_POLICY_ANNOTATION}: {value}, as last applied from Git"
    return policy.prune_policy, f"--prune-policy {policy.prune_policy}"
