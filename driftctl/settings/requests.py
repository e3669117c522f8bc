"""What each command asks for, as one typed request: the settings groups it takes, in the
order its `--help` lists their flags.

The command line builds a command's request from its flags, their variables and the
`--config` file (driftctl.cli reads `groups_of(request)` to make the options, then builds
each group); the pipeline takes the request whole, so a setting added to a group reaches
every command whose request holds that group, and nothing between them changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from driftctl.settings.check import Check, Refs
from driftctl.settings.cluster import WHOLE, Cluster, Lock, Shard
from driftctl.settings.declare import Grouped, every_group, groups_of, taken_by
from driftctl.settings.doctor import PLAIN_DOCTOR, Doctor
from driftctl.settings.drift import Drift
from driftctl.settings.history import ALL_OF_IT, HistoryRange
from driftctl.settings.install import DryRun, Install, Removal
from driftctl.settings.notify import Notify
from driftctl.settings.outputs import (
    CrdOptions,
    Listing,
    Logging,
    PlanOutputs,
    RenderOptions,
    VersionOptions,
)
from driftctl.settings.policy import Policy
from driftctl.settings.run import NO_WAIT, ApplyRun, Metrics, Recording, SavedPlanUse, Wait
from driftctl.settings.selection import EVERYTHING, Selection
from driftctl.settings.source import Source
from driftctl.settings.verify import NO_VERIFY, Verify
from driftctl.settings.watch import Watch


@dataclass(frozen=True)
class CrdRequest:
    """`crd`: print the CRD, or (--diff) what installing it changes in the cluster's."""

    options: CrdOptions = field(default_factory=CrdOptions)
    cluster: Cluster = field(default_factory=Cluster)


@dataclass(frozen=True)
class ValidateRequest:
    """`validate`: the desired state in Git, without a cluster."""

    source: Source = field(default_factory=Source)


@dataclass(frozen=True)
class RenderRequest:
    """`render`: the WebApps a kustomization at --path renders, without a cluster."""

    options: RenderOptions = field(default_factory=RenderOptions)
    source: Source = field(default_factory=Source)


@dataclass(frozen=True)
class DiffRequest:
    """`diff`: how the desired state changes between two refs, without a cluster."""

    refs: Refs
    source: Source = field(default_factory=Source)


@dataclass(frozen=True)
class Planning:
    """What `plan` and `apply` both take, first: what to plan, against what, by which rules."""

    selection: Selection = EVERYTHING
    source: Source = field(default_factory=Source)
    cluster: Cluster = field(default_factory=Cluster)
    policy: Policy = field(default_factory=Policy)
    drift: Drift = field(default_factory=Drift)
    shard: Shard = WHOLE
    verify: Verify = NO_VERIFY
    lock: Lock = field(default_factory=Lock)


@dataclass(frozen=True)
class PlanRequest(Planning):
    """`plan`: what apply would do, exactly, with no write."""

    listing: Listing = field(default_factory=Listing)
    outputs: PlanOutputs = field(default_factory=PlanOutputs)


@dataclass(frozen=True)
class ApplyRequest(Planning):
    """`apply`: lock, plan (or a saved plan), carry out, write status; tell and push.
    `source_given`: whether --repo, --path or --namespace was given (else a saved plan's
    own source is read)."""

    metrics: Metrics = field(default_factory=Metrics)
    wait: Wait = NO_WAIT
    notify: Notify = field(default_factory=Notify)
    saved: SavedPlanUse = field(default_factory=SavedPlanUse)
    recording: Recording = field(default_factory=Recording)
    run: ApplyRun = field(default_factory=ApplyRun)
    source_given: bool = field(default=True, compare=False)


@dataclass(frozen=True)
class CheckRequest:
    """`check`: what merging a pull request does, read-only."""

    refs: Refs
    source: Source = field(default_factory=Source)
    cluster: Cluster = field(default_factory=Cluster)
    policy: Policy = field(default_factory=Policy)
    drift: Drift = field(default_factory=Drift)
    lock: Lock = field(default_factory=Lock)
    verify: Verify = NO_VERIFY
    check: Check = field(default_factory=Check)

    def __post_init__(self) -> None:
        self.check.needs_verify(self.verify)


