"""Sequencing only: the git source, then the core, in the order a run needs them.

Each function here is one command's flow (or a step shared by several): read a snapshot,
load its documents, validate them, compare. It decides nothing itself and prints nothing;
the command line renders what it returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from driftctl.core.desired_diff import diff_desired
from driftctl.core.documents import load_entries
from driftctl.core.reports import Desired, DiffReport, Revision, ValidationReport
from driftctl.core.validate import Options, namespace_problem, validate
from driftctl.errors import InvalidDesiredState, UsageError
from driftctl.shell.git_source import SourceRequest, read_snapshot


def check_options(options: Options) -> None:
    """Refuses a --namespace that no object could have."""
    problem = namespace_problem(options.default_namespace)
    if problem is not None:
        raise UsageError(f"--namespace {problem}")


def load_desired(request: SourceRequest, options: Options, environ: Mapping[str, str]) -> Desired:
    """The validated desired state at one commit, or InvalidDesiredState with every problem."""
    check_options(options)
    snapshot = read_snapshot(request, environ)
    validated = validate(load_entries(snapshot.entries), options)
    return Desired(validated.webapps, validated.warnings, Revision.of(snapshot))


def validate_source(
    request: SourceRequest, options: Options, environ: Mapping[str, str]
) -> ValidationReport:
    """The `validate` command: the same loading as a run, reported rather than raised."""
    check_options(options)
    snapshot = read_snapshot(request, environ)
    loaded = load_entries(snapshot.entries)
    try:
        validated = validate(loaded, options)
    except InvalidDesiredState as invalid:
        return ValidationReport(Revision.of(snapshot), (), tuple(invalid.problems), ())
    return ValidationReport(Revision.of(snapshot), validated.webapps, (), validated.warnings)


def desired_diff(
    base: SourceRequest, head: SourceRequest, options: Options, environ: Mapping[str, str]
) -> DiffReport:
    """The `diff` command: both sides loaded and validated, then compared; no cluster."""
    sides = {}
    for side, request in (("base", base), ("head", head)):
        try:
            sides[side] = load_desired(request, options, environ)
        except InvalidDesiredState as invalid:
            raise InvalidDesiredState(invalid.problems, side=side) from None
    return DiffReport(
        base_ref=base.ref or "working tree",
        head_ref=head.ref or "working tree",
        base=sides["base"],
        head=sides["head"],
        diff=diff_desired(sides["base"].webapps, sides["head"].webapps),
    )


def at_ref(request: SourceRequest, ref: str | None) -> SourceRequest:
    """The same repository and folder at another ref (None: the working tree)."""
    return replace(request, ref=ref)
