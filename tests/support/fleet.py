"""Several clusters for one test: one kubeconfig naming each as a context (as a person's
kubeconfig names staging and prod), and a target no cluster answers for."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from tests.support.faultproxy import kubeconfig_for
from tests.support.gitrepos import free_port


def merged_kubeconfig(sources: Mapping[str, Path], written: Path) -> Path:
    """One (JSON) kubeconfig with a context per name: the first context of that name's file,
    its cluster and user renamed after it; its path."""
    merged: dict[str, object] = {"apiVersion": "v1", "kind": "Config", "preferences": {}}
    clusters, users, contexts = [], [], []
    for name, source in sources.items():
        config = json.loads(source.read_text())
        context = config["contexts"][0]["context"]
        [cluster] = [c for c in config["clusters"] if c["name"] == context["cluster"]]
        [user] = [u for u in config["users"] if u["name"] == context["user"]]
        clusters.append({"name": name, "cluster": cluster["cluster"]})
        users.append({"name": name, "user": user["user"]})
        contexts.append({"name": name, "context": {**context, "cluster": name, "user": name}})
    merged |= {"clusters": clusters, "users": users, "contexts": contexts}
    merged["current-context"] = next(iter(sources))
    written.write_text(json.dumps(merged))
    written.chmod(0o600)
    return written


def unreachable_kubeconfig(kubeconfig: Path, written: Path) -> Path:
    """A copy of `kubeconfig` whose server is a loopback port nobody listens on."""
    return kubeconfig_for(kubeconfig, f"https://127.0.0.1:{free_port()}", written)
