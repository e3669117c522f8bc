"""A worker of `watch` reconciles one WebApp against the control plane with nothing else of
the controller around it: no Lease renewer, no informers, no queue. Built from a census of
the live objects (what the informers would hold) and a client, it puts a hand-scaled
Deployment back and sends exactly what that takes, as the API server itself counts it
(/metrics): the apply, no dry-run before it, no autoscaler LIST (the census knows them);
a WebApp that did not drift costs nothing, and the focus keeps it off the drifted one. The
reconcile that wrote records itself in the instance's history: its first record reads the
head, then writes it (later ones only write: the worker keeps the head it wrote).

And with the watch's memory (pipeline.watch.feed), its events stopped after the first
LISTs: a second reconcile of the same WebApp before the events of the first one's writes
come back reads those writes (their answers), so it sends nothing. (A reconcile queued by
its own write's event, told before the write's answer, wrote the WebApp's status a second
time in a CI run: the memory still held the status before the first write.)
"""

from __future__ import annotations

import os
import threading
from collections import Counter

from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import Outcome
from driftctl.core.source.model import Place
from driftctl.core.watch.census import Census
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.runs import holder_identity, lease_of, open_cluster
from driftctl.pipeline.watch.feed import Feed
from driftctl.pipeline.watch.metrics import WatchMetrics
from driftctl.pipeline.watch.reconcile import Memory, Reconciler
from driftctl.pipeline.watch.setup import Runtime
from driftctl.settings import WHOLE, Cluster, Lock, Source, WatchRequest
from driftctl.shell.apply import Progress
from driftctl.shell.kube import connect
from driftctl.shell.live_state import read_live
from driftctl.shell.lock import RunLock
from tests.controlplane import launcher
from tests.support.control_plane import Requests, delta, quiet, request_counts
from tests.support.harness import LOCK_NAMESPACE, Harness, eventually

OBJECTS = ("webapps", "deployments", "events", "horizontalpodautoscalers")
WRITES = frozenset({"APPLY", "PATCH", "POST", "PUT", "CREATE", "UPDATE", "DELETE"})
FIRST_RECORD = 2  # a reconcile that wrote records it: the history's head read, then written


def sent(before: Requests, after: Requests) -> int:
    """What driftctl's ServiceAccount sent (nothing else in the suite runs as one)."""
    return after.service_accounts - before.service_accounts


def requests_made(before: Requests, after: Requests) -> Counter[str]:
    """Writes (dry-runs included) and LISTs of the objects a reconcile touches, any client."""
    made: Counter[str] = Counter()
    for (resource, subresource, verb, _, dry_run, _), count in delta(
        before, after, OBJECTS
    ).items():
        if verb in WRITES or verb == "LIST":
            name = f"{resource}/{subresource}" if subresource else resource
            made[f"{name} {verb}{' dry-run' if dry_run else ''}"] += count
    return made


def shop_scaled_by_hand(
    harness: Harness, others: dict[str, tuple[str, int]] | None = None
) -> WatchRequest:
    """WebApp shop (2 replicas) and `others` applied, shop's Deployment then scaled to 9 by
    hand; what `watch` would be told for them."""
    harness.declare({"shop": ("nginx:1.27", 2), **(others or {})})
    applied = harness.driftctl("apply")
    assert applied.code == 0, applied.err
    harness.kubectl("scale", "deployment/shop", "--replicas=9", "-n", harness.namespace)
    cluster = Cluster(kubeconfig=str(harness.kubeconfig), instance=harness.instance)
    source = Source(
        repo=str(harness.repo.path), ref="main", path="apps", namespace=harness.namespace
    )
    return WatchRequest(source=source, cluster=cluster, lock=Lock(namespace=LOCK_NAMESPACE))


