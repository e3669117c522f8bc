"""Sequencing of the commands that need only Git: `validate` and `diff`.

Each function is one command's flow (or a step shared by several): read a snapshot,
load its documents, validate them, compare. It decides nothing itself and prints nothing;
the command line renders what it returns. No cluster is contacted from here.
"""

from __future__ import annotations

from collections.abc import Mapping

from driftctl.core.planning.commit_diff import DiffReport, diff_commits
from driftctl.core.source.desired_state import DesiredState, Revision, ValidationReport
from driftctl.core.source.documents import load_documents
from driftctl.core.source.validate import validate
from driftctl.errors import InvalidDesiredState
from driftctl.settings import Source
from driftctl.shell.git_source import read_snapshot


def load_desired(source: Source, environ: Mapping[str, str]) -> DesiredState:
    """The validated desired state at one commit, or InvalidDesiredState with every problem."""
    snapshot = read_snapshot(source, environ)
    validated = validate(load_documents(snapshot.entries), source)
    return DesiredState(validated.webapps, validated.warnings, Revision.of(snapshot))


def validate_source(source: Source, environ: Mapping[str, str]) -> ValidationReport:
    """The `validate` command: the same loading as a run, reported rather than raised."""
    snapshot = read_snapshot(source, environ)
    loaded = load_documents(snapshot.entries)
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
