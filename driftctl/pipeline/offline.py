"""Sequencing of the commands that need only Git: `validate` and `diff`.

Each function is one command's flow (or a step shared by several): read a snapshot,
load its documents, validate them, compare. It decides nothing itself and prints nothing;
the command line renders what it returns. No cluster is contacted from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from driftctl.core.planning.commit_diff import DiffReport, diff_commits
from driftctl.core.source.desired_state import DesiredState, Revision, ValidationReport
from driftctl.core.source.documents import Loaded, load_documents
from driftctl.core.source.tree import Snapshot
from driftctl.core.source.validate import validate
from driftctl.errors import InvalidDesiredState, Problem
from driftctl.settings import Source
from driftctl.shell.git_source import read_snapshot


@dataclass(frozen=True)
class Rendered:
    """What `render` prints: the WebApps' bodies by namespace and name, and the warnings."""

    webapps: tuple[Mapping[str, Any], ...]
    warnings: tuple[Problem, ...]


def load_desired(source: Source, environ: Mapping[str, str]) -> DesiredState:
    """The validated desired state at one commit, or InvalidDesiredState with every problem."""
    snapshot = read_snapshot(source, environ)
    validated = validate(documents_of(snapshot), source)
    return DesiredState(validated.webapps, validated.warnings, Revision.of(snapshot))


def render_source(source: Source, environ: Mapping[str, str]) -> Rendered:
    """The `render` command: the WebApps as rendered (validated first, as a run does), and
    the warnings; InvalidDesiredState when a run would refuse them."""
    snapshot = read_snapshot(source, environ)
    loaded = documents_of(snapshot)
    validated = validate(loaded, source)
    by_origin = {(document.file, document.line): document.body for document in loaded.documents}
    bodies = [
        by_origin[(app.origin.file, app.origin.line)]
        for app in validated.webapps  # sorted by namespace and name
        if app.origin is not None
    ]
    return Rendered(tuple(bodies), validated.warnings)


def documents_of(snapshot: Snapshot) -> Loaded:
    """The documents of the desired state: what its kustomization rendered, or its files."""
    if snapshot.rendered is not None:
        return snapshot.rendered
    return load_documents(snapshot.entries)


def validate_source(source: Source, environ: Mapping[str, str]) -> ValidationReport:
    """The `validate` command: the same loading as a run, reported rather than raised."""
    snapshot = read_snapshot(source, environ)
    loaded = documents_of(snapshot)
    try:
        validated = validate(loaded, source)
    except InvalidDesiredState as invalid:
        return ValidationReport(Revision.of(snapshot), (), tuple(invalid.problems), ())
    return ValidationReport(Revision.of(snapshot), validated.webapps, (), validated.warnings)


def diff_sources(base: Source, head: Source, environ: Mapping[str, str]) -> DiffReport:
    """The `diff` command: both sides loaded and validated, then compared; no cluster."""
    sides = {}
    for side, source in (("base", base), ("head", head)):
        try:
            sides[side] = load_desired(source, environ)
        except InvalidDesiredState as invalid:
            raise InvalidDesiredState(invalid.problems, side=side) from None
    return DiffReport(
        base_ref=base.ref or "working tree",
        head_ref=head.ref or "working tree",
        base=sides["base"],
        head=sides["head"],
        diff=diff_commits(sides["base"].webapps, sides["head"].webapps),
    )
