"""One apply at a time per instance: the Lease lock, its expiry, and `driftctl unlock`."""

from __future__ import annotations

import dataclasses
import datetime
import json
from pathlib import Path

from driftctl import conventions as c
from tests.support.builders import webapp
from tests.support.faultproxy import Fault, FaultProxy, Hold
from tests.support.harness import LOCK_NAMESPACE, Harness


def hold_lock(harness: Harness, holder: str, renewed_seconds_ago: int, duration: int) -> None:
    """A Lease as another run (alive or dead) leaves it."""
    renewed = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=renewed_seconds_ago)
    harness.apply_as_admin(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": c.lease_name(harness.instance), "namespace": LOCK_NAMESPACE},
            "spec": {
                "holderIdentity": holder,
                "leaseDurationSeconds": duration,
                "renewTime": renewed.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            },
        }
    )


def lease_holder(harness: Harness) -> str | None:
    lease = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE)
    return None if lease is None else lease["spec"].get("holderIdentity")


def test_a_live_holder_makes_apply_exit_6_naming_it_and_nothing_is_written(
    harness: Harness,
) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    hold_lock(harness, "cronjob-pod-abc/7", renewed_seconds_ago=0, duration=3600)

    ran = harness.driftctl("apply", "--lock-timeout", "1")

    assert ran.code == 6, ran.out + ran.err
    assert (
        f"Lease {LOCK_NAMESPACE}/driftctl-{harness.instance} is held by cronjob-pod-abc/7"
        in ran.err
    )
    assert harness.names("webapps") == []


def test_plan_takes_no_lock(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    hold_lock(harness, "cronjob-pod-abc/7", renewed_seconds_ago=0, duration=3600)

    assert harness.driftctl("plan").code == 1


def test_a_dead_holder_is_taken_over_after_its_lease_expired(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    hold_lock(harness, "crashed-pod/1", renewed_seconds_ago=120, duration=60)

    ran = harness.driftctl("apply")

    assert ran.code == 0, ran.err
    assert harness.names("webapps") == ["shop"]
    lease = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE)
    assert lease is not None
    assert "holderIdentity" not in lease["spec"]  # released at the end of the run
    assert lease["spec"]["leaseTransitions"] == 1


def test_unlock_breaks_a_stale_lock_and_says_whose_it_was(harness: Harness) -> None:
    hold_lock(harness, "stuck-pod/9", renewed_seconds_ago=0, duration=3600)

    broken = harness.driftctl("unlock")
    again = harness.driftctl("unlock")

    assert broken.code == 0, broken.err
    lease = f"Lease {LOCK_NAMESPACE}/driftctl-{harness.instance}"
    assert broken.out.strip() == f"unlocked {lease} (it was held by stuck-pod/9)"
    assert again.out.strip() == f"{lease} was not held"
    assert lease_holder(harness) is None


def test_of_two_concurrent_applies_the_second_waits_then_exits_6(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    harness.declare({f"app-{i:03d}": ("nginx:1.27", 1) for i in range(150)})
    # The first holds the Lease and stays held at its first write (a real server-side
    # apply, kept waiting by the proxy) until the second has given up: how fast the first
    # would otherwise finish decides nothing.
    hold = Hold()
    fault_proxy.inject(Fault(hold, method="PATCH", path=f"/{c.PLURAL}/", dry_run=False))
    first = dataclasses.replace(harness, kubeconfig=proxied_kubeconfig).start(
        "apply", "--concurrency", "1"
    )
    try:
        assert hold.held.wait(60), "the first apply never wrote"
        assert (lease_holder(harness) or "").endswith(f"/{first.pid}")

        second = harness.driftctl("apply", "--lock-timeout", "1")
        written_meanwhile = harness.names("webapps")
    finally:
        hold.release(forward=True)
    out, err = first.communicate(timeout=300)

    assert second.code == 6, second.out + second.err
    assert "is held by " in second.err
    assert f"/{first.pid}" in second.err
    assert written_meanwhile == []  # the second wrote nothing; the first was held
    assert first.returncode == 0, err
    assert out.splitlines()[-1].startswith("Apply: 300 created")


def test_invalid_input_takes_no_lock_and_writes_nothing(harness: Harness) -> None:
    harness.declare({"shop": ("nginx:1.27", 1)})
    harness.repo.write(
        {
            "apps/bad.yaml": webapp("Bad_Name", "nginx:1.27", 1),
        }
    )
    harness.repo.commit("bad")

    ran = harness.driftctl("apply")

    assert ran.code == 3
    assert lease_holder(harness) is None
    assert (
        json.loads(harness.kubectl("get", "webapps", "-n", harness.namespace, "-o", "json"))[
            "items"
        ]
        == []
    )
