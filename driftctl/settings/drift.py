"""What counts as drift: `Drift` (plan, apply, check, watch and status take it; a saved plan
records it).

Fields in managedFields owned by an override manager, not in Git, are drift: planned and
removed. Fields matched by an ignore rule (the grammar is driftctl.ignore_rules), or owned
by an ignored manager, are not drift: neither reported nor reset, though a change of them
in Git is still applied. `show_foreign` (plan's --show-foreign, not a setting of drift
itself) lists the fields of other managers, which are always left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftctl.ignore_rules import IgnoreRule
from driftctl.settings.cluster import MAX_FIELD_MANAGER
from driftctl.settings.declare import PLANNING, Group, setting
from driftctl.settings.kinds import Parsed, Refusal

# The kubectl family: fields these managers own are a person's edits, and drift.
DEFAULT_OVERRIDE_MANAGERS = (
    "kubectl",
    "kubectl-edit",
    "kubectl-patch",
    "kubectl-client-side-apply",
    "kubectl-set",
    "kubectl-scale",
    "kubectl-label",
    "kubectl-annotate",
    "kubectl-rollout",
    "before-first-apply",
)
NO_MANAGER = "none"  # `--override-manager none`: no manager's fields are reverted


def _manager(name: str) -> str:
    """One manager's name as given (spaces around it dropped)."""
    name = name.strip()
    if not name or len(name) > MAX_FIELD_MANAGER:
        raise Refusal(f"must be 1 to {MAX_FIELD_MANAGER} characters, got {name!r}")
    return name


def _rule(text: str) -> IgnoreRule:
    try:
        return IgnoreRule.parse(text)
    except ValueError as bad:
        raise Refusal(str(bad)) from None


_MANAGER = Parsed(_manager)


@dataclass(frozen=True, kw_only=True)
class Drift:
    """What counts as drift (module docstring)."""

    GROUP: ClassVar = Group("Drift flags", PLANNING | {"status"}, recorded=True)

    override_managers: tuple[str, ...] = setting(
        "override-manager",
        _MANAGER,
        DEFAULT_OVERRIDE_MANAGERS,
        many=True,
        show_default=False,
        metavar="NAME",
        help="A field manager whose fields outside Git are drift, removed by apply; repeat it. "
        "Given, it replaces the default list (none: revert nobody's): "
        + ", ".join(DEFAULT_OVERRIDE_MANAGERS)
        + ".",
    )
    ignore: tuple[IgnoreRule, ...] = setting(
        "ignore",
        Parsed(_rule),
        (),
        many=True,
        show_default=False,
        metavar="KIND:/POINTER",
        help="A field that is not drift, e.g. Deployment:/spec/replicas: neither reported nor "
        "reset, though a change of it in Git is still applied; repeat it.",
    )
    ignore_managers: tuple[str, ...] = setting(
        "ignore-manager",
        _MANAGER,
        (),
        many=True,
        show_default=False,
        metavar="NAME",
        help="A field manager whose fields are not drift (as --ignore); repeat it.",
    )
    show_foreign: bool = False  # plan --show-foreign: list other managers' fields too

    def __post_init__(self) -> None:
        # `none` alone reverts nobody's fields; a name given twice counts once.
        overrides = () if self.override_managers == (NO_MANAGER,) else self.override_managers
        object.__setattr__(self, "override_managers", tuple(dict.fromkeys(overrides)))
        object.__setattr__(self, "ignore_managers", tuple(dict.fromkeys(self.ignore_managers)))
