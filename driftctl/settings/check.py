"""The pre-merge `check`'s own settings: the two refs it compares (`Refs`, which `diff`
takes too) and what makes it fail (`Check`).

`check` reads the cluster only when credentials are named (a kubeconfig or a context), so
a check never reaches whatever cluster happens to be current.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftctl.errors import UsageError
from driftctl.settings.cluster import Cluster
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import Listed, Switch, Text, Whole
from driftctl.settings.verify import TRUST_FAILURES, Verify

# What `check --fail-on` may name: "unsigned" and "untrusted" are commits (`--verify`).
FAIL_ON = ("invalid", "prune", "replace", "drift", "change", "unsigned", "untrusted")
DEFAULT_MAX_BYTES = 65_536  # a GitHub comment holds at most 65,536 characters
MIN_MAX_BYTES = 4_096  # room for the summary and a few objects
_BOTH = frozenset({"check", "diff"})


@dataclass(frozen=True, kw_only=True)
class Refs:
    """The two sides compared: the ref merged into, and the change (None: a local path's
    working tree)."""

    GROUP: ClassVar = Group(None, _BOTH)

    base: str = setting(
        "base",
        Text(),
        required=True,
        in_file=False,
        help="Branch, tag or commit the pull request merges into.",
        help_for={"diff": "Branch, tag or commit before the change (e.g. main)."},
    )
    head: str | None = setting(
        "head",
        Text(),
        in_file=False,
        help="Branch, tag or commit of the pull request (default: the working tree of a "
        "local path).",
        help_for={
            "diff": "Branch, tag or commit after the change (default: the working tree of a "
            "local path)."
        },
    )


@dataclass(frozen=True, kw_only=True)
class Check:
    """What makes `check` fail, how long its Markdown may be, and whether it reads the cluster."""

    GROUP: ClassVar = Group("Check flags", frozenset({"check"}))

    fail_on: tuple[str, ...] = setting(
        "fail-on",
        Listed(
            FAIL_ON,
            hint=f"name any of {', '.join(FAIL_ON)}, separated by commas (or '' for none)",
        ),
        ("invalid",),
        metavar="SET",
        help=f"What makes the exit code non-zero, comma-separated: any of {', '.join(FAIL_ON)} "
        "('' for nothing).",
    )
    max_bytes: int = setting(
        "max-bytes",
        Whole(minimum=MIN_MAX_BYTES),
        DEFAULT_MAX_BYTES,
        help="Most bytes of the Markdown report (a GitHub comment holds 65,536 characters).",
    )
    offline: bool = setting(
        "offline", Switch(), False, help="Never read the cluster, even with credentials."
    )

    def reads_cluster(self, cluster: Cluster) -> bool:
        """Whether `check` reads the cluster: only when credentials are named."""
        return not self.offline and (cluster.kubeconfig is not None or cluster.context is not None)

    def needs_verify(self, verify: Verify) -> None:
        """`--fail-on unsigned|untrusted` judges commits: it needs --verify to see them."""
        asked = sorted(set(TRUST_FAILURES) & set(self.fail_on))
        if asked and not verify.enabled:
            raise UsageError(
                f"--fail-on {','.join(asked)} needs --verify head or --verify all",
                hint="--verify all lists every commit of the pull request with its signer",
            )
