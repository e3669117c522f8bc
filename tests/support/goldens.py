"""Loads the golden cases under tests/unit/golden/: desired WebApps, live objects, answers.

A case file names live objects as `{"$ref": "<file under golden/objects>", "patch": [...]}`:
a captured-shaped object, optionally changed by an RFC 6902 patch, so many cases share
one capture. To use objects captured from a real API server, drop them into objects/.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonpatch

from driftctl.core.planning.manifests import Stamp
from driftctl.core.source.model import WebApp, WebAppSpec
from tests.support.paths import ROOT

GOLDEN = ROOT / "tests" / "unit" / "golden"
Obj = dict[str, Any]


@dataclass(frozen=True)
class GoldenCase:
    """One golden case, with every reference resolved."""

    name: str
    stamp: Stamp
    desired: list[WebApp]
    webapps: list[Obj]
    deployments: list[Obj]
    dry_run: dict[str, Obj | None]
    options: Obj
    expected: Obj


def load_object(spec: Obj) -> Obj:
    """An object from `{"$ref": file, "patch": ops}`, or the object itself if inline."""
    if "$ref" not in spec:
        return spec
    base: Obj = json.loads((GOLDEN / "objects" / spec["$ref"]).read_text())
    result: Obj = jsonpatch.apply_patch(base, spec.get("patch", []))
    return result


def _webapp(spec: Obj) -> WebApp:
    return WebApp(spec["name"], spec["namespace"], WebAppSpec(spec["image"], spec["replicas"]))


def load_case(path: Path) -> GoldenCase:
    """Read and resolve one case file."""
    raw = json.loads(path.read_text())
    live = [load_object(spec) for spec in raw.get("live", [])]
    return GoldenCase(
        name=path.stem,
        stamp=Stamp(**raw["stamp"]),
        desired=[_webapp(spec) for spec in raw.get("desired", [])],
        webapps=[obj for obj in live if obj["kind"] == "WebApp"],
        deployments=[obj for obj in live if obj["kind"] == "Deployment"],
        dry_run={
            key: None if spec is None else load_object(spec)
            for key, spec in raw.get("dry_run", {}).items()
        },
        options=raw.get("options", {}),
        expected=raw["expected"],
    )


def case_files() -> list[Path]:
    """Every case file, sorted by name."""
    return sorted(GOLDEN.glob("*.json"))
