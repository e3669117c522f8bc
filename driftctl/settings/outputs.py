"""What a command shows and where its lines go, beside `-o` (which is each command's own
and no setting): unchanged objects listed (`Listing`), a plan saved and other managers'
fields shown (`PlanOutputs`), the log's format (`Logging`), and the switches of `crd` and
`version` (`CrdOptions`, `VersionOptions`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import FilePath, Switch, Word

LOG_FORMATS = ("text", "json")


@dataclass(frozen=True, kw_only=True)
class Listing:
    """Whether unchanged objects are listed too."""

    GROUP: ClassVar = Group(None, frozenset({"plan", "show"}))

    show_unchanged: bool = setting(
        "show-unchanged",
        Switch(),
        False,
        help="List unchanged objects too (text output; as -v).",
        help_for={"show": "List unchanged objects too (text output)."},
    )


@dataclass(frozen=True, kw_only=True)
class PlanOutputs:
    """Where `plan` also saves itself, and whether it lists other managers' fields."""

    GROUP: ClassVar = Group(None, frozenset({"plan"}))

    out: Path | None = setting(
        "out",
        FilePath(),
        in_file=False,
        help="Also save the plan to this file, for `driftctl apply --plan FILE`.",
    )
    show_foreign: bool = setting(
        "show-foreign",
        Switch(),
        False,
        help="List the fields of other managers (controllers, webhooks) that Git does not "
        "declare; they are left alone.",
    )


@dataclass(frozen=True, kw_only=True)
class Logging:
    """How a cluster command logs: text for a person, or JSON lines for a log pipeline."""

    GROUP: ClassVar = Group(None, frozenset({"plan", "apply", "watch"}))

    log_format: str = setting(
        "log-format",
        Word(LOG_FORMATS),
        "text",
        help="text for a person; json: one JSON object per line on stderr, for a log pipeline.",
    )


@dataclass(frozen=True, kw_only=True)
class CrdOptions:
    """`crd --diff`: what installing the CRD changes, instead of the CRD."""

    GROUP: ClassVar = Group(None, frozenset({"crd"}))

    diff: bool = setting(
        "diff",
        Switch(),
        False,
        in_file=False,
        help="Instead, show what installing it changes in the cluster's CRD: a unified diff of "
        "the installed spec (--kubeconfig, --context) to this one.",
    )


@dataclass(frozen=True, kw_only=True)
class RenderOptions:
    """`render --configuration`: the WebApp's transformer configuration, instead of WebApps."""

    GROUP: ClassVar = Group(None, frozenset({"render"}))

    configuration: bool = setting(
        "configuration",
        Switch(),
        False,
        in_file=False,
        help="Instead, print the kustomize transformer configuration driftctl ships for WebApp "
        "(list it under `configurations:` so that `images:` and `replicas:` reach a WebApp).",
    )


@dataclass(frozen=True, kw_only=True)
class VersionOptions:
    """`version --client`: only this driftctl's version."""

    GROUP: ClassVar = Group(None, frozenset({"version"}))

    client: bool = setting(
        "client",
        Switch(),
        False,
        in_file=False,
        help="Only this driftctl's version: no cluster is read.",
    )
