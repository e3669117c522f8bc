"""The OpenAPI v3 schema of the model, and the one validator that checks values against it.

The model's dataclass fields carry their schema facts (`prop`): description, JSON name,
bounds. `schema_of` turns a dataclass into the structural schema the CRD publishes, and
`check` validates a plain value against such a schema the way the API server does for the
keywords used here. Because the CRD and the offline validation read the same schema, they
cannot disagree by construction. This module knows nothing about WebApps in particular.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

Schema = dict[str, Any]
Path = tuple[str | int, ...]

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_METADATA_KEY = "driftctl.schema"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Prop:
    """Schema facts about one model field."""

    description: str
    json_name: str | None = None
    format: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    enum: tuple[str, ...] | None = None
    optional: bool = False  # a field without a default that the schema still does not require
    list_map_keys: tuple[str, ...] | None = None  # a list merged by key under server-side apply
    max_items: int | None = None


def prop(description: str, **facts: Any) -> Any:
    """A dataclass field carrying its schema facts; required unless it has a default."""
    default = facts.pop("default", dataclasses.MISSING)
    info = Prop(description, **facts)
    if default is dataclasses.MISSING:
        return dataclasses.field(metadata={_METADATA_KEY: info})
    return dataclasses.field(default=default, metadata={_METADATA_KEY: info})


def field_prop(f: dataclasses.Field[Any]) -> Prop:
    """The schema facts of a field; every model field must have them."""
    info = f.metadata.get(_METADATA_KEY)
    if not isinstance(info, Prop):
        raise TypeError(f"model field {f.name!r} has no schema facts; declare it with prop()")
    return info


def json_name(cls: type, attribute: str) -> str:
    """The name an attribute of a model class has on the wire."""
    for f in dataclasses.fields(cls):
        if f.name == attribute:
            return field_prop(f).json_name or f.name
    raise KeyError(attribute)


def schema_of(cls: type) -> Schema:
    """The structural schema of a model dataclass: typed properties, required fields."""
    hints = typing.get_type_hints(cls)
    properties: Schema = {}
    required: list[str] = []
    for f in dataclasses.fields(cls):
        info = field_prop(f)
        name = info.json_name or f.name
        properties[name] = _type_schema(hints[f.name]) | _facts(info)
        has_default = f.default is not dataclasses.MISSING
        if not (has_default or f.default_factory is not dataclasses.MISSING or info.optional):
            required.append(name)
    schema: Schema = {"type": "object"}
    if cls.__doc__:
        schema["description"] = " ".join(cls.__doc__.split())
    schema["properties"] = properties
    if required:
        schema["required"] = required
    return schema


def _type_schema(hint: Any) -> Schema:
    if hint is str:
        return {"type": "string"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if typing.get_origin(hint) is tuple:
        item, _ellipsis = typing.get_args(hint)
        return {"type": "array", "items": _type_schema(item)}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return schema_of(hint)
    raise TypeError(f"no schema for model type {hint!r}")


def _facts(info: Prop) -> Schema:
    facts: Schema = {"description": info.description}
    optional_facts = {
        "format": info.format,
        "minimum": info.minimum,
        "maximum": info.maximum,
        "minLength": info.min_length,
        "maxLength": info.max_length,
        "pattern": info.pattern,
        "enum": list(info.enum) if info.enum else None,
        "maxItems": info.max_items,
    }
    facts.update({key: value for key, value in optional_facts.items() if value is not None})
    if info.list_map_keys:
        facts["x-kubernetes-list-type"] = "map"
        facts["x-kubernetes-list-map-keys"] = list(info.list_map_keys)
    return facts


@dataclass(frozen=True)
class Violation:
    """One way a value breaks its schema, at a path inside the value."""

    path: Path
    message: str


def check(value: object, schema: Schema, path: Path = ()) -> Iterator[Violation]:
    """Every violation of `schema` by `value`, as the API server's validation would find it.

    Nulls are treated as absent, as the API server prunes nulls of non-nullable fields
    before it validates. Unknown fields are violations, as with strict field validation.
    """
    kind = schema.get("type")
    if kind == "object":
        yield from _check_object(value, schema, path)
    elif kind == "array":
        yield from _check_array(value, schema, path)
    elif kind == "string":
        yield from _check_string(value, schema, path)
    elif kind == "integer":
        yield from _check_integer(value, schema, path)
    elif kind == "boolean" and not isinstance(value, bool):
        yield Violation(path, f"must be a boolean, got {describe(value)}")


def _check_object(value: object, schema: Schema, path: Path) -> Iterator[Violation]:
    if not isinstance(value, Mapping):
        yield Violation(path, f"must be a mapping, got {describe(value)}")
        return
    properties: Schema = schema.get("properties", {})
    for name in schema.get("required", []):
        if value.get(name) is None:
            yield Violation((*path, name), "is required")
    for key, item in value.items():
        if item is None:
            continue
        if key not in properties:
            known = ", ".join(sorted(properties)) or "none"
            yield Violation((*path, str(key)), f"is not a known field (known: {known})")
            continue
        yield from check(item, properties[key], (*path, key))


def _check_array(value: object, schema: Schema, path: Path) -> Iterator[Violation]:
    if not isinstance(value, list):
        yield Violation(path, f"must be a list, got {describe(value)}")
        return
    for index, item in enumerate(value):
        yield from check(item, schema["items"], (*path, index))


def _check_string(value: object, schema: Schema, path: Path) -> Iterator[Violation]:
    if not isinstance(value, str):
        yield Violation(path, f"must be a string, got {describe(value)}")
        return
    if len(value) < schema.get("minLength", 0):
        minimum = schema["minLength"]
        yield Violation(
            path, "must not be empty" if minimum == 1 else f"must be at least {minimum} characters"
        )
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        yield Violation(path, f"must be at most {schema['maxLength']} characters long")
    if "enum" in schema and value not in schema["enum"]:
        yield Violation(path, f"must be one of {', '.join(schema['enum'])}, got {value!r}")
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        yield Violation(path, f"must match {schema['pattern']}, got {value!r}")


def _check_integer(value: object, schema: Schema, path: Path) -> Iterator[Violation]:
    # bool is an int in Python but never an integer in JSON; floats are refused even when
    # whole, so `3.0` in Git is not silently read as 3.
    if isinstance(value, bool) or not isinstance(value, int):
        yield Violation(path, f"must be an integer, got {describe(value)}")
        return
    low, high = _INT_RANGES.get(schema.get("format", ""), (None, None))
    low = schema.get("minimum", low)
    high = schema.get("maximum", high)
    if low is not None and value < low:
        yield Violation(path, f"must be greater than or equal to {low}, got {value}")
    if high is not None and value > high:
        yield Violation(path, f"must be less than or equal to {high}, got {value}")


def describe(value: object) -> str:
    """A value's YAML type, as a person who wrote the YAML would call it."""
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
        type(None): "null",
    }
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    for python_type, name in names.items():
        if type(value) is python_type:
            return f"{name} ({value!r})" if python_type in (int, float) else name
    return type(value).__name__  # e.g. a date: YAML reads 2024-01-01 as one


def dotted(path: Path) -> str:
    """A path inside a document the way kubectl names fields: spec.containers[0].image."""
    text = ""
    for part in path:
        if isinstance(part, int) or not _PLAIN_KEY.fullmatch(str(part)):
            # e.g. labels[app.kubernetes.io/name]: dots would mislead; a key holding a new
            # line is shown escaped, so that the problem stays on one line
            shown = part if isinstance(part, int) or part.isprintable() else repr(part)
            text += f"[{shown}]"
        else:
            text += f".{part}" if text else str(part)
    return text