@dataclass(frozen=True)
class WatchRequest:
    """`watch`: apply, continuously: apply's settings and watch's own pacing."""

    source: Source = field(default_factory=Source)
    cluster: Cluster = field(default_factory=Cluster)
    policy: Policy = field(default_factory=Policy)
    drift: Drift = field(default_factory=Drift)
    verify: Verify = NO_VERIFY
    lock: Lock = field(default_factory=Lock)
    recording: Recording = field(default_factory=Recording)
    pace: Watch = field(default_factory=Watch)
    notify: Notify = field(default_factory=Notify)


@dataclass(frozen=True)
class UnlockRequest:
    """`unlock`: free the instance's (or a shard's) Lease."""

    cluster: Cluster = field(default_factory=Cluster)
    shard: Shard = WHOLE
    lock: Lock = field(default_factory=Lock)


@dataclass(frozen=True)
class StatusRequest:
    """`status`: the instance's WebApps against Git, and its lock."""

    source: Source = field(default_factory=Source)
    cluster: Cluster = field(default_factory=Cluster)
    drift: Drift = field(default_factory=Drift)
    lock: Lock = field(default_factory=Lock)


@dataclass(frozen=True)
class DoctorRequest:
    """`doctor`: what stops the run these settings configure (the same settings as a run's),
    or (--release-finalizers) its stuck WebApps released."""

    doctor: Doctor = PLAIN_DOCTOR
    source: Source = field(default_factory=Source)
    cluster: Cluster = field(default_factory=Cluster)
    shard: Shard = WHOLE
    lock: Lock = field(default_factory=Lock)
    verify: Verify = NO_VERIFY
    notify: Notify = field(default_factory=Notify)
    run: ApplyRun = field(default_factory=ApplyRun)


@dataclass(frozen=True)
class HistoryRequest:
    """`history`: what the instance's runs applied, newest first, from its record."""

    selection: Selection = EVERYTHING
    period: HistoryRange = ALL_OF_IT
    cluster: Cluster = field(default_factory=Cluster)
    lock: Lock = field(default_factory=Lock)


@dataclass(frozen=True)
class ShowRequest:
    """`show FILE`: a saved plan, as plan printed it."""

    listing: Listing = field(default_factory=Listing)


@dataclass(frozen=True)
class VersionRequest:
    """`version`: this driftctl's, and (unless --client) the cluster's."""

    options: VersionOptions = field(default_factory=VersionOptions)
    cluster: Cluster = field(default_factory=Cluster)


@dataclass(frozen=True)
class InstallRequest:
    """`install`: the CRD, then the CronJob or the operator, for a repository."""

    install: Install
    dry_run: DryRun = field(default_factory=DryRun)
    cluster: Cluster = field(default_factory=Cluster)


@dataclass(frozen=True)
class UninstallRequest:
    """`uninstall`: driftctl taken away, its finalizers released first."""

    removal: Removal = field(default_factory=Removal)
    dry_run: DryRun = field(default_factory=DryRun)
    cluster: Cluster = field(default_factory=Cluster)


REQUESTS = {
    "crd": CrdRequest,
    "validate": ValidateRequest,
    "render": RenderRequest,
    "diff": DiffRequest,
    "plan": PlanRequest,
    "apply": ApplyRequest,
    "check": CheckRequest,
    "watch": WatchRequest,
    "unlock": UnlockRequest,
    "status": StatusRequest,
    "doctor": DoctorRequest,
    "history": HistoryRequest,
    "show": ShowRequest,
    "version": VersionRequest,
    "install": InstallRequest,
    "uninstall": UninstallRequest,
}
"""Every command that takes settings, with its request."""


def groups_taken_by(command: str) -> tuple[type[Grouped], ...]:
    """Every settings group `command` takes: its request's, in order, then the log's
    (--log-format, after -o, where the command logs)."""
    groups = tuple(group for _, group in groups_of(REQUESTS[command]))
    return groups + ((Logging,) if taken_by(Logging, command) else ())


GROUPS = (*every_group(REQUESTS.values()), Logging)
"""Every settings group of every command."""
