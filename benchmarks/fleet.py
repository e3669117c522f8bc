"""What both tools are given in bench_cluster: a fleet of N WebApps, as Git and as files.

N WebApps spread over 10 namespaces and 100 files; 1% of their Deployments drift (scaled
and given another image by a person); 1% of the WebApps are then removed from Git. driftctl
reads the fleet from a real Git repository; kubectl applies what driftctl would build
(`webapp_manifest`, `build_deployment`), rendered to 100 files the same way.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from driftctl.core.planning.manifests import Stamp, build_deployment, webapp_manifest
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.render.manifests import to_yaml
from tests.support.builders import webapp
from tests.support.gitrepos import Repo

NAMESPACES = 10
FILES = 100
EVERY = 100  # 1%: every 100th WebApp drifts, and every 100th (others) is removed
IMAGE, DRIFTED_IMAGE = "nginx:1.27", "nginx:1.28"
REPLICAS, DRIFTED_REPLICAS = 2, 5
APPLYSET_GROUP, APPLYSET_KIND, APPLYSET_PLURAL = "bench.example.com", "ApplySet", "applysets"


@dataclass(frozen=True)
class Fleet:
    """N WebApps of one tool's turn; namespaces `<prefix>-0` to `<prefix>-9`."""

    count: int
    prefix: str

    def namespace(self, index: int) -> str:
        return f"{self.prefix}-{index % NAMESPACES}"

    @property
    def namespaces(self) -> list[str]:
        return [f"{self.prefix}-{k}" for k in range(NAMESPACES)]

    def apps(self, *, removed: bool = False) -> list[WebApp]:
        """The WebApps Git declares (without the removed 1% when `removed`)."""
        return [
            WebApp(f"app-{i:05d}", self.namespace(i), WebAppSpec(IMAGE, REPLICAS))
            for i in range(self.count)
            if not (removed and i in self.removed_indices)
        ]

    def file_of(self, app: WebApp) -> int:
        return int(app.name.removeprefix("app-")) % FILES

    @property
    def drifted(self) -> list[tuple[str, str]]:
        """(namespace, name) of the Deployments a person changes: every 100th, at least one."""
        return [(self.namespace(i), f"app-{i:05d}") for i in range(0, self.count, EVERY)]

    @property
    def removed_indices(self) -> set[int]:
        """The WebApps removed from Git: every 100th, halfway between the drifted ones."""
        return set(range(min(EVERY // 2, self.count - 1), self.count, EVERY))


def _by_file(fleet: Fleet, apps: list[WebApp]) -> dict[int, list[WebApp]]:
    files: dict[int, list[WebApp]] = {}
    for app in apps:
        files.setdefault(fleet.file_of(app), []).append(app)
    return files


def write_git(fleet: Fleet, repo: Repo, *, removed: bool = False) -> str:
    """Make Git declare the fleet in 100 files under apps/; return the commit."""
    files = _by_file(fleet, fleet.apps(removed=removed))
    texts = {
        f"apps/file-{f:03d}.yaml": "---\n".join(
            webapp(app.name, app.spec.image, app.spec.replicas, namespace=app.namespace)
            for app in apps
        )
        for f, apps in files.items()
    }
    stale = [
        f"apps/file-{f:03d}.yaml"
        for f in range(FILES)
        if f not in files and (repo.path / f"apps/file-{f:03d}.yaml").exists()
    ]
    if stale:
        repo.remove(*stale)
    repo.write(texts)
    return repo.commit("removed 1%" if removed else f"{fleet.count} WebApps")


def render_for_kubectl(fleet: Fleet, stamp: Stamp, folder: Path, *, removed: bool = False) -> None:
    """What driftctl would apply, in 100 files: per WebApp, the WebApp and its Deployment.

    kubectl cannot know a WebApp's uid before it exists, so the Deployments carry no
    ownerReference; and it runs no cleanup, so the WebApps carry no cleanup finalizer (its
    prune then leaves nothing behind, as driftctl's does). Every other field is the one
    driftctl sends.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.yaml"):
        old.unlink()
    for f, apps in _by_file(fleet, fleet.apps(removed=removed)).items():
        documents = []
        for app in apps:
            webapp = webapp_manifest(app, stamp)
            del webapp["metadata"]["finalizers"]
            deployment = build_deployment(app, stamp.instance, owner_uid="")
            del deployment["metadata"]["ownerReferences"]
            documents += [to_yaml(webapp), to_yaml(deployment)]
        (folder / f"file-{f:03d}.yaml").write_text("---\n".join(documents))


def applyset_id(name: str) -> str:
    """The id kubectl gives a cluster-scoped ApplySet parent (KEP-3659), checked against it."""
    digest = hashlib.sha256(f"{name}..{APPLYSET_KIND}.{APPLYSET_GROUP}".encode()).digest()
    return "applyset-" + base64.urlsafe_b64encode(digest).decode().rstrip("=") + "-v1"


APPLYSET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {
        "name": f"{APPLYSET_PLURAL}.{APPLYSET_GROUP}",
        "labels": {"applyset.kubernetes.io/is-parent-type": "true"},
    },
    "spec": {
        "group": APPLYSET_GROUP,
        "scope": "Cluster",
        "names": {"plural": APPLYSET_PLURAL, "singular": "applyset", "kind": APPLYSET_KIND},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object"}},
            }
        ],
    },
}


def applyset_parent(name: str, kubectl_version: str) -> str:
    """The parent kubectl needs made for it: it creates only Secret and ConfigMap parents,
    and those are namespaced, which limits a set to one namespace."""
    parent = {
        "apiVersion": f"{APPLYSET_GROUP}/v1",
        "kind": APPLYSET_KIND,
        "metadata": {
            "name": name,
            "labels": {"applyset.kubernetes.io/id": applyset_id(name)},
            "annotations": {
                "applyset.kubernetes.io/tooling": f"kubectl/{kubectl_version}",
                "applyset.kubernetes.io/contains-group-kinds": "",
            },
        },
    }
    return json.dumps(parent)
