"""Overlays rendered both ways: by the project's kubectl (`kubectl kustomize`, built with the
control plane, no cluster needed) and by driftctl (the load path every command reads
through), and a FileReader that records what it was asked for."""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from driftctl.core.source.tree import FileReader, TreeEntry
from driftctl.errors import InvalidDesiredState
from driftctl.pipeline.offline import render_source
from driftctl.settings import Source
from tests.controlplane import launcher

Obj = dict[str, Any]
WEBAPP = "apiVersion: example.com/v1\nkind: WebApp\n"


@functools.cache
def kubectl() -> Path:
    """The kubectl built with the control plane (built first when the cache lacks it)."""
    return launcher.build_binaries() / "kubectl"


@dataclass(frozen=True)
class Rendered:
    """What one renderer made of an overlay: the objects by (namespace, name), or its error."""

    objects: Mapping[tuple[str, str], Obj]
    error: str | None = None


def by_place(objects: Sequence[Obj]) -> dict[tuple[str, str], Obj]:
    return {(obj["metadata"].get("namespace", ""), obj["metadata"]["name"]): obj for obj in objects}


def kubectl_kustomize(folder: Path) -> Rendered:
    """`kubectl kustomize folder`: its objects, or its error."""
    done = subprocess.run(
        [str(kubectl()), "kustomize", str(folder)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return Rendered({}, done.stderr.strip())
    return Rendered(by_place([doc for doc in yaml.safe_load_all(done.stdout) if doc]))


def driftctl_render(repo: Path, path: str, ref: str | None = None) -> Rendered:
    """The WebApps driftctl's load path renders at `path`, or its problems."""
    try:
        rendered = render_source(Source(repo=str(repo), path=path, ref=ref), {})
    except InvalidDesiredState as invalid:
        return Rendered({}, "\n".join(str(problem) for problem in invalid.problems))
    return Rendered(by_place([dict(body) for body in rendered.webapps]))


def webapp(name: str, image: str = "nginx:1.27", replicas: int = 2, **metadata: Any) -> str:
    """One WebApp document (metadata: namespace, labels...)."""
    lines = [f"  name: {name}"]
    for key, value in metadata.items():
        if isinstance(value, dict):
            lines.append(f"  {key}:")
            lines.extend(f'    {k}: "{v}"' for k, v in value.items())
        else:
            lines.append(f"  {key}: {value}")
    meta = "\n".join(lines)
    return f"{WEBAPP}metadata:\n{meta}\nspec:\n  image: {image}\n  replicas: {replicas}\n"


@dataclass
class Recording:
    """A FileReader that passes every request to a real one and keeps the paths asked for."""

    reader: FileReader
    asked: list[str] = field(default_factory=list)

    def read(self, paths: Sequence[str]) -> Sequence[TreeEntry]:
        self.asked.extend(paths)
        return self.reader.read(paths)
