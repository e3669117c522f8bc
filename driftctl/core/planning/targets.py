"""The pre-merge check across environments: one report of what merging does to each target.

Pure. Each target (a cluster, the folder it applies, its instance) has its own check
(core.planning.check: the change apart from the drift already there), or the reason its
cluster could not be read. Then, per target, the figures of the report's summary table
(`Tally`) and the rollouts merging starts there (`rollouts`): a Deployment whose pod
template changes gets a new ReplicaSet.

What fails the whole report is what fails any target's, plus `unreachable` for a target
whose cluster could not be read: only when --fail-on names it, since with several targets
one out of reach is a line of the report; a single target out of reach always fails it.
A report that fails on an invalid head exits 3, one that fails on an unreachable target 4
(as a check of one such cluster does), else 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.planning.check import Category, CheckedObject, CheckReport, ClusterCheck
from driftctl.core.planning.verbs import Verb
from driftctl.errors import ExitCode
from driftctl.settings import FAIL_ON, Target

UNREACHABLE = "unreachable"
_TEMPLATE = "spec.template"
_ROLLING = frozenset({Category.CHANGE, Category.DRIFT, Category.REPLACE})


@dataclass(frozen=True)
class TargetCheck:
    """One target's part of the report: where it was checked, and what was found there
    (`report`), or why its cluster could not be read (`unreachable`; `report` is then the
    check without the cluster, as far as it got, or None)."""

    target: Target
    path: str  # the folder this target's cluster applies, as read
    instance: str
    report: CheckReport | None
    unreachable: str | None = None


@dataclass(frozen=True)
class Tally:
    """A target's line of the summary table: what merging does there, by kind."""

    creates: int
    updates: int  # changes of existing objects, replacements included
    prunes: int
    held: int  # blocked: a guard, a control, a refusal or a conflict holds it
    drift: int

    @classmethod
    def of(cls, cluster: ClusterCheck) -> Tally:
        """The figures of one target's check against its cluster."""
        changes = [item for item in cluster.objects if item.category is Category.CHANGE]
        creates = sum(1 for item in changes if item.verb is Verb.CREATE)
        return cls(
            creates=creates,
            updates=len(changes) - creates + cluster.count(Category.REPLACE),
            prunes=cluster.count(Category.PRUNE),
            held=cluster.count(Category.BLOCKED),
            drift=cluster.count(Category.DRIFT),
        )


def starts_rollout(item: CheckedObject) -> bool:
    """Whether merging changes a Deployment's pod template (a new ReplicaSet, Pods replaced);
    a Deployment created starts one too (its first)."""
    if item.key.kind != c.DEPLOYMENT_KIND or item.category not in _ROLLING:
        return False
    if item.verb is Verb.CREATE:
        return True
    return any(field.change.path.startswith(_TEMPLATE) for field in item.fields)


def rollouts(cluster: ClusterCheck) -> tuple[CheckedObject, ...]:
    """The Deployments whose rollout merging starts, in the plan's order."""
    return tuple(item for item in cluster.objects if starts_rollout(item))


@dataclass(frozen=True)
class TargetsReport:
    """Every target's check, in the order the targets were given (module docstring)."""

    targets: tuple[TargetCheck, ...]
    fail_on: frozenset[str]

    @property
    def found(self) -> tuple[str, ...]:
        """Every --fail-on name any target holds something for, in FAIL_ON order."""
        present = {name for each in self.targets if each.report for name in each.report.found}
        if any(each.unreachable is not None for each in self.targets):
            present.add(UNREACHABLE)
        return tuple(name for name in FAIL_ON if name in present)

    @property
    def failed_on(self) -> tuple[str, ...]:
        """The names found that --fail-on asked to fail on; a single target out of reach
        fails whatever --fail-on says, as a check of one cluster does."""
        asked = self.fail_on | ({UNREACHABLE} if len(self.targets) == 1 else set())
        return tuple(name for name in self.found if name in asked)

    @property
    def exit_code(self) -> ExitCode:
        """3 on an invalid head, 4 on an unreachable target, 1 on the rest, when --fail-on
        names them; else 0."""
        if "invalid" in self.failed_on:
            return ExitCode.INVALID_INPUT
        if UNREACHABLE in self.failed_on:
            return ExitCode.ENVIRONMENT
        return ExitCode.CHANGES if self.failed_on else ExitCode.OK
