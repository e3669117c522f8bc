"""Every name driftctl shares with the cluster: group, kinds, labels, annotations, finalizer.

These are part of the contract with live objects; changing one orphans what earlier runs
created. Nothing else in the code spells these strings.
"""

from typing import Final

GROUP: Final = "example.com"
VERSION: Final = "v1"
API_VERSION: Final = f"{GROUP}/{VERSION}"
KIND: Final = "WebApp"
PLURAL: Final = "webapps"
SINGULAR: Final = "webapp"
SHORT_NAME: Final = "wa"
CRD_NAME: Final = f"{PLURAL}.{GROUP}"

DEPLOYMENT_API_VERSION: Final = "apps/v1"
DEPLOYMENT_KIND: Final = "Deployment"
CONTAINER_NAME: Final = "app"

FIELD_MANAGER: Final = "driftctl"
FINALIZER: Final = "webapp.example.com/cleanup"

NAME_LABEL: Final = "app.kubernetes.io/name"
SELECTOR_INSTANCE_LABEL: Final = "app.kubernetes.io/instance"  # with NAME_LABEL, the pod selector
MANAGED_BY_LABEL: Final = "app.kubernetes.io/managed-by"
MANAGED_BY_VALUE: Final = "driftctl"
INSTANCE_LABEL: Final = "driftctl.example.com/instance"
DEFAULT_INSTANCE: Final = "default"

REVISION_ANNOTATION: Final = "driftctl.example.com/revision"
SOURCE_ANNOTATION: Final = "driftctl.example.com/source"
PRUNE_ANNOTATION: Final = "driftctl.example.com/prune"
PRUNE_DISABLED: Final = "disabled"
IGNORE_ANNOTATION: Final = "driftctl.example.com/ignore"  # per-WebApp ignore rules, from Git
# On the run lock's Lease (--verify): the last revision a run verified and applied, and the
# fingerprint of the key that signed it; the next run must descend from it.
VERIFIED_REVISION_ANNOTATION: Final = "driftctl.example.com/verified-revision"
VERIFIED_KEY_ANNOTATION: Final = "driftctl.example.com/verified-key"

# Controls (driftctl.policies). From Git, per WebApp: its policies (recorded on the live
# WebApp as every Git annotation is, so the prune policy is known after the entry leaves Git).
CHANGE_POLICY_ANNOTATION: Final = "driftctl.example.com/change-policy"  # apply | hold
DRIFT_POLICY_ANNOTATION: Final = "driftctl.example.com/drift-policy"  # correct | warn | off
PRUNE_POLICY_ANNOTATION: Final = "driftctl.example.com/prune-policy"  # delete | orphan | ...
# Set by a person on the live object (kubectl annotate), never in Git and never drift: a
# suspension (on a WebApp, or on the instance's run-lock Lease) and a prune approval.
SUSPEND_ANNOTATION: Final = "driftctl.example.com/suspend"
APPROVE_PRUNE_ANNOTATION: Final = "driftctl.example.com/approve-prune"  # <uid>@<revision>
# Written by driftctl on a live WebApp whose removal waits (confirm, quarantine).
REMOVED_IN_ANNOTATION: Final = "driftctl.example.com/removed-in"  # the Git revision
REMOVED_AT_ANNOTATION: Final = "driftctl.example.com/removed-at"  # when it was first absent

AUTOSCALER_KIND: Final = "HorizontalPodAutoscaler"

DEFAULT_NAMESPACE: Final = "default"
# Where every run of every instance keeps its run lock (and the Event summing up a run),
# wherever it runs: a laptop, CI or the CronJob's Pod. driftctl's own installation lives
# there too (cronjob/, operator/), so the Lease is found by all of them without a flag.
LOCK_NAMESPACE: Final = "driftctl-system"


def lease_name(instance: str, shard: int | None = None) -> str:
    """The run lock of one instance (or of one of its shards): a coordination.k8s.io/v1 Lease.

    An unsharded instance keeps `driftctl-<instance>`; shard I of a sharded one holds
    `driftctl-<instance>-shard-<I>`, whatever the shard count, so two runs of one index
    exclude each other even across a change of --shard-count.
    """
    if shard is None:
        return f"driftctl-{instance}"
    return f"driftctl-{instance}-shard-{shard}"


def notified_name(instance: str, shard: int | None = None) -> str:
    """The ConfigMap keeping what this instance's (or shard's) notifications last told:
    `driftctl-<instance>-notified`, beside the run lock's Lease."""
    return f"{lease_name(instance, shard)}-notified"


def history_name(instance: str) -> str:
    """The head of the ConfigMaps keeping what this instance's runs applied:
    `driftctl-<instance>-history` (its sealed segments add `-<slot>`), beside the run
    lock's Lease; shards of one instance share it."""
    return f"{lease_name(instance)}-history"


METRICS_JOB: Final = "driftctl"  # the Pushgateway grouping key's job
GIT_TOKEN_ENV: Final = "DRIFTCTL_GIT_TOKEN"  # a token for an https:// repository


def object_ref(kind: str, namespace: str, name: str) -> str:
    """The one way every message and report names an object: `Kind/namespace/name`."""
    return f"{kind}/{namespace}/{name}"


def instance_selector(instance: str) -> str:
    """The label selector that limits every read to one instance's objects."""
    return f"{INSTANCE_LABEL}={instance}"


def not_instance_selector(instance: str) -> str:
    """The label selector of objects that are not this instance's (unlabelled ones included)."""
    return f"{INSTANCE_LABEL}!={instance}"
