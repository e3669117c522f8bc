"""The checks a saved plan's JSON passes, value by value, as core.planning.saved_plan's
file_format and object_format read it: each failure names the file, the field and the
reason. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from driftctl.core.planning.saved_plan.identity import SavedPlanError


class Checks:
    """Checks of one file's values; every failure is a SavedPlanError naming the file and
    the field (`objects[3].manifest: must be an object`)."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, where: str, reason: str, *, hint: str | None = None) -> NoReturn:
        raise SavedPlanError(self.file, f"{where}: {reason}" if where else reason, hint=hint)

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, "must be an object")
        out: dict[str, Any] = value
        return out

    def items(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(where, "must be a list")
        out: list[Any] = value
        return out

    def text(self, parent: Mapping[str, Any], key: str, where: str) -> str:
        return self.string(parent.get(key), f"{where}.{key}" if where else key)

    def string(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            self.fail(where, "must be a string")
        return str(value)

    def flag(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            self.fail(where, "must be true or false")
        return bool(value)

    def names(self, value: Any, where: str) -> tuple[str, ...]:
        items = self.items(value, where)
        return tuple(self.string(item, f"{where}[{n}]") for n, item in enumerate(items))

    def each(self, value: Any, where: str) -> list[tuple[dict[str, Any], str]]:
        """The objects of a list, each with its place."""
        listed = enumerate(self.items(value, where))
        return [(self.mapping(item, f"{where}[{n}]"), f"{where}[{n}]") for n, item in listed]

    def operations(self, value: Any, where: str) -> tuple[dict[str, Any], ...]:
        return tuple(entry for entry, _ in self.each(value, where))
