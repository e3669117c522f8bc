"""The run lock's decisions over a Lease: create, take, wait, release."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from driftctl.core.api import lease
from driftctl.kube_formats import api_micro_time
from driftctl.settings import Shard

NOW = datetime.datetime(2026, 11, 30, 12, 0, 0, tzinfo=datetime.UTC)
OPS = lease.LeaseRef("ops", "default")


def a_lease(holder: str | None, renewed_seconds_ago: int = 0, duration: int = 30) -> dict[str, Any]:
    spec: dict[str, Any] = {"leaseDurationSeconds": duration, "leaseTransitions": 2}
    if holder is not None:
        spec["holderIdentity"] = holder
        spec["renewTime"] = api_micro_time(NOW - datetime.timedelta(seconds=renewed_seconds_ago))
    return {
        "metadata": {"name": "driftctl-default", "namespace": "ops", "resourceVersion": "42"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    ("current", "step"),
    [
        pytest.param(None, lease.Step.CREATE, id="no-lease-yet"),
        pytest.param(a_lease(None), lease.Step.TAKE, id="released"),
        pytest.param(a_lease("me"), lease.Step.TAKE, id="ours-already"),
        pytest.param(a_lease("other", renewed_seconds_ago=5), lease.Step.WAIT, id="live-holder"),
        pytest.param(
            a_lease("other", renewed_seconds_ago=31), lease.Step.TAKE, id="expired-holder"
        ),
        pytest.param(a_lease("other", renewed_seconds_ago=30), lease.Step.TAKE, id="expires-now"),
    ],
)
def test_decision_over_the_current_lease(current: dict[str, Any] | None, step: lease.Step) -> None:
    assert lease.decide(current, "me", NOW) is step


def test_taking_a_lease_from_another_holder_counts_a_transition_and_keeps_the_version() -> None:
    taken = lease.held(a_lease("other", 60), OPS, me="me", duration=30, now=NOW)

    assert taken["metadata"]["resourceVersion"] == "42"
    assert taken["spec"]["holderIdentity"] == "me"
    assert taken["spec"]["leaseTransitions"] == 3
    assert (
        taken["spec"]["acquireTime"] == taken["spec"]["renewTime"] == "2026-11-30T12:00:00.000000Z"
    )


def test_renewing_our_own_lease_only_moves_the_renew_time() -> None:
    ours = lease.held(a_lease("me", 10), OPS, me="me", duration=30, now=NOW)

    assert ours["spec"]["leaseTransitions"] == 2
    assert "acquireTime" not in ours["spec"]


def test_a_new_lease_carries_no_resource_version_and_the_instance_labels() -> None:
    shard = lease.LeaseRef("ops", "shard-1")
    created = lease.held(None, shard, me="me", duration=30, now=NOW)

    assert "resourceVersion" not in created["metadata"]
    assert created["metadata"]["name"] == "driftctl-shard-1"
    assert created["metadata"]["labels"]["driftctl.example.com/instance"] == "shard-1"
    assert created["spec"]["leaseTransitions"] == 0


def test_a_released_lease_has_no_holder_and_is_free_at_once() -> None:
    released = lease.released(a_lease("me"), OPS)

    assert "holderIdentity" not in released["spec"]
    assert lease.decide(released, "someone-else", NOW) is lease.Step.TAKE
    assert lease.holder(released) is None


def test_each_shard_of_a_sharded_instance_holds_its_own_lease() -> None:
    names = {lease.LeaseRef("ops", "blue", Shard(index=index, count=3)).name for index in range(3)}

    assert names == {"driftctl-blue-shard-0", "driftctl-blue-shard-1", "driftctl-blue-shard-2"}
    assert (
        lease.LeaseRef("ops", "blue", Shard(index=0, count=1)).name == "driftctl-blue"
    )  # unsharded
    # One index holds one Lease whatever the count, so runs of one index never overlap.
    assert lease.LeaseRef("ops", "blue", Shard(index=1, count=2)).name == "driftctl-blue-shard-1"


TERM = lease.Term(duration=30, renew_every=10, renew_deadline=20, retry_every=2)


@pytest.mark.parametrize(
    ("since_renewal", "refused", "standing"),
    [
        pytest.param(0.0, False, lease.Standing.HELD, id="just-renewed"),
        pytest.param(19.9, False, lease.Standing.HELD, id="inside-the-deadline"),
        pytest.param(20.0, False, lease.Standing.OVERDUE, id="at-the-deadline"),
        pytest.param(25.0, False, lease.Standing.OVERDUE, id="past-the-deadline"),
        pytest.param(1.0, True, lease.Standing.REFUSED, id="refused-even-when-fresh"),
    ],
)
def test_a_holder_stands_by_its_last_renewal(
    since_renewal: float, refused: bool, standing: lease.Standing
) -> None:
    assert lease.standing(100.0, refused, 100.0 + since_renewal, TERM) is standing


def test_a_holder_stops_before_the_lease_can_expire_for_others() -> None:
    """Walk the clock from the last good renewal: the holder is overdue strictly before the
    instant `decide` lets another process take the Lease (renewTime + duration)."""
    renewed_wall = NOW
    body = lease.held(None, OPS, me="me", duration=TERM.duration, now=renewed_wall)
    first_overdue = next(
        t / 10
        for t in range(0, 400)
        if lease.standing(0.0, False, t / 10, TERM) is not lease.Standing.HELD
    )
    first_takeable = next(
        t / 10
        for t in range(0, 400)
        if lease.decide(body, "standby", renewed_wall + datetime.timedelta(seconds=t / 10))
        is lease.Step.TAKE
    )
    assert first_overdue == TERM.renew_deadline
    assert first_takeable == TERM.duration
    assert first_overdue < first_takeable


def test_renewals_are_paced_and_bounded_by_the_deadline() -> None:
    assert lease.next_renewal(True, 0.0, 0.0, TERM) == 10
    assert lease.next_renewal(False, 0.0, 10.0, TERM) == 2
    assert lease.next_renewal(False, 0.0, 19.0, TERM) == pytest.approx(1.0)
    assert lease.next_renewal(False, 0.0, 21.0, TERM) == 0
    assert lease.renewal_budget(0.0, 12.0, TERM) == 8
    assert lease.renewal_budget(0.0, 30.0, TERM) == 0


@pytest.mark.parametrize(
    ("duration", "every", "deadline", "retry"),
    [(30, 10, 30, 2), (30, 20, 20, 2), (30, 10, 20, 0), (30, 1, 20, 2)],
)
def test_a_term_whose_deadline_does_not_end_before_expiry_is_refused(
    duration: int, every: float, deadline: float, retry: float
) -> None:
    with pytest.raises(ValueError, match="renew_deadline < duration"):
        lease.Term(duration, every, deadline, retry)


def test_a_term_follows_from_the_lease_duration() -> None:
    assert lease.Term.of(30) == lease.Term()
    short = lease.Term.of(3)
    assert (short.renew_every, short.renew_deadline, short.retry_every) == (1, 2, 0.2)
