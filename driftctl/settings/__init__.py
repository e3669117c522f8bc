"""The settings: every setting of every command declared once, as typed values.

Each module holds one group of settings, named for its flags' heading in `--help`
(`source`, `cluster`, `policy`, `drift`, `verify`, `notify`, `watch`, `check`, `selection`,
`run`, `outputs`, `install`, `doctor`, `history`); `declare` says what a declaration is and
`kinds` how each kind of value is read and written; `requests` puts the groups together,
one request per command; `file` reads a `--config` file and `recorded` the settings a
saved plan records. The command line makes its options from the declarations and builds
the values; nothing below it parses a flag again. A value that cannot work raises
UsageError here, before Git or the cluster is touched. Pure: no click, no environment, no
files; below the core (an import contract holds it).
"""

from driftctl.settings.check import DEFAULT_MAX_BYTES, FAIL_ON, Check, Refs, Target
from driftctl.settings.cluster import (
    DEFAULT_CONCURRENCY,
    MAX_FIELD_MANAGER,
    MAX_SHARDS,
    WHOLE,
    Cluster,
    Lock,
    Shard,
    instance_problem,
    namespace_list,
)
from driftctl.settings.doctor import Doctor
from driftctl.settings.drift import DEFAULT_OVERRIDE_MANAGERS, NO_MANAGER, Drift
from driftctl.settings.history import HistoryRange
from driftctl.settings.install import DryRun, Install, Removal
from driftctl.settings.notify import GITHUB_API, NOTIFY_ON, Forge, Notify, Webhook
from driftctl.settings.outputs import Listing, Logging, PlanOutputs
from driftctl.settings.policy import DEFAULT_GRACE, MaxPrune, Policy
from driftctl.settings.requests import (
    ApplyRequest,
    CheckRequest,
    CrdRequest,
    DiffRequest,
    DoctorRequest,
    HistoryRequest,
    InstallRequest,
    PlanRequest,
    RenderRequest,
    ShowRequest,
    StatusRequest,
    UninstallRequest,
    UnlockRequest,
    ValidateRequest,
    VersionRequest,
    WatchRequest,
)
from driftctl.settings.run import (
    MAX_EVENTS,
    NO_WAIT,
    ApplyRun,
    Metrics,
    Recording,
    SavedPlanUse,
    Wait,
)
from driftctl.settings.selection import EVERYTHING, Selection
from driftctl.settings.source import GitAuth, Source
from driftctl.settings.verify import NO_VERIFY, TRUST_FAILURES, VERIFY_MODES, Verify
from driftctl.settings.watch import Address, Watch

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_GRACE",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_OVERRIDE_MANAGERS",
    "EVERYTHING",
    "FAIL_ON",
    "GITHUB_API",
    "MAX_EVENTS",
    "MAX_FIELD_MANAGER",
    "MAX_SHARDS",
    "NOTIFY_ON",
    "NO_MANAGER",
    "NO_VERIFY",
    "NO_WAIT",
    "TRUST_FAILURES",
    "VERIFY_MODES",
    "WHOLE",
    "Address",
    "ApplyRequest",
    "ApplyRun",
    "Check",
    "CheckRequest",
    "Cluster",
    "CrdRequest",
    "DiffRequest",
    "Doctor",
    "DoctorRequest",
    "Drift",
    "DryRun",
    "Forge",
    "GitAuth",
    "HistoryRange",
    "HistoryRequest",
    "Install",
    "InstallRequest",
    "Listing",
    "Lock",
    "Logging",
    "MaxPrune",
    "Metrics",
    "Notify",
    "PlanOutputs",
    "PlanRequest",
    "Policy",
    "Recording",
    "Refs",
    "Removal",
    "RenderRequest",
    "SavedPlanUse",
    "Selection",
    "Shard",
    "ShowRequest",
    "Source",
    "StatusRequest",
    "Target",
    "UninstallRequest",
    "UnlockRequest",
    "ValidateRequest",
    "Verify",
    "VersionRequest",
    "Wait",
    "Watch",
    "WatchRequest",
    "Webhook",
    "instance_problem",
    "namespace_list",
]
