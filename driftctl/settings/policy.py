"""What apply may do: `Policy`. `plan` takes the same settings, so plan and apply say the
same, and a saved plan records them (apply --plan applies its own).

Beside the prune guards and --recreate, the controls (driftctl.policies,
driftctl.schedules): the instance's defaults for what happens to Git's changes, to drift
and to what Git no longer declares (a WebApp's annotations in Git choose its own), how
deletes propagate, the quarantine's grace, the change windows, and whether this one run
goes through them (--override-windows).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import ClassVar

from driftctl import conventions as c
from driftctl.policies import ChangePolicy, DriftPolicy, Propagation, PrunePolicy
from driftctl.schedules import Window
from driftctl.settings.declare import PLANNING, Group, setting
from driftctl.settings.kinds import Choice, Parsed, Refusal, Switch
from driftctl.settings.spans import Span

_MAX_PRUNE = re.compile(r"^(\d+)(%?)$")
DEFAULT_GRACE = datetime.timedelta(hours=24)  # --quarantine-grace


@dataclass(frozen=True)
class MaxPrune:
    """A limit on deletions per run: a count, or a percentage of the managed set."""

    value: int
    percent: bool = False

    @classmethod
    def parse(cls, text: str) -> MaxPrune:
        """`N` (a count) or `P%` (0-100 percent of the managed WebApps)."""
        match = _MAX_PRUNE.match(text.strip())
        if match is None:
            raise Refusal(
                f"must be a count N or a percentage P%, not {text!r}",
                hint="for example --max-prune 10 or --max-prune 25%",
            )
        value, percent = int(match.group(1)), bool(match.group(2))
        if percent and value > 100:
            raise Refusal(f"percentage must be at most 100%, not {text!r}")
        return cls(value, percent)

    def limit(self, managed: int) -> int:
        """How many deletions are allowed when `managed` objects are managed."""
        return managed * self.value // 100 if self.percent else self.value

    def __str__(self) -> str:
        return f"{self.value}%" if self.percent else str(self.value)


_WINDOW_HINT = "for example --window 'deny 0 18 * * 5 for 64h in Europe/Berlin on changes,prunes'"


@dataclass(frozen=True, kw_only=True)
class Policy:
    """What apply may do (module docstring)."""

    GROUP: ClassVar = Group("Policy flags", PLANNING, recorded=True)

    prune: bool = setting(
        "prune",
        Switch(),
        True,
        negative="no-prune",
        help="Delete this instance's WebApps that Git no longer declares.",
    )
    allow_empty: bool = setting(
        "allow-empty", Switch(), False, help="Allow pruning when Git declares no WebApp at all."
    )
    max_prune: MaxPrune | None = setting(  # None: half the managed set
        "max-prune",
        Parsed(MaxPrune.parse),
        metavar="N|P%",
        help="Most deletions in one run: a count or a percentage of the managed WebApps "
        "(default: half of them).",
    )
    recreate: bool = setting(
        "recreate",
        Switch(),
        False,
        help="Delete and create again objects whose immutable fields changed.",
    )
    change_policy: ChangePolicy = setting(
        "change-policy",
        Choice(ChangePolicy),
        ChangePolicy.APPLY,
        help="What happens to Git's own changes of a WebApp: apply them, or hold them "
        f"(reported, not applied). A WebApp's annotation {c.CHANGE_POLICY_ANNOTATION} in Git "
        "chooses its own.",
    )
    drift_policy: DriftPolicy = setting(
        "drift-policy",
        Choice(DriftPolicy),
        DriftPolicy.CORRECT,
        help="What happens to drift made in the cluster: correct it, warn (report it, never "
        f"write it) or off (neither). A WebApp's annotation {c.DRIFT_POLICY_ANNOTATION} in "
        "Git chooses its own.",
    )
    prune_policy: PrunePolicy = setting(
        "prune-policy",
        Choice(PrunePolicy),
        PrunePolicy.DELETE,
        help="What happens to a WebApp Git no longer declares: delete it, orphan it (its "
        "Deployment stays, released), confirm (wait for an approval annotation), quarantine "
        f"(scale to zero, delete after --quarantine-grace). {c.PRUNE_POLICY_ANNOTATION} in "
        "Git, while the WebApp is declared, chooses its own.",
    )
    propagation: Propagation = setting(
        "prune-propagation",
        Choice(Propagation),
        Propagation.BACKGROUND,
        help="How driftctl's deletes reach what the deleted object owns: background or "
        "foreground (the owner goes last).",
    )
    quarantine_grace: datetime.timedelta = setting(
        "quarantine-grace",
        Span(),
        DEFAULT_GRACE,
        help="How long a quarantined WebApp must stay absent from Git before it is deleted.",
    )
    windows: tuple[Window, ...] = setting(
        "window",
        Parsed(Window.parse, hint=_WINDOW_HINT),
        (),
        many=True,
        show_default=False,
        metavar="WINDOW",
        env_splitter=";",  # a window holds spaces, never a `;`
        help="A change window: 'deny|allow CRON for DURATION [in ZONE] [on changes,drift,"
        "prunes]', e.g. 'deny 0 18 * * 5 for 64h in Europe/Berlin'. A run inside a deny "
        "window (or outside every allow window) plans as usual and holds what it covers; "
        "repeat it.",
    )
    override_windows: bool = setting(
        "override-windows",
        Switch(),
        False,
        help="Go through the windows for this one run (each Event it records says so).",
    )
