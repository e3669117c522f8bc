"""Nothing told is lost: a digest a receiver could not take waits in the instance's
notification record (its outbox) and the next run that reaches the receiver delivers it,
oldest first, marked late; bounded however long the receiver stays down; at least once
(and once, by id) however many runs race on it.

The receivers are real HTTP servers on loopback (tests/support/receivers.py) that can be
down (503) or slow; the record is the real ConfigMap on the test control plane. The first
test runs driftctl as the CronJob does (a process per run); the others drive the teller of
one run (pipeline.notify.Teller) directly, many times, as many runs would.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from driftctl import conventions as c
from driftctl.core.notify.facts import Category, Item
from driftctl.core.notify.outbox import MAX_ENTRIES, Heading
from driftctl.core.planning.changes import FieldChange
from driftctl.pipeline.notify import Teller
from driftctl.pipeline.receivers import Occasion
from driftctl.settings import WHOLE, Cluster, Lock, Notify
from tests.support.harness import LOCK_NAMESPACE, Harness, Ran
from tests.support.receivers import Receiver, Switch, accepting, serving, webhook_check

SECRET = b"outbox-test-secret-3e91"
CONFIGMAP_LIMIT = 1024 * 1024  # what the API server takes of a ConfigMap's data


@pytest.fixture
def switch() -> Switch:
    return Switch(webhook_check(SECRET))


@pytest.fixture
def webhook(switch: Switch) -> Iterator[Receiver]:
    with serving(switch) as receiver:
        yield receiver


@pytest.fixture
def unsigned() -> Iterator[tuple[Receiver, Switch]]:
    """A webhook for a teller driven directly: no secret, bodies only need to be JSON."""
    switch = Switch(accepting)
    with serving(switch) as receiver:
        yield receiver, switch


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "webhook-secret"
    path.write_bytes(SECRET)
    return path


def apply(harness: Harness, webhook: Receiver, secret_file: Path) -> Ran:
    flags = ("--webhook-url", webhook.url, "--webhook-secret-file", str(secret_file))
    ran = harness.driftctl("apply", "--notify-timeout", "2", *flags)
    assert ran.code == 0, ran.err
    return ran


def categories(body: dict[str, Any]) -> set[tuple[str, str]]:
    return {(item["category"], item["object"].split("/")[0]) for item in body["items"]}


def test_digests_missed_while_the_receiver_was_down_come_late_in_order_then_nothing(
    harness: Harness, webhook: Receiver, switch: Switch, secret_file: Path
) -> None:
    harness.declare({"shop": ("nginx:1.27", 2), "blog": ("nginx:1.27", 1)})
    apply(harness, webhook, secret_file)  # told on time: both applied
    switch.down = True
    harness.kubectl("scale", "deployment/shop", "--replicas=5", "-n", harness.namespace)
    corrected = apply(harness, webhook, secret_file)  # drift corrected: not delivered
    commit = harness.declare({"shop": ("nginx:1.28", 2)})  # blog pruned, shop's image applied
    changed = apply(harness, webhook, secret_file)  # not delivered either
    switch.down = False
    apply(harness, webhook, secret_file)  # receiver back: both missed digests, in order
    told = len(webhook.taken)
    apply(harness, webhook, secret_file)  # nothing new, nothing waiting

    assert "notification not sent" in corrected.err
    assert "notification not sent" in changed.err
    assert webhook.problems == []
    bodies = [each.json for each in webhook.taken]
    assert told == len(bodies) == 3, [b["items"] for b in bodies]
    on_time, first, second = bodies
    assert not on_time["late"]
    assert (first["late"], second["late"]) == (True, True)
    assert first["time"] <= second["time"]
    assert categories(first) == {("drift", "Deployment")}
    assert first["items"][0]["fields"] == ["spec.replicas: 5 -> 2 (changed by kubectl)"]
    assert second["revision"] == commit
    assert {("prune", "WebApp"), ("applied", "WebApp")} <= categories(second)
    assert "late: from the run at " + first["time"] in first["text"].splitlines()[0]
    assert len({body["id"] for body in bodies}) == 3
    record = harness.get("configmap", c.notified_name(harness.instance), LOCK_NAMESPACE)
    assert record is not None
    assert "outbox" not in json.loads(record["data"]["webhook"])


def teller(harness: Harness, url: str, timeout: float = 1.0) -> Teller:
    notify = Notify(webhook_url=url, timeout=timeout)
    cluster = Cluster(kubeconfig=str(harness.kubeconfig), instance=harness.instance)
    return Teller(notify, cluster, Lock(namespace=LOCK_NAMESPACE), WHOLE, lambda line: None)


def occasion(run: int, *, at: float = 1_800_000_000.0) -> Occasion:
    """The digest of run `run`: drift corrected on a Deployment of its own."""
    change = FieldChange("spec.replicas", "replace", run, 2, ("kubectl",))
    item = Item(Category.DRIFT, f"Deployment/web/app-{run:03}", "drift corrected", (change,))
    return Occasion((item,), Heading("default", f"{run:040x}", 0, at + 60 * run), None)


def down_for(harness: Harness, unsigned: tuple[Receiver, Switch], runs: int) -> Receiver:
    """`runs` runs, each with a digest of its own, while the receiver is down."""
    webhook, switch = unsigned
    switch.down = True
    for run in range(runs):
        teller(harness, webhook.url).tell(occasion(run))
    return webhook


def test_fifty_missed_digests_keep_the_record_bounded_and_the_oldest_counted_exactly(
    harness: Harness, unsigned: tuple[Receiver, Switch]
) -> None:
    webhook, switch = down_for(harness, unsigned, 50), unsigned[1]
    record = harness.get("configmap", c.notified_name(harness.instance), LOCK_NAMESPACE)
    switch.down = False
    teller(harness, webhook.url, timeout=30.0).tell(occasion(49))  # nothing new: only the late

    assert record is not None
    size = sum(len(value.encode()) for value in record["data"].values())
    assert size < CONFIGMAP_LIMIT // 4, size
    bodies = [each.json for each in webhook.taken]
    assert len(bodies) == 1 + MAX_ENTRIES
    summary, *kept = bodies
    assert summary["late"] is True
    missed = summary["missed"]
    assert missed["digests"] == 50 - MAX_ENTRIES
    assert missed["items"] == {"drift": 50 - MAX_ENTRIES}
    assert (missed["from"]["revision"], missed["to"]["revision"]) == (
        f"{0:040x}",
        f"{50 - MAX_ENTRIES - 1:040x}",
    )
    assert [body["revision"] for body in kept] == [f"{run:040x}" for run in range(30, 50)]
    assert all(body["late"] for body in kept)


def test_two_runs_racing_on_one_outbox_deliver_each_digest_once_by_id(
    harness: Harness, unsigned: tuple[Receiver, Switch]
) -> None:
    webhook, switch = down_for(harness, unsigned, 6), unsigned[1]
    down = len(webhook.received)
    switch.down, switch.delay = False, 0.3  # slow enough for the two runs to overlap
    racing = [
        threading.Thread(target=teller(harness, webhook.url, 20.0).tell, args=(occasion(5),))
        for _ in range(2)
    ]
    for each in racing:
        each.start()
    for each in racing:
        each.join()

    delivered = [each.json for each in webhook.taken]
    ids = [body["id"] for body in delivered]
    assert down == len(webhook.received) - len(delivered)
    assert sorted({body["revision"] for body in delivered}) == [f"{run:040x}" for run in range(6)]
    assert len(set(ids)) == 6  # each at least once; a receiver dropping repeats by id: once
    assert len(ids) == 6  # and here once on the wire: the other run saw the first one's claims
    record = harness.get("configmap", c.notified_name(harness.instance), LOCK_NAMESPACE)
    assert record is not None
    assert "outbox" not in json.loads(record["data"]["webhook"])
