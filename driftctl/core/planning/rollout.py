"""Where a Deployment's rollout is: complete, in progress (with figures), or stuck.

Pure. The rules are those of `kubectl rollout status` and kstatus, read from the
Deployment alone: the controller observed its latest generation; every desired replica is
updated (runs the latest template) and available; no old replica is left; the Progressing
condition did not pass its deadline. `status.availableReplicas` alone says nothing about
the new version: during a rollout whose new Pods never start, the old Pods keep it at the
desired count.

Beyond the Deployment: the Pods of its new ReplicaSet can show, long before the progress
deadline, a reason that waiting will not fix (an image that cannot be pulled, a crash loop,
a Pod no node accepts). They also have the last word on a rollout the Deployment calls
complete: a container that exits at once is ready for an instant, long enough for the
controller to count it available (without probes or minReadySeconds), so a completion is
believed only while the new Pods read are ready. Reading them costs two LISTs (the
ReplicaSets of the Deployment's selector, then the new one's Pods), so they are read only
when they can tell something
(`needs_pods`): the rollout is observed and still in progress, or it completed and its
completion was not confirmed yet (the images its ready Pods run are recorded with that, for
this generation: core.planning.status.confirmed). When every rollout
is complete and recorded, a run reads nothing more than its LIST pages.
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from driftctl.core.planning.objects import Obj, annotations_of, is_terminating, metadata, uid
from driftctl.kube_formats import parse_api_time

# The Deployment controller's names: the rollout number on a Deployment and on each of its
# ReplicaSets, and the label that ties a ReplicaSet's Pods to it.
DEPLOYMENT_REVISION = "deployment.kubernetes.io/revision"
TEMPLATE_HASH_LABEL = "pod-template-hash"

# Container reasons no wait fixes: the kubelet retries them with a growing back-off, and
# each retry fails the same way until someone changes the template (or the image appears).
HOPELESS_WAITING = frozenset(
    {
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "ErrImageNeverPull",
        "CreateContainerConfigError",
        "CreateContainerError",
    }
)
CRASH_LOOP = "CrashLoopBackOff"
CRASH_RESTARTS = 2  # a crash loop this many restarts deep is not a slow start (~25 s in)
UNSCHEDULABLE = "Unschedulable"


class Phase(enum.Enum):
    """How far a rollout is."""

    NOT_OBSERVED = "not observed"  # the controller has not seen the latest spec yet
    PROGRESSING = "progressing"
    DEADLINE = "deadline"  # the controller gave up (progress deadline, replica failure)
    COMPLETE = "complete"


@dataclass(frozen=True)
class Rollout:
    """A Deployment's rollout: its phase, the figures, and what the controller said."""

    phase: Phase
    desired: int = 0  # the Deployment's spec.replicas
    updated: int = 0
    available: int = 0
    total: int = 0  # every Pod the Deployment counts, old ones included
    reason: str = ""
    message: str = ""

    @property
    def old(self) -> int:
        """Replicas of earlier templates still counted (pending termination)."""
        return max(self.total - self.updated, 0)

    @property
    def figures(self) -> str:
        """`1/2 updated, 2 available, 1 old replica left`."""
        old = f", {self.old} old replica{'s' if self.old != 1 else ''} left" if self.old else ""
        return f"{self.updated}/{self.desired} updated, {self.available} available{old}"


def rollout_of(deployment: Obj) -> Rollout:
    """The rollout of a live Deployment (module docstring)."""
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    desired = int(spec.get("replicas", 1))
    updated = int(status.get("updatedReplicas", 0))
    available = int(status.get("availableReplicas", 0))
    total = int(status.get("replicas", 0))
    generation = int(metadata(deployment).get("generation", 0))
    reason = message = ""
    if int(status.get("observedGeneration", 0)) < generation:
        phase = Phase.NOT_OBSERVED
    elif (gave_up := _gave_up(status)) is not None:
        phase, (reason, message) = Phase.DEADLINE, gave_up
    elif updated >= desired and total <= updated and available >= updated:  # no old replica
        phase = Phase.COMPLETE
    else:
        phase = Phase.PROGRESSING
    return Rollout(phase, desired, updated, available, total, reason, message)


