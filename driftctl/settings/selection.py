"""Which WebApps a run acts on: `Selection` (plan and apply), `NAME...` (a name in any
namespace, or namespace/name) or `-l/--selector` (driftctl.label_selectors); neither: all
of them. A selected run plans, applies and prunes only what it selects
(core.planning.selection), as kubectl's `NAME` and `-l` limit a command, and the prune
guards still count the whole instance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftctl.errors import UsageError
from driftctl.kube_formats import label_problem, subdomain_problem
from driftctl.label_selectors import Requirement, SelectorError, parse_selector
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import Parsed, Refusal, Text


def _requirements(text: str) -> tuple[Requirement, ...]:
    try:
        return parse_selector(text)
    except SelectorError as bad:
        raise Refusal(bad.reason, bad.hint) from None


def _selector_text(requirements: tuple[Requirement, ...]) -> str:
    """A selector as kubectl writes one."""
    return ",".join(_requirement_text(each) for each in requirements)


def _requirement_text(requirement: Requirement) -> str:
    key, operator, values = requirement.key, requirement.operator, requirement.values
    if operator == "exists":
        return key
    if operator == "!":
        return f"!{key}"
    if operator in ("in", "notin"):
        return f"{key} {operator} ({','.join(values)})"
    return f"{key}{operator}{values[0]}"


@dataclass(frozen=True, kw_only=True)
class Selection:
    """Which WebApps a run acts on (module docstring)."""

    GROUP: ClassVar = Group("Selection", frozenset({"plan", "apply", "history"}))

    names: tuple[str, ...] = setting(
        "names",
        Text(),
        (),
        many=True,
        argument=True,
        in_file=False,
        metavar="[NAME]...",
        help="WebApps by name, or namespace/name.",
        help_for={"history": "WebApps by name, or namespace/name: their entries (default: runs)."},
    )
    requirements: tuple[Requirement, ...] = setting(
        "selector",
        Parsed(_requirements, _selector_text),
        (),
        short="-l",
        metavar="SELECTOR",
        show_default=False,
        help="Act only on the WebApps whose labels match, as kubectl's -l (team=web, "
        "env in (prod,staging), !legacy); prunes too. Instead of NAME...",
        help_for={
            "history": "Only the entries of WebApps whose labels (as applied) match, as "
            "kubectl's -l. Instead of NAME..."
        },
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(dict.fromkeys(self.names)))
        if self.names and self.requirements:
            raise UsageError(
                "name WebApps or give --selector, not both", hint="as kubectl refuses both"
            )
        for name in self.names:
            namespace, _slash, short = name.rpartition("/")
            problems = [subdomain_problem(short)] + (
                [label_problem(namespace)] if namespace else []
            )
            for problem in problems:
                if problem is not None:
                    raise UsageError(f"NAME {name!r}: {problem}", hint="NAME or NAMESPACE/NAME")

    @property
    def everything(self) -> bool:
        """Whether nothing was named or selected: the run acts on the whole instance."""
        return not self.names and not self.requirements

    def names_place(self, namespace: str, name: str) -> bool:
        """Whether a WebApp at (namespace, name) is one of `names`."""
        return any(each in (name, f"{namespace}/{name}") for each in self.names)

    def __str__(self) -> str:
        return " ".join(self.names) if self.names else f"-l {_selector_text(self.requirements)}"


EVERYTHING = Selection()
