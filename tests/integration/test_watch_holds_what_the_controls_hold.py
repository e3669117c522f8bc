"""`driftctl watch` and the controls, on the real control plane, as a real process with
operator/'s RBAC: a WebApp suspended with `kubectl annotate` is not corrected (the watch
says it holds it), and is as soon as the annotation goes; the instance suspended on the
Lease the watch holds is seen at its next renewal, and the watch keeps leading (a person's
write of the Lease is not another leader's). Waits are bounded polls on conditions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from driftctl import conventions as c
from tests.support.drift_cases import SUSPENSION, annotate, scale
from tests.support.harness import LOCK_NAMESPACE, Harness, eventually
from tests.support.watching import Watching, replicas, start

WATCH_ACCOUNT = "driftctl-watch-controls"
LEASE_SECONDS = "6"  # renewed every 2 s: a suspension on the Lease is seen that soon


@pytest.fixture
def watching(harness: Harness, watch_kubeconfig: Path) -> Iterator[Watching]:
    harness.declare({"shop": ("nginx:1.27", 2)})
    started: list[Watching] = []
    process = start(harness, watch_kubeconfig, started, "--lease-duration", LEASE_SECONDS)
    assert eventually(process.ready, 60), process.log()
    yield process
    process.kill()


def test_a_suspended_webapp_is_left_and_corrected_once_the_annotation_goes(
    harness: Harness, watching: Watching
) -> None:
    annotate(harness, "webapp/shop", f"{c.SUSPEND_ANNOTATION}={SUSPENSION}")
    scale(harness)

    held = f"held Deployment/{harness.namespace}/shop: suspended until 2099-01-01"
    assert eventually(lambda: watching.said(held), 30), watching.log()
    assert replicas(harness, "shop") == 5
    harness.kubectl("annotate", "webapp/shop", f"{c.SUSPEND_ANNOTATION}-", "-n", harness.namespace)
    assert eventually(lambda: replicas(harness, "shop") == 2, 30), watching.log()


def renewed(process: Watching) -> None:
    """Wait for the watch's next two writes of its Lease: it has read what a person wrote."""
    writes = process.metric("driftctl_watch_lease_writes_total")
    assert eventually(lambda: process.metric("driftctl_watch_lease_writes_total") >= writes + 2, 30)


def test_a_suspended_instance_is_seen_on_the_lease_the_watch_holds(
    harness: Harness, watching: Watching
) -> None:
    lease = f"lease/{c.lease_name(harness.instance)}"
    annotate(harness, lease, f"{c.SUSPEND_ANNOTATION}=by=sre; reason=freeze", LOCK_NAMESPACE)
    renewed(watching)
    scale(harness)

    held = f"held Deployment/{harness.namespace}/shop: the instance is suspended by sre: freeze"
    assert eventually(lambda: watching.said(held), 30), watching.log()
    assert replicas(harness, "shop") == 5
    assert watching.process.poll() is None, watching.log()  # still leading
    harness.kubectl("annotate", lease, f"{c.SUSPEND_ANNOTATION}-", "-n", LOCK_NAMESPACE)
    renewed(watching)
    scale(harness, 4)
    assert eventually(lambda: replicas(harness, "shop") == 2, 30), watching.log()
    assert watching.stop() == 0, watching.log()
