"""The grammar of a label selector, as kubectl's `-l` reads it: requirements separated by
commas, all to hold (`team=web`, `tier!=db`, `env in (prod,staging)`, `env notin (dev)`,
`canary`, `!legacy`).

`-l/--selector` (settings.Selection) parses here; what a selection then picks is
core.planning.selection's business. Pure, and below the settings and the core: it knows
only the API's naming rules (kube_formats). A selector that cannot be read raises
ValueError with a one-line reason and a hint in `SelectorError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from driftctl.kube_formats import label_key_problem, label_value_problem

_SET_REQUIREMENT = re.compile(r"^\s*([^\s!=(),]+)\s+(in|notin)\s+\(([^()]*)\)\s*$")
_EQUALITY = re.compile(r"^\s*([^\s!=(),]+)\s*(!=|==|=)\s*([^\s!=(),]*)\s*$")
_EXISTS = re.compile(r"^\s*(!?)\s*([^\s!=(),]+)\s*$")
_SELECTOR_PARTS = re.compile(r",(?![^()]*\))")  # commas outside parentheses
HINT = "as kubectl's -l: team=web, tier!=db, env in (prod,staging), canary, !legacy"


class SelectorError(ValueError):
    """A selector that cannot be read: the part, why, and (when it helps) how to write one."""

    def __init__(self, reason: str, hint: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


@dataclass(frozen=True)
class Requirement:
    """One requirement of a label selector: `k=v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
    `k` (has the label), `!k` (lacks it)."""

    key: str
    operator: str  # "=", "!=", "in", "notin", "exists", "!"
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether an object with `labels` meets this requirement."""
        has = self.key in labels
        if self.operator == "exists":
            return has
        if self.operator == "!":
            return not has
        value = labels.get(self.key)
        if self.operator in ("=", "in"):
            return has and value in self.values
        return not has or value not in self.values  # != and notin, as Kubernetes reads them


def parse_selector(text: str) -> tuple[Requirement, ...]:
    """The requirements of a selector (module docstring); SelectorError when one cannot be
    read, or names an invalid key or value."""
    out: list[Requirement] = []
    for part in _SELECTOR_PARTS.split(text) if text.strip() else []:
        requirement = _requirement(part)
        if requirement is None:
            raise SelectorError(f"{part.strip()!r} is not a label requirement", HINT)
        for problem in _label_problems(requirement):
            raise SelectorError(f"{part.strip()!r} {problem}")
        out.append(requirement)
    return tuple(out)


def _requirement(part: str) -> Requirement | None:
    if found := _SET_REQUIREMENT.match(part):
        values = tuple(value.strip() for value in found[3].split(","))
        return Requirement(found[1], found[2], values)
    if found := _EQUALITY.match(part):
        operator = "=" if found[2] == "==" else found[2]
        return Requirement(found[1], operator, (found[3],))
    if found := _EXISTS.match(part):
        return Requirement(found[2], "!" if found[1] else "exists")
    return None


def _label_problems(requirement: Requirement) -> Iterable[str]:
    if problem := label_key_problem(requirement.key):
        yield problem
    for value in requirement.values:
        if problem := label_value_problem(value):
            yield f"has an invalid value: {problem}"
