"""The settings a saved plan records, written and read: derived from the declarations.

A group whose settings a saved plan records (`Group.recorded`: the policy, what counts as
drift) is written as one JSON object, a key per setting (its field in camelCase:
`maxPrune`), each value as its kind writes it (`to_plain`: true/false, a number, text, a
list of texts, null when unset), and read back the same way. A key the file lacks (a file
written before the setting existed) is read as the setting's default, so a new setting
needs nothing here. Pure: core.planning.saved_plan puts these objects in its document.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

from driftctl.errors import UsageError
from driftctl.settings.declare import Grouped, Setting, declarations
from driftctl.settings.kinds import Refusal

G = TypeVar("G", bound=Grouped)
Fail = Callable[[str, str], NoReturn]  # (the key, why) -> raises


def recorded_json(value: Grouped) -> dict[str, Any]:
    """The recorded settings of a group's value, as a JSON object."""
    return {
        each.key: _plain(each, getattr(value, each.field))
        for each in declarations(type(value))
        if each.recorded
    }


def from_recorded(group: type[G], document: Mapping[str, Any], fail: Fail) -> G:
    """The group's value from its JSON object; `fail(key, reason)` on what cannot be read."""
    values = {}
    for each in declarations(group):
        if each.recorded and each.key in document:
            try:
                values[each.field] = _value(each, document[each.key])
            except Refusal as refusal:
                fail(each.key, refusal.about(each.flag))
    try:
        return group(**values)
    except UsageError as bad:
        fail("", bad.message)


def _plain(setting: Setting, value: Any) -> Any:
    if value is None:
        return None
    if setting.many:
        return [setting.kind.to_plain(each) for each in value]
    return setting.kind.to_plain(value)


def _value(setting: Setting, value: Any) -> Any:
    if value is None:
        if setting.default is not None:
            raise Refusal("must not be null")
        return None
    if setting.many:
        if not isinstance(value, list):
            raise Refusal("must be a list")
        return tuple(setting.kind.from_plain(each) for each in value)
    return setting.kind.from_plain(value)
