"""What one `apply` does besides planning: the saved plan it applies (`SavedPlanUse`), the
Events it records (`Recording`, watch's too), whether it asks and takes a dirty working tree
(`ApplyRun`), whether it waits for its rollouts (`Wait`), where it pushes its metrics
(`Metrics`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from driftctl.errors import UsageError
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import FilePath, Switch, Whole
from driftctl.settings.spans import Seconds
from driftctl.settings.urls import Url

MAX_EVENTS = 100  # default --max-events: everyday drift, bounded on a first run
_APPLY = frozenset({"apply"})


@dataclass(frozen=True, kw_only=True)
class Wait:
    """Whether `apply` waits for the rollouts of the WebApps it changed, and how long."""

    GROUP: ClassVar = Group(None, _APPLY)

    enabled: bool = setting(
        "wait",
        Switch(),
        False,
        help="After applying, wait for the rollouts of the WebApps this run changed: each "
        "Ready, or Stalled (exit 7), or --wait-timeout gone (exit 7).",
    )
    timeout: float = setting(  # after the changes are applied
        "wait-timeout",
        Seconds(minimum=1),
        300.0,
        help="How long --wait waits for the rollouts, after the changes are applied (apart "
        "from --timeout).",
    )


NO_WAIT = Wait()


@dataclass(frozen=True, kw_only=True)
class SavedPlanUse:
    """`apply --plan FILE`: the plan records its commit and policy, so those settings are
    out (`refuse_beside`)."""

    GROUP: ClassVar = Group(None, _APPLY)

    path: Path | None = setting(
        "plan",
        FilePath(),
        in_file=False,
        help="Apply exactly this saved plan (`plan --out FILE`); objects changed since are "
        "checked again.",
    )

    def refuse_beside(self, given: Sequence[str]) -> None:
        """UsageError when settings the plan records were given beside it (`given`)."""
        if self.path is not None and given:
            raise UsageError(
                f"--plan applies the commit and the policy recorded in {self.path}; "
                f"drop {', '.join(given)}",
                hint="make a new plan with those flags instead",
            )


@dataclass(frozen=True, kw_only=True)
class Recording:
    """How many Kubernetes Events a run (or one watch reconcile) records."""

    GROUP: ClassVar = Group(None, frozenset({"apply", "watch"}))

    max_events: int = setting(
        "max-events",
        Whole(minimum=0),
        MAX_EVENTS,
        help="Most Kubernetes Events one run records (one per changed WebApp); one summary "
        "Event on the run's Lease counts the rest.",
        help_for={
            "watch": "Most Kubernetes Events one reconcile records (one per changed WebApp)."
        },
    )


@dataclass(frozen=True, kw_only=True)
class ApplyRun:
    """Whether `apply` asks before it deletes, and whether it takes a dirty working tree."""

    GROUP: ClassVar = Group(None, _APPLY)

    yes: bool = setting(
        "yes",
        Switch(),
        False,
        short="-y",
        commands=frozenset({"apply", "doctor"}),
        help="Do not ask before pruning or replacing, on a terminal (nothing is asked in a "
        "pipe, a Pod or a JSON log).",
        help_for={
            "doctor": "With --release-finalizers: release without asking (needed off a terminal)."
        },
    )
    allow_dirty: bool = setting(
        "allow-dirty",
        Switch(),
        False,
        help="Apply a working tree with changes not committed under --path (its revision is "
        "recorded as <sha>-dirty); without it, apply applies commits only.",
    )


@dataclass(frozen=True, kw_only=True)
class Metrics:
    """Where `apply` pushes its metrics when the run ends (None: nowhere)."""

    GROUP: ClassVar = Group("Metrics flags", _APPLY)

    pushgateway: str | None = setting(  # http(s)://host[:port][/prefix]
        "pushgateway",
        Url(hint="for example --pushgateway http://pushgateway:9091"),
        help="Push the run's metrics to this Prometheus Pushgateway when it ends "
        "(http://host:9091); a failed push is a warning.",
    )
