"""`driftctl watch` tells a burst of hand edits in one or a few digests, to a real receiver
on loopback: each correction told once, none lost, none twice.

The watch runs as a ServiceAccount with operator/'s RBAC (tests/integration/conftest.py)
and gathers what its reconciles found over --notify-window (pipeline.notify.Gatherer);
what each digest told is kept in the instance's notification record, as the CronJob's is.
A burst: 100 Deployments scaled by hand at once (admin, through the API as fast as it
takes them, recorded as kubectl's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client

from tests.support.harness import Harness, eventually
from tests.support.receivers import Receiver, accepting, serving
from tests.support.watching import Watching, settled, start

BURST = 100
WINDOW = "5"  # seconds a digest gathers reconciles
APPS = {f"app-{n:03d}": ("nginx:1.27", 1) for n in range(BURST)}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with serving(accepting) as found:
        yield found


def told(receiver: Receiver, since: int) -> list[tuple[str, str]]:
    """(category, object) of every item the digests from the `since`th on told."""
    return [
        (item["category"], item["object"])
        for each in receiver.taken[since:]
        for item in each.json["items"]
    ]


def test_a_burst_of_100_hand_edits_is_told_in_a_few_digests_each_edit_once(
    harness: Harness,
    kube_client: client.ApiClient,
    watch_kubeconfig: Path,
    receiver: Receiver,
    watching: list[Watching],
) -> None:
    harness.declare(APPS)
    process = start(
        harness, watch_kubeconfig, watching, "--webhook-url", receiver.url,
        "--notify-window", WINDOW, "--concurrency", "4",
        "--notify-max-bytes", "1000000",  # every item listed: none cut to fit
    )  # fmt: skip
    assert eventually(process.ready, 120), process.log()
    settled(process)
    assert eventually(lambda: len(told(receiver, 0)) >= 2 * BURST, 60), (
        [(len(r.json["items"]), r.json["truncated"], r.code) for r in receiver.received],
        [line for line in process.err if not line.startswith(("created", "status", "configured"))][
            -30:
        ],
    )
    before = len(receiver.taken)

    apps = client.AppsV1Api(kube_client)
    for name in APPS:
        apps.patch_namespaced_deployment_scale(
            name, harness.namespace, {"spec": {"replicas": 3}}, field_manager="kubectl",
            _content_type="application/merge-patch+json",
        )  # fmt: skip  # as `kubectl scale` records it (a person's edit: drift)

    def corrected() -> bool:
        listed = apps.list_namespaced_deployment(harness.namespace)
        return all(each.spec.replicas == 1 for each in listed.items)

    assert eventually(corrected, 120), process.log()
    settled(process)
    burst = len(told(receiver, before))
    assert eventually(lambda: len(told(receiver, before)) >= BURST, 30), (burst, process.log())
    settled(process)  # and one window more: nothing else comes
    process.stop()

    assert receiver.problems == []
    digests = receiver.taken[before:]
    assert 1 <= len(digests) <= 4, [len(each.json["items"]) for each in digests]
    items = Counter(told(receiver, before))
    expected = {("drift", f"Deployment/{harness.namespace}/{name}") for name in APPS}
    assert set(items) == expected  # none lost, nothing else
    assert set(items.values()) == {1}  # none twice
    assert all(not each.json["late"] and each.json["truncated"] == 0 for each in digests)
