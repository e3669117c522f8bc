"""What changes between two desired states (two commits), with no cluster involved.

WebApps are paired by namespace/name: one only in head is added, one only in base is
removed, one in both with different fields is changed, field by field (old -> new). Where
a WebApp is declared (file, line) is not part of it: moving it between files changes
nothing. Pure: two sets in, one value out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.redaction import masked_change
from driftctl.core.source.desired_state import DesiredState
from driftctl.core.source.model import WebApp


@dataclass(frozen=True)
class Changed:
    """A WebApp present on both sides with at least one field different."""

    before: WebApp
    after: WebApp
    fields: tuple[FieldChange, ...]


@dataclass(frozen=True)
class CommitDiff:
    """Added, removed and changed WebApps, each sorted by namespace and name."""

    added: tuple[WebApp, ...]
    removed: tuple[WebApp, ...]
    changed: tuple[Changed, ...]
    unchanged: int

    @property
    def equal(self) -> bool:
        """Whether the two sides declare the same WebApps."""
        return not (self.added or self.removed or self.changed)


def diff_commits(base: Iterable[WebApp], head: Iterable[WebApp]) -> CommitDiff:
    """The difference from `base` to `head`."""
    old = {app.place: app for app in base}
    new = {app.place: app for app in head}
    changed = []
    unchanged = 0
    for key in sorted(old.keys() & new.keys()):
        fields = tuple(masked_change(field) for field in declared_changes(old[key], new[key]))
        if fields:
            changed.append(Changed(old[key], new[key], fields))
        else:
            unchanged += 1
    return CommitDiff(
        added=tuple(new[key] for key in sorted(new.keys() - old.keys())),
        removed=tuple(old[key] for key in sorted(old.keys() - new.keys())),
        changed=tuple(changed),
        unchanged=unchanged,
    )


def declared_changes(before: WebApp, after: WebApp) -> Iterator[FieldChange]:
    """Each field that differs, spec first, then labels and annotations by key."""
    if before.spec.image != after.spec.image:
        yield FieldChange.of("spec.image", before.spec.image, after.spec.image)
    if before.spec.replicas != after.spec.replicas:
        yield FieldChange.of("spec.replicas", before.spec.replicas, after.spec.replicas)
    yield from _map_changes("metadata.labels", before.labels, after.labels)
    yield from _map_changes("metadata.annotations", before.annotations, after.annotations)


def _map_changes(
    prefix: str, before: Mapping[str, str], after: Mapping[str, str]
) -> Iterator[FieldChange]:
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old != new:
            yield FieldChange.of(f"{prefix}[{key}]", old, new)


@dataclass(frozen=True)
class DiffReport:
    """What `diff` found between two commits' desired states."""

    base_ref: str
    head_ref: str
    base: DesiredState
    head: DesiredState
    diff: CommitDiff
