"""Where a run's trust is recorded: the run lock's Lease says which revision was verified
last (every write of the Lease keeps it, a record is made only over the one verified
against), the WebApp's status says its revision was verified and by which key (kept while
nothing newer is verified for it), and the run's metrics name both."""

from __future__ import annotations

import datetime
from typing import Any

from prometheus_client import generate_latest

from driftctl import conventions as c
from driftctl.core.api import lease
from driftctl.core.planning.status import StatusFacts, status_update, webapp_status
from driftctl.render.metrics import RunResult, run_registry
from driftctl.settings import Shard
from tests.support.builders import REVISION, status_deployment, status_webapp

NOW = datetime.datetime(2026, 11, 30, 12, 0, 0, tzinfo=datetime.UTC)
OPS = lease.LeaseRef("ops", "default")
KEY = "8F648C437907FB5C359E16D0A58E1E1A40B7A2F6"
OLDER = "0" * 40


def recorded_lease(revision: str | None) -> dict[str, Any]:
    annotations = {"example.com/other": "dropped, as before"}
    if revision is not None:
        annotations |= {
            c.VERIFIED_REVISION_ANNOTATION: revision,
            c.VERIFIED_KEY_ANNOTATION: KEY,
        }
    return {
        "metadata": {
            "name": "driftctl-default",
            "resourceVersion": "7",
            "annotations": annotations,
        },
        "spec": {"holderIdentity": "other", "leaseDurationSeconds": 30},
    }


def test_every_write_of_the_lease_keeps_the_record() -> None:
    current = recorded_lease(OLDER)
    expected = {c.VERIFIED_REVISION_ANNOTATION: OLDER, c.VERIFIED_KEY_ANNOTATION: KEY}

    taken = lease.held(current, OPS, me="me", duration=30, now=NOW)
    freed = lease.released(current, OPS)

    assert taken["metadata"]["annotations"] == expected
    assert freed["metadata"]["annotations"] == expected
    assert lease.verified_of(taken) == lease.Verified(OLDER, KEY)


def test_taking_the_lock_records_a_new_revision_verified() -> None:
    taken = lease.held(
        recorded_lease(OLDER), OPS, me="me", duration=30, now=NOW,
        verified=lease.Verified(REVISION, KEY),
    )  # fmt: skip

    assert lease.verified_of(taken) == lease.Verified(REVISION, KEY)


def test_a_record_is_made_only_over_the_revision_verified_against() -> None:
    assert lease.still_at(recorded_lease(OLDER), OLDER)
    assert not lease.still_at(recorded_lease(REVISION), OLDER)  # another run moved it
    assert lease.still_at(None, None)  # no Lease yet: a first run
    assert lease.still_at(recorded_lease(None), None)
    assert not lease.still_at(recorded_lease(OLDER), None)


def test_the_status_says_the_revision_was_verified_and_by_which_key() -> None:
    facts = StatusFacts(verified=(REVISION, KEY))

    status = webapp_status(status_webapp(), status_deployment(3), NOW, facts)

    assert status["lastAppliedRevision"] == REVISION
    assert (status["lastVerifiedRevision"], status["lastVerifiedKey"]) == (REVISION, KEY)


def test_the_status_keeps_what_was_verified_while_nothing_newer_is() -> None:
    earlier = {"lastVerifiedRevision": OLDER, "lastVerifiedKey": KEY}
    webapp = status_webapp(status=earlier)

    # This run verified another revision than the one the WebApp was written at ...
    other = webapp_status(webapp, status_deployment(3), NOW, StatusFacts(verified=(OLDER, KEY)))
    # ... or verified nothing (no --verify): the fields stay as they were.
    unverified = webapp_status(webapp, status_deployment(3), NOW)

    assert other["lastVerifiedRevision"] == unverified["lastVerifiedRevision"] == OLDER
    assert "lastVerifiedRevision" not in webapp_status(status_webapp(), status_deployment(3), NOW)


def test_a_second_verified_run_writes_no_status() -> None:
    facts = StatusFacts(verified=(REVISION, KEY))
    first = status_update(status_webapp(), status_deployment(3), NOW, facts)

    again = status_update(status_webapp(status=first.status), status_deployment(3), NOW, facts)

    assert first.changed
    assert not again.changed


def test_a_run_pushes_the_revision_it_verified_and_the_key() -> None:
    verified = RunResult(5, 1.0, 1.0, Shard(), None, (REVISION, KEY))  # some objects failed

    pushed = generate_latest(run_registry(verified)).decode()
    plain = generate_latest(run_registry(RunResult(0, 1.0, 1.0, Shard()))).decode()

    assert f'driftctl_verified_revision_info{{key="{KEY}",revision="{REVISION}"}} 1.0' in pushed
    assert "driftctl_verified_revision_info" not in plain
