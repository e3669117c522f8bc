"""Manifests as text: YAML or JSON, in a stable form fit for committing and for kubectl.

Key order is kept as built (a CRD reads top-down: names, versions, schema), YAML never
uses anchors and writes text of several lines as a literal block (as it is read), and JSON
is indented with a trailing newline. Pure: returns strings.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

import yaml


class _PlainDumper(yaml.SafeDumper):
    """A safe dumper that writes repeated objects out in full instead of as aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    """Text of several lines (a settings file in a ConfigMap) as a literal block, as read."""
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", data, style="|" if "\n" in data else None
    )


_PlainDumper.add_representer(str, _text)


def to_yaml(manifest: Mapping[str, Any], *, notice: str | None = None) -> str:
    """One YAML document, preceded by `# notice` when given."""
    body = yaml.dump(
        dict(manifest), Dumper=_PlainDumper, sort_keys=False, default_flow_style=False, width=100
    )
    return f"# {notice}\n{body}" if notice else body


def to_json(manifest: Mapping[str, Any]) -> str:
    """One JSON document, indented by two spaces, ending in a newline."""
    return json.dumps(manifest, indent=2) + "\n"


def json_as_yaml(text: str) -> str:
    """A JSON document (a report's `-o json`) as the same YAML (`-o yaml`), keys in order."""
    return to_yaml(json.loads(text))


def diff_text(before: Mapping[str, Any], after: Mapping[str, Any], names: tuple[str, str]) -> str:
    """A unified diff of two documents as YAML, keys sorted on both sides so that only
    values and presence differ; empty when they are equal."""

    def lines(document: Mapping[str, Any]) -> list[str]:
        if not document:
            return []
        text = yaml.dump(
            dict(document), Dumper=_PlainDumper, sort_keys=True, default_flow_style=False, width=100
        )
        return text.splitlines()

    diff = difflib.unified_diff(lines(before), lines(after), *names, lineterm="")
    return "".join(f"{line}\n" for line in diff)
