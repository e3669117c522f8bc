"""A WebApp is Ready only when its declared version runs: the rules of `kubectl rollout status`.

Ready needs the latest generation observed, every desired replica updated and available,
and no old replica left; `availableReplicas` alone counts the old Pods too. The new
ReplicaSet's Pods stall a WebApp at once for a reason waiting will not fix, named with the
Pod; they are read only when they can tell something. What runs is recorded: the serving
revision once a rollout completed and its completion was confirmed (its new Pods ready
10 s without a break, or a second look 10 s later), and the digests its ready Pods run.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from driftctl.core.planning.outcomes import RolloutState
from driftctl.core.planning.rollout import (
    DEPLOYMENT_REVISION,
    NewPods,
    Phase,
    needs_pods,
    new_replicaset,
    rollout_of,
    selector_of,
)
from driftctl.core.planning.status import (
    CONFIRM_SECONDS,
    StatusFacts,
    ended,
    reads_pods,
    rollout_state,
    status_update,
    webapp_status,
)
from tests.support.builders import REVISION, status_deployment, status_webapp

NOW = datetime.datetime(2026, 12, 2, 9, 0, 0, tzinfo=datetime.UTC)
Obj = dict[str, Any]
DIGEST_1 = "sha256:" + "1" * 64
DIGEST_2 = "sha256:" + "2" * 64


def deployment(revision: str | None = "2", **counts: Any) -> Obj:
    """status_deployment, with the uid and rollout number a controller gives it."""
    obj = status_deployment(**{"available": 3, **counts})
    obj["metadata"] |= {"uid": "uid-dep", "name": "shop", "namespace": "web"}
    if revision is not None:
        obj["metadata"]["annotations"] = {DEPLOYMENT_REVISION: revision}
    return obj


def replicaset(name: str, revision: str, owner: str = "uid-dep") -> Obj:
    return {
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "annotations": {DEPLOYMENT_REVISION: revision},
            "ownerReferences": [{"kind": "Deployment", "uid": owner, "controller": True}],
        },
        "spec": {"selector": {"matchLabels": {"app": "shop", "pod-template-hash": name[-4:]}}},
    }


def pod(name: str, owner: str = "shop-abcd", **status: Any) -> Obj:
    """A Pod of ReplicaSet `owner` running localhost/hello:1, with `status`."""
    return {
        "kind": "Pod",
        "metadata": {
            "name": name,
            "ownerReferences": [{"kind": "ReplicaSet", "uid": f"uid-{owner}", "controller": True}],
        },
        "spec": {"containers": [{"name": "app", "image": "localhost/hello:1"}]},
        "status": status,
    }


def waiting(reason: str, message: str = "", restarts: int = 0) -> Obj:
    state = {"waiting": {"reason": reason, "message": message}}
    return {"containerStatuses": [{"name": "app", "state": state, "restartCount": restarts}]}


READY_SINCE = "2026-12-02T08:59:50Z"  # NOW less CONFIRM_SECONDS: ready long enough


def ready(digest: str, since: str = READY_SINCE) -> Obj:
    """A ready Pod's status; the kubelet's Ready condition says since when."""
    return {
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": since}],
        "containerStatuses": [
            {"name": "app", "imageID": f"localhost/hello@{digest}", "ready": True}
        ],
    }


def new_pods(*pods: Obj) -> NewPods:
    return NewPods(replicaset("shop-abcd", "2"), pods, generation=2)


def conditions_of(status: Obj) -> list[tuple[str, str, str]]:
    return [(c["type"], c["status"], c["reason"]) for c in status["conditions"]]


@pytest.mark.parametrize(
    ("counts", "reason", "message"),
    [
        pytest.param(
            {"updated": 1, "total": 4},
            "RolloutInProgress",
            "rollout in progress: 1/3 updated, 3 available, 3 old replicas left",
            id="new-pods-not-up-old-ones-serve",  # availableReplicas counts the old Pods
        ),
        pytest.param(
            {"total": 4},
            "RolloutInProgress",
            "rollout in progress: 3/3 updated, 3 available, 1 old replica left",
            id="an-old-replica-pending-termination",
        ),
        pytest.param(
            {"available": 2},
            "ReplicasUnavailable",
            "2/3 replicas available",
            id="updated-but-not-all-available",
        ),
    ],
)
def test_a_rollout_in_progress_is_not_ready_and_says_how_far_it_is(
    counts: Obj, reason: str, message: str
) -> None:
    status = webapp_status(status_webapp(), deployment(**counts), NOW)

    assert status["ready"] is False
    assert conditions_of(status) == [("Ready", "False", reason), ("Reconciling", "True", reason)]
    assert status["conditions"][0]["message"] == message


def test_a_complete_rollout_is_ready() -> None:
    assert rollout_of(deployment()).phase is Phase.COMPLETE
    status = webapp_status(status_webapp(), deployment(), NOW)

    assert status["ready"] is True
    assert conditions_of(status) == [("Ready", "True", "Available")]


@pytest.mark.parametrize(
    ("pod_status", "reason", "said"),
    [
        pytest.param(
            waiting("ImagePullBackOff", 'Back-off pulling image "localhost/missing:1"'),
            "ImagePullBackOff",
            'Back-off pulling image "localhost/missing:1"',
            id="image-pull-back-off",
        ),
        pytest.param(
            waiting("ErrImagePull", "dial tcp 127.0.0.1:1: connect: connection refused"),
            "ErrImagePull",
            "dial tcp 127.0.0.1:1: connect: connection refused",
            id="image-pull-error",
        ),
        pytest.param(
            waiting("InvalidImageName", 'Failed to apply default image tag "Bad:1"'),
            "InvalidImageName",
            'Failed to apply default image tag "Bad:1"',
            id="invalid-image-name",
        ),
        pytest.param(
            waiting("CreateContainerConfigError", 'secret "db" not found'),
            "CreateContainerConfigError",
            'secret "db" not found',
            id="container-config-error",
        ),
        pytest.param(
            {
                **waiting("CrashLoopBackOff", "back-off 20s", restarts=2),
                "containerStatuses": [
                    {
                        "name": "app",
                        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                        "lastState": {"terminated": {"exitCode": 1}},
                        "restartCount": 2,
                    }
                ],
            },
            "CrashLoopBackOff",
            "container app restarted 2 times, last exit code 1",
            id="crash-loop-past-two-restarts",
        ),
        pytest.param(
            {
                "containerStatuses": [
                    {
                        "name": "app",
                        "state": {"terminated": {"exitCode": 1, "reason": "Error"}},
                        "restartCount": 3,
                    }
                ],
            },
            "CrashLoopBackOff",
            "container app restarted 3 times, last exit code 1",
            id="a-later-back-off-shown-terminated",  # as the kubelet of v1.37.2 shows it
        ),
        pytest.param(
            {
                "conditions": [
                    {
                        "type": "PodScheduled",
                        "status": "False",
                        "reason": "Unschedulable",
                        "message": "0/1 nodes are available: 1 node(s) were unschedulable.",
                    }
                ]
            },
            "Unschedulable",
            "0/1 nodes are available: 1 node(s) were unschedulable.",
            id="unschedulable",
        ),
    ],
)
def test_a_new_pod_that_waiting_will_not_start_stalls_the_webapp_naming_it(
    pod_status: Obj, reason: str, said: str
) -> None:
    rolling = deployment(updated=1, total=4)
    pods = new_pods(pod("shop-abcd-x2"), pod("shop-abcd-x1", **pod_status))

    status = webapp_status(status_webapp(), rolling, NOW, pods=pods)

    assert status["ready"] is False
    assert conditions_of(status) == [("Ready", "False", reason), ("Stalled", "True", reason)]
    assert status["conditions"][0]["message"] == (
        f"Pod shop-abcd-x1: {reason}: {said} "
        "(rollout: 1/3 updated, 3 available, 3 old replicas left)"
    )


@pytest.mark.parametrize(
    "pods",
    [
        pytest.param(
            new_pods(pod("shop-abcd-x1", **waiting("CrashLoopBackOff", restarts=1))),
            id="one-restart-may-be-a-slow-start",
        ),
        pytest.param(
            new_pods(pod("shop-old-x1", owner="shop-old", **waiting("ImagePullBackOff"))),
            id="another-replicasets-pod",
        ),
        pytest.param(
            new_pods(
                {**pod("shop-abcd-x1", **waiting("ErrImagePull")), "metadata": {
                    "name": "shop-abcd-x1", "deletionTimestamp": "2026-12-02T08:59:00Z",
                    "ownerReferences": [{"uid": "uid-shop-abcd", "controller": True}],
                }}
            ),
            id="a-pod-being-deleted",
        ),
        pytest.param(new_pods(pod("shop-abcd-x1", **waiting("ContainerCreating"))), id="creating"),
        pytest.param(
            new_pods(pod("shop-abcd-x1", containerStatuses=[{
                "name": "app", "restartCount": 4, "state": {"running": {}},
                "lastState": {"terminated": {"exitCode": 1}},
            }])),
            id="running-again-after-restarts",
        ),
    ],
)  # fmt: skip
def test_a_pod_that_may_still_start_leaves_the_rollout_progressing(pods: NewPods) -> None:
    status = webapp_status(status_webapp(), deployment(updated=1, total=4), NOW, pods=pods)

    assert conditions_of(status)[1] == ("Reconciling", "True", "RolloutInProgress")


def test_the_progress_deadline_stalls_whatever_the_pods_say() -> None:
    deadline = {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}
    gave_up = deployment(updated=1, total=4, conditions=[deadline])

    status = webapp_status(status_webapp(), gave_up, NOW)

    assert conditions_of(status)[1] == ("Stalled", "True", "ProgressDeadlineExceeded")


@pytest.mark.parametrize(
    ("dep", "recorded", "reads"),
    [
        pytest.param(deployment(updated=1, total=4), 2, True, id="in-progress"),
        pytest.param(deployment(), None, True, id="complete-images-not-recorded"),
        pytest.param(deployment(), 1, True, id="complete-recorded-for-an-earlier-generation"),
        pytest.param(deployment(), 2, False, id="complete-and-recorded"),
        pytest.param(deployment(observed=1, updated=0), None, False, id="not-observed-yet"),
        pytest.param(deployment(revision=None, updated=1), None, False, id="no-controller-yet"),
        pytest.param(
            deployment(
                updated=1,
                conditions=[
                    {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}
                ],
            ),
            None,
            False,
            id="deadline-passed",
        ),
    ],
)
def test_pods_are_read_only_when_they_can_tell_something(
    dep: Obj, recorded: int | None, reads: bool
) -> None:
    status = {} if recorded is None else {"imagesGeneration": recorded}

    assert needs_pods(dep, recorded) is reads
    assert reads_pods(status_webapp(status=status), dep) is reads


def test_a_completed_rollout_records_the_serving_revision_and_its_digests() -> None:
    pods = new_pods(*(pod(f"shop-abcd-x{n}", **ready(DIGEST_1)) for n in range(3)))

    status = webapp_status(status_webapp(), deployment(), NOW, pods=pods)

    assert status["servingRevision"] == REVISION
    assert status["images"] == [{"image": "localhost/hello:1", "digests": [DIGEST_1]}]
    assert status["mixedDigests"] is False
    assert status["imagesGeneration"] == 2


def test_pods_running_two_digests_of_one_reference_are_flagged() -> None:
    pods = new_pods(
        pod("shop-abcd-x1", **ready(DIGEST_1)),
        pod("shop-abcd-x2", **ready(DIGEST_2)),
        pod("shop-abcd-x3", **ready(DIGEST_2)),
    )

    status = webapp_status(status_webapp(), deployment(), NOW, pods=pods)

    assert status["images"] == [{"image": "localhost/hello:1", "digests": [DIGEST_1, DIGEST_2]}]
    assert status["mixedDigests"] is True


def test_what_served_before_is_kept_while_the_next_rollout_moves() -> None:
    before = {"servingRevision": "0" * 40, "images": [{"image": "a:1", "digests": [DIGEST_1]}]}
    webapp = status_webapp(status={**before, "mixedDigests": False, "imagesGeneration": 1})
    pods = new_pods(pod("shop-abcd-x1", **ready(DIGEST_2)))

    status = webapp_status(webapp, deployment(updated=1, total=4), NOW, pods=pods)

    assert status["servingRevision"] == "0" * 40
    assert status["images"] == before["images"]
    assert status["imagesGeneration"] == 1


def test_a_deployment_that_does_not_hold_git_does_not_serve_the_revision() -> None:
    """The WebApp was applied at the new commit, its Deployment failed: what completed is
    the earlier template."""
    webapp = status_webapp(status={"servingRevision": "0" * 40})

    status = webapp_status(webapp, deployment(), NOW, StatusFacts(current=False))

    assert status["ready"] is True
    assert status["servingRevision"] == "0" * 40


def test_a_completion_not_yet_confirmed_records_neither_the_revision_nor_its_digests() -> None:
    """A crash-looping Pod may be ready for an instant: Ready as it looks, but what serves
    moves only once the new Pods were ready CONFIRM_SECONDS without a break, and until then
    the rollout is reported in progress."""
    before = {"servingRevision": "0" * 40, "images": [{"image": "a:1", "digests": [DIGEST_1]}]}
    webapp = status_webapp(status={**before, "mixedDigests": False, "imagesGeneration": 1})
    just = new_pods(*(pod(f"shop-abcd-x{n}", **ready(DIGEST_2, "2026-12-02T08:59:51Z"))
                      for n in range(3)))  # fmt: skip
    steady = new_pods(*(pod(f"shop-abcd-x{n}", **ready(DIGEST_2)) for n in range(3)))

    first = webapp_status(webapp, deployment(), NOW, pods=just)
    confirmed = webapp_status(webapp, deployment(), NOW, pods=steady)

    assert first["ready"] is True
    assert (first["servingRevision"], first["images"], first["imagesGeneration"]) == (
        "0" * 40,
        before["images"],
        1,
    )
    assert rollout_state(first) is RolloutState.PROGRESSING
    assert reads_pods(status_webapp(status=first), deployment())  # looked at again
    assert confirmed["servingRevision"] == REVISION
    assert confirmed["images"] == [{"image": "localhost/hello:1", "digests": [DIGEST_2]}]
    assert rollout_state(confirmed) is RolloutState.COMPLETE
    assert not reads_pods(status_webapp(status=confirmed), deployment())


def test_without_pods_to_read_a_completion_is_confirmed_by_a_second_look_10_s_later() -> None:
    """No new ReplicaSet found (a control plane without its controller): the WebApp's own
    Ready condition says when the completion was first seen."""
    no_replicaset = NewPods(None, (), generation=2)
    first = webapp_status(status_webapp(), deployment(), NOW, pods=no_replicaset)
    soon = NOW + datetime.timedelta(seconds=CONFIRM_SECONDS - 1)
    later = NOW + datetime.timedelta(seconds=CONFIRM_SECONDS)

    too_soon = webapp_status(status_webapp(status=first), deployment(), soon, pods=no_replicaset)
    second = webapp_status(status_webapp(status=first), deployment(), later, pods=no_replicaset)

    assert (first["ready"], "servingRevision" in first) == (True, False)
    assert "servingRevision" not in too_soon
    assert second["servingRevision"] == REVISION
    assert ended(first, second) is RolloutState.COMPLETE
    assert ended({}, first) is None  # Ready, not yet confirmed: no end


def test_a_completion_the_new_pods_do_not_confirm_is_not_ready() -> None:
    """A container that exits at once was ready for an instant: the controller counted
    it available and called the rollout complete; the Pods read say otherwise."""
    exited: Obj = {
        "containerStatuses": [
            {
                "name": "app",
                "restartCount": 0,
                "state": {"terminated": {"exitCode": 1, "reason": "Error"}},
            }
        ]
    }
    pods = new_pods(pod("shop-abcd-x1", **ready(DIGEST_1)), pod("shop-abcd-x2", **exited))

    status = webapp_status(status_webapp(), deployment(), NOW, pods=pods)

    assert status["ready"] is False
    assert conditions_of(status)[1] == ("Reconciling", "True", "ReplicasUnavailable")
    assert status["conditions"][0]["message"] == (
        "1/3 new Pods ready (the Deployment counted 3 available)"
    )
    assert "imagesGeneration" not in status  # read again next time
    assert reads_pods(status_webapp(status=status), deployment())


def test_the_new_replicaset_is_the_deployments_own_of_its_revision() -> None:
    old, new, other = replicaset("shop-aaaa", "1"), replicaset("shop-bbbb", "2"), None
    other = replicaset("shop-cccc", "2", owner="uid-someone-else")

    assert new_replicaset(deployment(), [old, other, new]) == new
    assert new_replicaset(deployment(revision="3"), [old, new]) is None
    assert selector_of(new) == "app=shop,pod-template-hash=bbbb"


def test_a_rollout_is_looked_at_again_only_while_its_pods_may_tell_more() -> None:
    """watch looks again at a rollout in progress only when its new Pods can change what
    its status says without its Deployment moving: one not ready yet (it may stall), none
    found yet while the Deployment counts some, or all ready and the completion not
    confirmed yet. While the Deployment counts no new Pod (none made yet: no node, no
    controller to make them), they are not read and nothing is looked at again."""
    starting = new_pods(pod("shop-abcd-x1", **waiting("ContainerCreating")))
    just_ready = new_pods(
        *(pod(f"shop-abcd-x{n}", **ready(DIGEST_1, "2026-12-02T08:59:58Z")) for n in range(3))
    )
    steady = new_pods(*(pod(f"shop-abcd-x{n}", **ready(DIGEST_1)) for n in range(3)))
    rolling = deployment(updated=1, total=4)

    def again(dep: Obj, pods: NewPods | None) -> bool:
        return status_update(status_webapp(), dep, NOW, pods=pods).look_again

    waiting_for_pods = deployment(updated=0, total=3)

    assert again(rolling, starting)
    assert again(rolling, new_pods())  # counted by the Deployment, not found yet
    assert not needs_pods(waiting_for_pods, None)  # no new Pod counted: none read
    assert not again(waiting_for_pods, None)
    assert again(deployment(), just_ready)  # complete, not confirmed
    assert not again(deployment(), steady)  # complete and confirmed
