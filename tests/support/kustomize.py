"""cronjob/ as the API server gets it: rendered by `kubectl kustomize`, overlays included.

The kubectl built with the control plane has kustomize in it. Tests render the shipped
kustomizations, or write an overlay of their own on top of one (kustomize wants a relative
path to it), and hand the objects to the API server.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from tests.support.paths import ROOT

CRONJOB = ROOT / "cronjob"
NAMESPACE = "driftctl-system"
# What makes the ServiceAccount and what it may do, as opposed to what runs as it.
ACCOUNT_KINDS = (
    "Namespace",
    "ServiceAccount",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
)
Obj = dict[str, Any]


def render(kubectl: Path, folder: Path) -> list[Obj]:
    """The objects `kubectl apply -k folder` would send."""
    done = subprocess.run(
        [str(kubectl), "kustomize", str(folder)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"kubectl kustomize {folder}: {done.stderr}"
    return [document for document in yaml.safe_load_all(done.stdout) if document]


def write_overlay(folder: Path, bases: Sequence[Path], **fields: Any) -> Path:
    """A kustomization in `folder` on top of `bases`, with more fields (patches, images...)."""
    folder.mkdir(parents=True, exist_ok=True)
    kustomization: dict[str, Any] = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [relative(folder, base) for base in bases],
        **fields,
    }
    (folder / "kustomization.yaml").write_text(json.dumps(kustomization, indent=2))
    return folder


def settings_patch(folder: Path, **changes: object) -> dict[str, Any]:
    """A patch of the ConfigMap driftctl-settings: the settings file `folder` ships (its
    settings.yaml), each key of `changes` (git_poll: `git-poll`) set, its comments kept."""
    configmap = yaml.safe_load((folder / "settings.yaml").read_text())
    lines = configmap["data"]["settings.yaml"].splitlines()
    for name, value in changes.items():
        key = name.replace("_", "-")
        line = yaml.safe_dump({key: value}, width=1000).strip()
        at = [index for index, each in enumerate(lines) if each.startswith(f"{key}: ")]
        if at:
            lines[at[0]] = line
        else:
            lines.append(line)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": configmap["metadata"],
        "data": {"settings.yaml": "\n".join(lines) + "\n"},
    }


def relative(folder: Path, target: Path) -> str:
    """`target` as kustomize wants it in a kustomization in `folder`."""
    return os.path.relpath(target, folder)


def of_kind(documents: Sequence[Obj], *kinds: str) -> list[Obj]:
    return [document for document in documents if document["kind"] in kinds]


def named(documents: Sequence[Obj], kind: str, name: str) -> Obj:
    [found] = [d for d in documents if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def account(kubectl: Path, folder: Path = CRONJOB) -> list[Obj]:
    """The ServiceAccount, its namespace and its RBAC, from a kustomization of cronjob/."""
    return of_kind(render(kubectl, folder), *ACCOUNT_KINDS)