def _gave_up(status: Obj) -> tuple[str, str] | None:
    # The Deployment controller gives up in these two ways; waiting longer will not help.
    for condition in status.get("conditions") or []:
        kind, state = condition.get("type"), condition.get("status")
        deadline = condition.get("reason") == "ProgressDeadlineExceeded"
        if (kind == "Progressing" and state == "False" and deadline) or (
            kind == "ReplicaFailure" and state == "True"
        ):
            return str(condition.get("reason") or kind), str(condition.get("message", ""))
    return None


def needs_pods(deployment: Obj, images_generation: int | None) -> bool:
    """Whether the new ReplicaSet's Pods are worth their two LISTs (module docstring).

    `images_generation`: the Deployment generation whose images the WebApp status records
    (with its completion's confirmation: core.planning.status.confirmed). Without the
    controller's revision annotation there is no new ReplicaSet to find; while no replica
    is updated (runs the latest template), the new ReplicaSet has no Pod to read, and the
    first one made moves the Deployment's counts, which a run or `watch` sees anyway.
    """
    if DEPLOYMENT_REVISION not in annotations_of(deployment):
        return False
    rollout = rollout_of(deployment)
    if rollout.phase is Phase.PROGRESSING:
        return rollout.updated > 0
    generation = int(metadata(deployment).get("generation", 0))
    return rollout.phase is Phase.COMPLETE and images_generation != generation


def new_replicaset(deployment: Obj, replicasets: Iterable[Obj]) -> Obj | None:
    """The Deployment's ReplicaSet of its current revision: controlled by it, same number."""
    revision = annotations_of(deployment).get(DEPLOYMENT_REVISION)
    for replicaset in replicasets:
        if _controlled_by(replicaset, deployment) and (
            annotations_of(replicaset).get(DEPLOYMENT_REVISION) == revision
        ):
            return replicaset
    return None


def _controlled_by(obj: Obj, owner: Obj) -> bool:
    refs = metadata(obj).get("ownerReferences") or []
    return any(ref.get("controller") and ref.get("uid") == uid(owner) for ref in refs)