def test_one_webapp_is_put_back_with_exactly_the_requests_it_takes(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    setup = shop_scaled_by_hand(harness, {"docs": ("nginx:1.27", 1)})
    cluster, source = setup.cluster, setup.source
    kube = open_cluster(cluster, lambda line: None)
    lock = RunLock(kube, lease_of(cluster, setup.lock), holder_identity())
    lock.acquire(0)  # held, not renewed: the reconciles below take well under its 30 s
    desired = load_desired(source, os.environ)
    census = Census(cluster.instance, desired.by_place)  # what the informers would hold
    live = read_live(kube, cluster.instance)
    for place, webapp in live.webapps.items():
        census.webapp(place, webapp)
    for place, deployment in live.deployments.items():
        census.deployment(place, deployment)
    worker = Reconciler(
        setup,
        desired,
        memory=Memory(census.view, census.counts, lambda: kube),
        lock=lock,
        progress=Progress(),
    )
    quiet(harness)  # other tests' namespaces, deleted, would count
    try:
        before = request_counts(control_plane)
        untouched = worker.one(Place(harness.namespace, "docs"))
        between = request_counts(control_plane)
        corrected = worker.one(Place(harness.namespace, "shop"))
        after = request_counts(control_plane)
    finally:
        lock.release()

    assert [each.outcome for each in untouched.outcomes] == [Outcome.UNCHANGED] * 2
    assert sent(before, between) == 0
    assert requests_made(before, between) == {}
    shop = ObjectKey("Deployment", harness.namespace, "shop")
    outcomes = {each.key: each.outcome for each in corrected.outcomes}
    assert outcomes[shop] is Outcome.CONFIGURED, corrected.outcomes
    assert (harness.get("deployment", "shop") or {})["spec"]["replicas"] == 2
    assert (harness.get("deployment", "docs") or {})["spec"]["replicas"] == 1
    assert requests_made(between, after) == {
        "deployments APPLY": 1,
        "webapps/status APPLY": 1,  # the Deployment's new generation is not observed yet
        "events POST": 1,
    }
    assert sent(between, after) == 3 + FIRST_RECORD


def test_a_second_reconcile_before_the_events_come_back_reads_the_first_ones_writes(
    harness: Harness, control_plane: launcher.ControlPlane
) -> None:
    setup = shop_scaled_by_hand(harness)
    cluster, source = setup.cluster, setup.source
    stop = threading.Event()
    runtime = Runtime(os.environ, lambda line: None, lambda line: None, Progress(), stop)
    feed = Feed(connect(cluster.kubeconfig, None, 4), cluster, WHOLE, runtime, WatchMetrics())
    desired = load_desired(source, os.environ)
    feed.start(lambda place, urgency: None, desired.by_place)
    assert eventually(lambda: feed.synced, 30)
    shop = Place(harness.namespace, "shop")
    assert feed.view(shop).deployments[shop]["spec"]["replicas"] == 9
    stop.set()  # from here on, each informer drops the events it is told (shell.informer)
    kube = open_cluster(cluster, lambda line: None)
    lock = RunLock(kube, lease_of(cluster, setup.lock), holder_identity())
    lock.acquire(0)
    worker = Reconciler(
        setup,
        desired,
        memory=Memory(feed.view, feed.counts, feed.client),
        lock=lock,
        progress=Progress(),
    )
    quiet(harness)
    try:
        before = request_counts(control_plane)
        corrected = worker.one(shop)
        between = request_counts(control_plane)
        again = worker.one(shop)
        after = request_counts(control_plane)
    finally:
        lock.release()

    outcomes = {each.key: each.outcome for each in corrected.outcomes}
    assert outcomes[ObjectKey("Deployment", *shop)] is Outcome.CONFIGURED, corrected.outcomes
    # the apply, the WebApp's status, one Event, and its record in the history
    assert sent(before, between) == 3 + FIRST_RECORD
    assert feed.view(shop).deployments[shop]["spec"]["replicas"] == 2
    assert [each.outcome for each in again.outcomes] == [Outcome.UNCHANGED] * 2
    assert sent(between, after) == 0
    assert requests_made(between, after) == {}
