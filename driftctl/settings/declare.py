"""What a setting is: one declaration, from which everything about it is derived.

A settings group is a frozen dataclass (`Policy`, `Cluster`...) whose fields are declared
with `setting(...)`: the flag's name, the kind of value (driftctl.settings.kinds), its
default, its help, the commands that take it, and whether a saved plan records it. From
that one declaration come the click option and its `DRIFTCTL_*` variable (driftctl.cli
builds them), the typed value (`build`), the `--config` key (driftctl.settings.file), the
saved plan's field (driftctl.settings.recorded) and the docs' tables (made from the click
options). A group says once what most of its settings share (`Group`: the heading its
flags are listed under, the commands that take them, whether a saved plan records them).

A group checks what its values mean together in its `__post_init__`; a kind checks one
value. Pure: no click, no environment, no files.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from driftctl.errors import UsageError
from driftctl.settings.kinds import Kind, Refusal

ENV_PREFIX = "DRIFTCTL_"
_SETTING = "driftctl.setting"

# The commands, by what they do with a cluster.
PLANNING = frozenset({"plan", "apply", "check", "watch"})  # plan what apply would do
READING = PLANNING | {"status", "version", "doctor"}  # read the instance's objects
CONNECTING = READING | {"unlock", "install", "uninstall", "history"}  # reach the cluster at all
SOURCED = frozenset(
    {"validate", "render", "diff", "plan", "apply", "check", "watch", "status", "doctor"}
)


@dataclass(frozen=True)
class Setting:
    """One setting, declared once (module docstring).

    `name` is the flag without its dashes (`max-prune`), the `--config` key and, upper-cased,
    the variable (`DRIFTCTL_MAX_PRUNE`); `field` is the attribute of its group that holds
    it (filled in when the group is read).
    """

    name: str
    kind: Kind[Any]
    help: str
    default: Any = None
    commands: frozenset[str] | None = None  # None: the group's
    many: bool = False  # repeated: `--window A --window B`, a YAML list; a tuple
    short: str | None = None  # a one-letter spelling, `-l`
    negative: str | None = None  # the off spelling of a switch, `no-prune`
    metavar: str | None = None  # None: the kind's
    env: tuple[str, ...] = ()  # variables read after DRIFTCTL_<NAME>, in that order
    recorded: bool | None = None  # a saved plan records it; None: as its group says
    in_file: bool = True  # a --config key (not: what names one run's input, --plan FILE)
    help_for: Mapping[str, str] = field(default_factory=dict)  # per command, where it differs
    show_default: bool = True
    required: bool = False
    argument: bool = False  # a positional argument (NAME...), never a flag nor a key
    env_splitter: str | None = None  # how a repeated setting's variable splits (spaces)
    field: str = ""

    @property
    def variable(self) -> str:
        """The environment variable the setting reads first: DRIFTCTL_<NAME>."""
        return ENV_PREFIX + self.name.upper().replace("-", "_")

    @property
    def flag(self) -> str:
        """How it is written on a command line: `--max-prune`."""
        return f"--{self.name}"

    @property
    def parameter(self) -> str:
        """Its name among a command's parameters (unique per command, as its flag is)."""
        return self.name.replace("-", "_")

    @property
    def key(self) -> str:
        """Its key in a saved plan: the field's name in camelCase (`maxPrune`)."""
        head, *rest = self.field.split("_")
        return head + "".join(part.title() for part in rest)

    def help_of(self, command: str) -> str:
        """The help this command shows for it."""
        return self.help_for.get(command, self.help)

    def refused(self, refusal: Refusal, name: str | None = None) -> UsageError:
        """A value it could not take, as the error a person reads (exit 2)."""
        return UsageError(refusal.about(name or self.flag), hint=refusal.hint)

    def read(self, value: object, name: str | None = None) -> Any:
        """Its value from what the command line handed over (text, or typed already; None:
        its default); UsageError naming the flag (or `name`) when the value cannot be taken."""
        if value is None:
            return self.default
        try:
            if self.many:
                return tuple(self.kind.adopt(each) for each in value)  # type: ignore[attr-defined]
            return self.kind.adopt(value)
        except Refusal as refusal:
            raise self.refused(refusal, name) from None

    def text(self, value: Any) -> str:
        """Its value as text (a repeated one's items joined by `; `)."""
        if value is None:
            return ""
        if self.many:
            return "; ".join(self.kind.text(each) for each in value)
        return self.kind.text(value)


