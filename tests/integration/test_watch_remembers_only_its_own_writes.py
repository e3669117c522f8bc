"""`watch` takes the answer of its own write into memory before its event comes back
(pipeline.watch.feed), but only what its informers would hold: an object with this
instance's label. A write that answers without it (an orphaning releases a Deployment by
taking its instance label away) must not stand in memory as one of the instance's own: a
plan made from that memory would act on it (a prune of a Deployment whose WebApp is gone).

The feed runs against the real API server, its informers started and synced; its writes
are real server-side applies; what it holds is read right after the write's answer.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from driftctl import conventions as c
from driftctl.core.api import requests as r
from driftctl.core.source.model import Place
from driftctl.pipeline.watch.feed import Feed
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.setup import Runtime
from driftctl.settings import WHOLE, Cluster
from driftctl.shell.apply import Progress
from driftctl.shell.kube import connect
from tests.support.harness import Harness, eventually

NAMES = [f"app-{n}" for n in range(10)]  # each released right after the other


def deployment(harness: Harness, name: str, instance: str | None) -> dict[str, Any]:
    selector = {"app.kubernetes.io/name": name}
    labels = {**selector, **({c.INSTANCE_LABEL: instance} if instance else {})}
    containers = [{"name": "app", "image": "a:1"}]
    pod = {"metadata": {"labels": selector}, "spec": {"containers": containers}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": harness.namespace, "labels": labels},
        "spec": {"replicas": 1, "selector": {"matchLabels": selector}, "template": pod},
    }


def test_a_write_that_takes_the_instance_label_away_is_not_remembered_as_ours(
    harness: Harness, kubeconfig: Path
) -> None:
    stop = threading.Event()
    cluster = Cluster(instance=harness.instance, namespaces=(harness.namespace,))
    runtime = Runtime({}, lambda line: None, lambda line: None, Progress(), stop)
    feed = Feed(
        connect(str(kubeconfig), None, pool_size=8), cluster, WHOLE, runtime, WatchMetrics()
    )
    places = {Place(harness.namespace, name) for name in NAMES}
    held: list[dict[str, Any] | None] = []
    try:
        feed.start(lambda place, urgency: None, [])
        assert eventually(lambda: feed.synced, 30)
        kube = feed.client()
        for name in NAMES:
            kube.send(r.apply(deployment(harness, name, harness.instance), c.FIELD_MANAGER))
        assert eventually(lambda: places <= set(feed.whole().deployments), 30)  # informed
        for name in NAMES:  # released, each read back at once: before its event, mostly
            kube.send(r.apply(deployment(harness, name, None), c.FIELD_MANAGER))
            held.append(feed.whole().deployments.get(Place(harness.namespace, name)))
    finally:
        stop.set()

    # Either the informer's copy, labelled, until the event takes it away; or nothing.
    labels = [each["metadata"]["labels"].get(c.INSTANCE_LABEL) for each in held if each]
    assert labels == [harness.instance] * len(labels)
