"""The pre-merge `check`'s own settings: the two refs it compares (`Refs`, which `diff`
takes too), what makes it fail and the clusters it reports on (`Check`, its `Target`s).

`check` reads the cluster only when credentials are named (a kubeconfig or a context), so
a check never reaches whatever cluster happens to be current. A target names its cluster
itself (`context=` or `kubeconfig=`): a report across environments never stands in one
for another.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import ClassVar

from driftctl.errors import UsageError
from driftctl.kube_formats import label_problem
from driftctl.settings.cluster import Cluster, instance_problem
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import Kind, Listed, Refusal, Switch, Text, Whole, plain_type
from driftctl.settings.verify import TRUST_FAILURES, Verify

# What `check --fail-on` may name: "unsigned" and "untrusted" are commits (`--verify`),
# "unreachable" a target of several whose cluster could not be read (`--target`).
FAIL_ON = (
    "invalid",
    "prune",
    "replace",
    "drift",
    "change",
    "unsigned",
    "untrusted",
    "unreachable",
)
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


@dataclass(frozen=True)
class Target:
    """One cluster of a check across environments: its name in the report, how to reach it
    (a kubeconfig context, a kubeconfig file, or both), the folder (overlay) that cluster
    applies and its instance. What it leaves out is the run's: --kubeconfig, --path,
    --instance."""

    name: str
    context: str | None = None
    kubeconfig: str | None = None
    path: str | None = None
    instance: str | None = None

    def __str__(self) -> str:
        pairs = [(each.name, getattr(self, each.name)) for each in fields(self)]
        return ",".join(f"{key}={value}" for key, value in pairs if value is not None)


_TARGET_KEYS = tuple(each.name for each in fields(Target))
_TARGET_HINT = (
    "write a target as name=NAME,context=CONTEXT[,kubeconfig=FILE][,path=FOLDER]"
    "[,instance=INSTANCE]; in a --config file, a mapping of those keys"
)
_VALUE_CHECKS = {"name": label_problem, "instance": instance_problem}


@dataclass(frozen=True)
class TargetKind(Kind[Target]):
    """A target as `--target` writes it, `name=prod,context=prod,path=overlays/prod`, or as
    a `--config` file does, a mapping of the same keys. A refusal names the column of the
    pair at fault (the flag), or the key's place (the file, through `Refusal.within`)."""

    metavar = "name=N,context=C[,kubeconfig=F][,path=P][,instance=I]"

    def parse(self, text: str) -> Target:
        pairs: dict[str, str] = {}
        column = 1
        for part in text.split(","):
            key, equals, value = part.partition("=")
            key = key.strip()
            where = f"{text!r}:{column}:"
            if not equals:
                raise Refusal(f"{where} {part!r} is not key=value", _TARGET_HINT)
            if key in pairs:
                raise Refusal(f"{where} names {key} twice", _TARGET_HINT)
            problem = _pair_problem(key, value.strip())
            if problem is not None:
                raise Refusal(f"{where} {problem}", _TARGET_HINT)
            pairs[key] = value.strip()
            column += len(part) + 1
        return _target(pairs, text)

    def text(self, value: Target) -> str:
        return str(value)

    def from_plain(self, value: object) -> Target:
        if isinstance(value, str):
            return self.parse(value)
        if not isinstance(value, Mapping):
            raise Refusal(
                f"must be a mapping of {', '.join(_TARGET_KEYS)}, not {plain_type(value)}"
            )
        pairs: dict[str, str] = {}
        for key, item in value.items():
            problem: str | None = f"{key} must be a string, not {plain_type(item)}"
            if not isinstance(item, bool) and isinstance(item, str | int):
                problem = _pair_problem(str(key), str(item))
            if problem is not None:
                raise Refusal(problem, _TARGET_HINT, within=(str(key),))
            pairs[str(key)] = str(item)
        return _target(pairs)

    def to_plain(self, value: Target) -> object:
        return {key: getattr(value, key) for key in _TARGET_KEYS if getattr(value, key)}


def _pair_problem(key: str, value: str) -> str | None:
    """Why one key=value of a target cannot be taken, or None."""
    if key not in _TARGET_KEYS:
        close = difflib.get_close_matches(key, _TARGET_KEYS, n=1, cutoff=0.6)
        nearest = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown key {key!r}{nearest}"
    if not value:
        return f"{key} is empty"
    check = _VALUE_CHECKS.get(key)
    problem = check(value) if check is not None else None
    return f"{key} {value!r} {problem}" if problem is not None else None


def _target(pairs: Mapping[str, str], written: str = "") -> Target:
    """The target of checked pairs: it needs its name and its cluster (`written`: the text
    the pairs were read from, which a refusal quotes)."""
    quoted = f"{written!r}: " if written else ""
    if "name" not in pairs:
        raise Refusal(f"{quoted}has no name=: the report names each target", _TARGET_HINT)
    if "context" not in pairs and "kubeconfig" not in pairs:
        raise Refusal(
            f"{quoted}target {pairs['name']!r} names no cluster: give context=, kubeconfig= "
            "or both",
            _TARGET_HINT,
        )
    return Target(**pairs)


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
    targets: tuple[Target, ...] = setting(
        "target",
        TargetKind(),
        (),
        many=True,
        show_default=False,
        metavar="name=N,context=C[,kubeconfig=F][,path=P][,instance=I]",
        env_splitter=";",  # a target holds commas, never a `;`
        help="A cluster to report on, repeated for several: one report, a section per target. "
        "Keys left out are the run's (--kubeconfig, --path, --instance). With several, a "
        "target that cannot be read is a line of the report (--fail-on unreachable fails it).",
    )

    def __post_init__(self) -> None:
        names = [target.name for target in self.targets]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise UsageError(
                f"--target names {', '.join(map(repr, twice))} more than once",
                hint="each target's name heads its part of the report: name each once",
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
