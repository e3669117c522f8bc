"""The renew deadline of the run lock, on the real API server behind the fault proxy.

A holder whose renewals cannot get through (every Lease request reset by the proxy) must
stop acting, `lost` with Standing.OVERDUE, while the Lease on the server still names it and
has not expired for anyone else: a standby looking at that moment still waits. The Lease
term is short here (renewed every 1 s, given up at 3 s, expiring at 10 s) so the test
costs a few seconds; the default term has the same shape (10 s, 20 s, 30 s).
"""

from __future__ import annotations

import datetime
from pathlib import Path

from driftctl import conventions as c
from driftctl.core.api.lease import LeaseRef, Standing, Step, Term, decide
from driftctl.shell.kube import Deadline, Kube, connect
from driftctl.shell.lock import RunLock
from tests.support.faultproxy import Fault, FaultProxy, Reset
from tests.support.harness import LOCK_NAMESPACE, Harness, eventually

TERM = Term(duration=10, renew_every=1, renew_deadline=3, retry_every=0.5)
ME = "cut-off-leader/1"


def test_a_holder_that_cannot_renew_stops_while_its_lease_still_holds_others_off(
    harness: Harness, fault_proxy: FaultProxy, proxied_kubeconfig: Path
) -> None:
    api = connect(str(proxied_kubeconfig), None, pool_size=2)
    lock = RunLock(
        Kube(api, Deadline(float("inf"))), LeaseRef(LOCK_NAMESPACE, harness.instance), ME, term=TERM
    )
    name = c.lease_name(harness.instance)
    lock.acquire(0)
    with lock:
        first = harness.get("lease", name, LOCK_NAMESPACE)
        assert first is not None
        assert eventually(
            lambda: (
                (harness.get("lease", name, LOCK_NAMESPACE) or {})["spec"]["renewTime"]
                != first["spec"]["renewTime"]
            ),
            timeout=10,
        ), "the holder renews while the API server answers"
        assert not lock.lost

        fault_proxy.inject(Fault(Reset(), path=f"/leases/{name}", times=None))
        assert eventually(lambda: lock.lost, timeout=15)
        now = datetime.datetime.now(datetime.UTC)
        stands = lock.standing
        on_server = harness.get("lease", name, LOCK_NAMESPACE)

    assert stands is Standing.OVERDUE
    assert on_server is not None
    assert on_server["spec"]["holderIdentity"] == ME
    assert decide(on_server, "standby/2", now) is Step.WAIT, "stopped before others could lead"
    reset = [seen for seen in fault_proxy.exchanges if seen.injected]
    assert reset, "the renewals were tried and cut off"
    assert (
        fault_proxy.statuses(
            "PUT", f"/apis/coordination.k8s.io/v1/namespaces/{LOCK_NAMESPACE}/leases/{name}"
        )[-1]
        == 0
    )
