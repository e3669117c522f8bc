"""How to reach the cluster and which objects are this instance's (`Cluster`), the run lock
(`Lock`), and which part of the instance one process plans and applies (`Shard`).

The instance is a label value and names the run lock's Lease, `driftctl-<instance>`; a
Lease lives in one namespace wherever a run runs, so a laptop's and a Pod's runs of one
instance take the same Lease. Which WebApp belongs to which shard is
core.planning.shards' stable hash of its namespace/name; one shard of one (the default)
is the whole instance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftctl import conventions as c
from driftctl.errors import UsageError
from driftctl.kube_formats import label_problem, label_value_problem, subdomain_problem
from driftctl.settings.declare import CONNECTING, PLANNING, READING, Group, setting
from driftctl.settings.kinds import Listed, Text, Whole
from driftctl.settings.spans import Seconds

MAX_FIELD_MANAGER = 128  # the API server refuses longer fieldManager values
MAX_SHARDS = 1000  # far more than a fleet needs; bounds the Lease and label values
DEFAULT_CONCURRENCY = 8  # measured: cold applies of 1,000 WebApps, docs/development/benchmarks.md
_ANY = CONNECTING | {"crd"}


def instance_problem(instance: str) -> str | None:
    """Why `instance` cannot name an instance: it is a label value and part of a Lease name
    (`driftctl-<instance>` is a subdomain exactly when the instance is one). The reason
    quotes the instance as given, never the Lease name made of it."""
    if not instance:
        return "must not be empty"
    return label_value_problem(instance) or subdomain_problem(instance)


def field_manager_problem(name: str) -> str | None:
    """Why `name` cannot be a field manager (the API server's bound), or None."""
    if not name or len(name) > MAX_FIELD_MANAGER:
        return f"must be 1 to {MAX_FIELD_MANAGER} characters, got {len(name)}"
    return None


def namespace_list(text: str | None) -> tuple[str, ...]:
    """`--target-namespaces a,b` as a tuple; None or blank: () (the whole cluster)."""
    if text is None or not text.strip():
        return ()
    return tuple(part.strip() for part in text.split(","))


_READ_ONLY_HELP = {
    "status": "Field manager whose fields are Git's (as plan reads them).",
    "version": "Field manager whose fields are Git's (as plan reads them).",
}
_READ_ONLY_NAMESPACES = {
    "status": "Read only these namespaces (for namespace-scoped RBAC).",
    "version": "Read only these namespaces (for namespace-scoped RBAC).",
}


@dataclass(frozen=True, kw_only=True)
class Cluster:
    """How to reach the cluster, which objects are this instance's, and how hard a run may
    press on it (requests in flight)."""

    GROUP: ClassVar = Group("Cluster flags", CONNECTING)

    kubeconfig: str | None = setting(
        "kubeconfig",
        Text(),
        env=("KUBECONFIG",),
        metavar="FILE",
        commands=_ANY,
        help="Kubeconfig file (default: ~/.kube/config, or the Pod's service account in a "
        "cluster).",
    )
    context: str | None = setting(
        "context",
        Text(),
        commands=_ANY,
        help="Kubeconfig context to use (default: its current context).",
    )
    instance: str = setting(
        "instance",
        Text(
            instance_problem,
            hint="the instance is a label value and names the run lock's Lease, "
            "driftctl-<instance>",
        ),
        c.DEFAULT_INSTANCE,
        help="This driftctl's instance: it only sees and changes objects labelled "
        f"{c.INSTANCE_LABEL}=<instance>.",
    )
    field_manager: str = setting(
        "field-manager",
        Text(field_manager_problem),
        c.FIELD_MANAGER,
        commands=READING,
        help="Field manager of server-side apply.",
        help_for=_READ_ONLY_HELP,
    )
    timeout: float = setting(
        "timeout",
        Seconds(minimum=1),
        300.0,
        help="How long the whole run may take, retries of transient failures included.",
    )
    concurrency: int = setting(
        "concurrency",
        Whole(1, 64),
        DEFAULT_CONCURRENCY,
        commands=PLANNING,
        help="WebApps worked on at once (each its WebApp, then its Deployment, then its "
        "status): requests in flight.",
    )
    # The only namespaces read and written (a namespace-scoped RBAC); (): the whole cluster.
    namespaces: tuple[str, ...] = setting(
        "target-namespaces",
        Listed(check=label_problem),
        (),
        metavar="NS[,NS...]",
        show_default=False,
        commands=READING,
        help="Read and write only these namespaces (for namespace-scoped RBAC); a WebApp "
        "declared elsewhere is refused (default: the whole cluster).",
        help_for=_READ_ONLY_NAMESPACES,
    )

    def __post_init__(self) -> None:
        if len(set(self.namespaces)) != len(self.namespaces):
            raise UsageError("--target-namespaces names a namespace twice")


@dataclass(frozen=True, kw_only=True)
class Lock:
    """The run lock: a Lease driftctl-<instance> in one namespace wherever a run runs."""

    GROUP: ClassVar = Group("Lock flags", PLANNING | {"unlock", "status", "doctor", "history"})

    namespace: str = setting(
        "lock-namespace",
        Text(label_problem),
        c.LOCK_NAMESPACE,
        help="Namespace of the run lock, Lease driftctl-<instance>, wherever driftctl runs: "
        "every run of an instance must name the same.",
    )
    timeout: float = setting(
        "lock-timeout",
        Seconds(),
        0.0,
        commands=frozenset({"apply"}),
        help="How long to wait for another run's lock before exiting 6.",
    )


@dataclass(frozen=True, kw_only=True)
class Shard:
    """Shard `index` of `count`: this process plans, applies and prunes only its WebApps."""

    GROUP: ClassVar = Group("Shard flags", frozenset({"plan", "apply", "unlock", "doctor"}))

    count: int = setting(
        "shard-count",
        Whole(minimum=1),
        1,
        help="Split the instance's WebApps into this many shards (an Indexed Job's completions).",
    )
    index: int = setting(
        "shard-index",
        Whole(minimum=0),
        0,
        env=("JOB_COMPLETION_INDEX",),
        help="This run's shard, 0 to count-1 (an Indexed Job sets JOB_COMPLETION_INDEX).",
    )

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_SHARDS:
            raise UsageError(f"--shard-count must be 1 to {MAX_SHARDS}, got {self.count}")
        if not 0 <= self.index < self.count:
            raise UsageError(
                f"--shard-index must be 0 to {self.count - 1} for --shard-count {self.count}, "
                f"got {self.index}",
                hint="the index comes from --shard-index, DRIFTCTL_SHARD_INDEX or an Indexed "
                "Job's JOB_COMPLETION_INDEX; --shard-count must equal the Job's completions",
            )

    @property
    def sharded(self) -> bool:
        """Whether the instance is split at all."""
        return self.count > 1

    def __str__(self) -> str:
        return f"shard {self.index} of {self.count}"


WHOLE = Shard()  # an unsharded run: shard 0 of 1