def setting(name: str, kind: Kind[Any], default: Any = None, *, help: str, **options: Any) -> Any:
    """A field of a settings group declared as the setting `name` (see `Setting`)."""
    declared = Setting(name, kind, help, default, **options)
    return dataclasses.field(default=default, metadata={_SETTING: declared})


@dataclass(frozen=True)
class Group:
    """What a group's settings share: the heading of their flags in --help (None: the
    command's own `Flags`), the commands that take them (unless a setting names its own),
    and whether a saved plan records them."""

    title: str | None
    commands: frozenset[str]
    recorded: bool = False


class Grouped(Protocol):
    """A settings group: a frozen dataclass with its `GROUP`."""

    GROUP: ClassVar[Group]
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]


G = TypeVar("G", bound=Grouped)


_DECLARED: dict[type[Any], tuple[Setting, ...]] = {}  # each group's, read once
_GROUPS: dict[type[Any], tuple[tuple[str, type[Grouped]], ...]] = {}  # each request's


def declarations(group: type[Grouped]) -> tuple[Setting, ...]:
    """The settings of a group, in the order they are declared, each knowing its field and
    its commands (the group's unless it names its own)."""
    if group not in _DECLARED:
        _DECLARED[group] = _declared(group)
    return _DECLARED[group]


def _declared(group: type[Grouped]) -> tuple[Setting, ...]:
    found = []
    for each in dataclasses.fields(group):
        declared = each.metadata.get(_SETTING)
        if isinstance(declared, Setting):
            commands = declared.commands or group.GROUP.commands
            recorded = group.GROUP.recorded if declared.recorded is None else declared.recorded
            found.append(
                dataclasses.replace(declared, field=each.name, commands=commands, recorded=recorded)
            )
    return tuple(found)


def taken_by(group: type[Grouped], command: str) -> tuple[Setting, ...]:
    """The settings of a group that `command` takes."""
    return tuple(each for each in declarations(group) if command in (each.commands or ()))


def build(
    group: type[G],
    values: Mapping[str, object],
    command: str,
    names: Mapping[str, str] | None = None,
) -> G:
    """The group's value for `command` from its settings' values as the command line hands
    them over (by parameter name; a setting the command does not take keeps its default).
    Each value is read by its kind, then the group checks them together. A value refused
    is named by its flag, or as `names` says (by parameter name: where the value came from)."""
    names = names or {}
    fields = {
        each.field: each.read(values[each.parameter], names.get(each.parameter))
        for each in taken_by(group, command)
        if each.parameter in values
    }
    return group(**fields)


def groups_of(request: type[Any]) -> tuple[tuple[str, type[Grouped]], ...]:
    """The settings groups a request is made of, by field, in order (fields that are not
    groups, such as what the command line adds itself, are left out)."""
    if request not in _GROUPS:
        _GROUPS[request] = _grouped(request)
    return _GROUPS[request]


def _grouped(request: type[Any]) -> tuple[tuple[str, type[Grouped]], ...]:
    hints = typing.get_type_hints(request)
    return tuple(
        (each.name, hints[each.name])
        for each in dataclasses.fields(request)
        if isinstance(hints[each.name], type) and hasattr(hints[each.name], "GROUP")
    )


def every_group(requests: Iterable[type[Any]]) -> tuple[type[Grouped], ...]:
    """Each group the requests use, once, in the order first met."""
    seen: dict[type[Grouped], None] = {}
    for request in requests:
        for _, group in groups_of(request):
            seen.setdefault(group, None)
    return tuple(seen)


def from_written(group: type[G], **values: object) -> G:
    """The group's value from its settings' values by field, as written (text, read by each
    setting's kind: `max_prune="25%"`) or typed already; what a saved plan or a test holds."""
    declared = {each.field: each for each in declarations(group)}
    return group(
        **{
            name: declared[name].read(value) if name in declared else value
            for name, value in values.items()
        }
    )
