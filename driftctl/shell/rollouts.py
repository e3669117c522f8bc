"""Reads what a rollout is made of: a Deployment's new ReplicaSet and that one's Pods.

Two LISTs in the Deployment's namespace, by label selector: its ReplicaSets (the
Deployment's selector), then the Pods of the one of its current revision (the ReplicaSet's
selector, its template hash included). Only asked for when core.planning.status.reads_pods
says they can tell something, so a run whose rollouts are all complete and recorded reads
neither. Which ReplicaSet is new, and what its Pods mean, is core.planning.rollout's.
"""

from __future__ import annotations

from driftctl.core.api import requests as r
from driftctl.core.planning.objects import Obj, key_of, metadata
from driftctl.core.planning.rollout import NewPods, new_replicaset, selector_of
from driftctl.shell.kube import Kube


def read_new_pods(kube: Kube, deployment: Obj) -> NewPods | None:
    """The new ReplicaSet of `deployment` and its Pods (none when it has no such
    ReplicaSet); None when its selector is empty."""
    namespace, selector = key_of(deployment).namespace, selector_of(deployment)
    if not selector:
        return None  # it would select every ReplicaSet of the namespace
    replicasets = kube.list_all(r.REPLICASET, selector, namespace=namespace)
    replicaset = new_replicaset(deployment, replicasets)
    generation = int(metadata(deployment).get("generation", 0))
    if replicaset is None:
        return NewPods(None, (), generation)
    pods = kube.list_all(r.POD, selector_of(replicaset), namespace=namespace)
    return NewPods(replicaset, tuple(pods), generation)