def selector_of(obj: Obj) -> str:
    """A Deployment's or ReplicaSet's matchLabels as a label selector (with the template
    hash label, a ReplicaSet's selects its own Pods only)."""
    labels = ((obj.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    return ",".join(f"{key}={value}" for key, value in sorted(labels.items()))


@dataclass(frozen=True)
class Blocker:
    """A Pod of the new ReplicaSet stuck for a reason waiting will not fix."""

    pod: str
    reason: str  # the kubelet's or scheduler's CamelCase reason
    message: str

    @property
    def text(self) -> str:
        """`Pod shop-6d9f-x7k2p: ImagePullBackOff: Back-off pulling image ...`."""
        said = f": {self.message}" if self.message else ""
        return f"Pod {self.pod}: {self.reason}{said}"


def blocker(pods: Sequence[Obj], owner: Obj) -> Blocker | None:
    """The first Pod (by name) of ReplicaSet `owner` that waiting will not start, if any."""
    for pod in sorted(_of(pods, owner), key=lambda each: str(metadata(each).get("name"))):
        found = _stuck(pod)
        if found is not None:
            return Blocker(str(metadata(pod).get("name")), *found)
    return None


def _of(pods: Iterable[Obj], owner: Obj) -> list[Obj]:
    """The Pods `owner` controls that are not being deleted."""
    return [pod for pod in pods if not is_terminating(pod) and _controlled_by(pod, owner)]


def _stuck(pod: Obj) -> tuple[str, str] | None:
    status = pod.get("status") or {}
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("reason") == UNSCHEDULABLE:
            return UNSCHEDULABLE, str(condition.get("message", ""))
    containers = status.get("initContainerStatuses") or [], status.get("containerStatuses") or []
    for container in [*containers[0], *containers[1]]:
        waiting = (container.get("state") or {}).get("waiting") or {}
        reason = str(waiting.get("reason", ""))
        if reason in HOPELESS_WAITING:
            return reason, str(waiting.get("message", ""))
        if _crash_looping(container):
            return CRASH_LOOP, _crashed(container)
    return None


def _crash_looping(container: Obj) -> bool:
    """Restarted CRASH_RESTARTS times and not running now: waiting in its back-off, or
    (as the kubelet shows the later back-offs) still terminated with an error."""
    if int(container.get("restartCount", 0)) < CRASH_RESTARTS:
        return False
    state = container.get("state") or {}
    waiting = (state.get("waiting") or {}).get("reason")
    failed = int((state.get("terminated") or {}).get("exitCode", 0)) != 0
    return waiting == CRASH_LOOP or failed


def _crashed(container: Obj) -> str:
    state = container.get("state") or {}
    last = state.get("terminated") or (container.get("lastState") or {}).get("terminated") or {}
    code = last.get("exitCode")
    exited = f", last exit code {code}" if code is not None else ""
    restarts = container.get("restartCount", 0)
    return f"container {container.get('name')} restarted {restarts} times{exited}"


@dataclass(frozen=True)
class RunningImage:
    """An image reference the ready Pods run, and the digests they run it at."""

    image: str
    digests: tuple[str, ...]


def running_images(pods: Sequence[Obj], owner: Obj) -> tuple[RunningImage, ...]:
    """What the ready Pods of ReplicaSet `owner` run: each image reference of their spec,
    with the digests of their containers' `imageID`, sorted."""
    found: dict[str, set[str]] = {}
    for pod in _of(pods, owner):
        if not _ready(pod):
            continue
        declared = {
            str(each.get("name")): str(each.get("image"))
            for each in (pod.get("spec") or {}).get("containers") or []
        }
        for container in (pod.get("status") or {}).get("containerStatuses") or []:
            image = declared.get(str(container.get("name")))
            digest = _digest(str(container.get("imageID") or ""))
            if image and digest:
                found.setdefault(image, set()).add(digest)
    return tuple(RunningImage(image, tuple(sorted(found[image]))) for image in sorted(found))


def ready_count(pods: Sequence[Obj], owner: Obj) -> int:
    """How many Pods of ReplicaSet `owner` are ready now (not being deleted)."""
    return sum(1 for pod in _of(pods, owner) if _ready(pod))


def steady_count(pods: Sequence[Obj], owner: Obj, since: datetime.datetime) -> int:
    """How many Pods of ReplicaSet `owner` have been ready without a break since `since`
    (their Ready condition's lastTransitionTime, the kubelet's; one without it is not)."""
    return sum(1 for pod in _of(pods, owner) if (at := _ready_at(pod)) is not None and at <= since)


def _ready(pod: Obj) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _ready_at(pod: Obj) -> datetime.datetime | None:
    """When a ready Pod last turned ready (None: not ready, or not said)."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            return parse_api_time(condition.get("lastTransitionTime"))
    return None


def _digest(image_id: str) -> str:
    """`sha256:...` of an imageID: `repo@sha256:...`, `docker-pullable://...`, or bare."""
    digest = image_id.rpartition("@")[2]
    return digest if digest.startswith("sha256:") else ""


@dataclass(frozen=True)
class NewPods:
    """The new ReplicaSet of a Deployment and its Pods, as read for one generation of it
    (`replicaset` None: the Deployment had none of its current revision)."""

    replicaset: Obj | None
    pods: tuple[Obj, ...]
    generation: int  # of the Deployment they were read for

    @property
    def blocker(self) -> Blocker | None:
        return blocker(self.pods, self.replicaset) if self.replicaset is not None else None

    @property
    def images(self) -> tuple[RunningImage, ...]:
        if self.replicaset is None:
            return ()
        return running_images(self.pods, self.replicaset)

    @property
    def live(self) -> int:
        """How many new Pods there are (not being deleted; 0: no new ReplicaSet found)."""
        return 0 if self.replicaset is None else len(_of(self.pods, self.replicaset))

    @property
    def ready(self) -> int | None:
        """How many of the new Pods are ready (None: no new ReplicaSet was found)."""
        return None if self.replicaset is None else ready_count(self.pods, self.replicaset)

    def steady(self, since: datetime.datetime) -> int | None:
        """How many of the new Pods have been ready since `since` without a break (None: no
        new ReplicaSet was found)."""
        if self.replicaset is None:
            return None
        return steady_count(self.pods, self.replicaset, since)
