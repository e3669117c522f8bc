"""The flag groups: each the flags of one settings value, defined once for every command.

A command that names a group gets the group's flags and receives one typed value
(driftctl.settings validates it); so a flag added to a group reaches every command that
names it: `plan`, `apply`, `check` and `watch` all name `policy_flags` and `drift_flags`.
Flags that only one command has stay beside that command.
"""

from __future__ import annotations

from pathlib import Path

import click

from driftctl import conventions as c
from driftctl.cli.flags import FlagGroup, flag
from driftctl.settings import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_BYTES,
    DEFAULT_OVERRIDE_MANAGERS,
    FAIL_ON,
    GITHUB_API,
    NOTIFY_ON,
    VERIFY_MODES,
    Check,
    Cluster,
    Drift,
    GitAuth,
    Lock,
    Metrics,
    Notify,
    Policy,
    Shard,
    Source,
    Verify,
    Watch,
    namespace_list,
)

_repo = flag(
    "repo",
    default=".",
    help="Repository: a local path, or a URL (https://, ssh://, git@host:path, file://).",
)
_ref = flag(
    "ref",
    help="Branch, tag or commit to read (default: the working tree of a local path, the "
    "default branch of a URL).",
)
_source = (
    flag(
        "path",
        default="",
        show_default=False,
        help="Folder inside the repository holding the manifests (default: the root).",
    ),
    flag(
        "cache-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Where fetched repositories are kept (default: ~/.cache/driftctl/repos).",
    ),
    flag(
        "namespace", default=c.DEFAULT_NAMESPACE, help="Namespace of WebApps that do not name one."
    ),
    flag(
        "skip-unknown-kinds",
        is_flag=True,
        help="Skip documents of other kinds with a warning instead of refusing them.",
    ),
    flag(
        "git-token-file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="File holding a token for an https:// repository (in a Pod: a Secret's file). "
        f"Or set {c.GIT_TOKEN_ENV}.",
    ),
    flag(
        "git-ssh-key-file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="SSH private key for an ssh:// repository; needs --git-known-hosts-file.",
    ),
    flag(
        "git-known-hosts-file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="known_hosts file: the only host keys ssh accepts (others are refused).",
    ),
)


def _source_of(
    *,
    repo: str,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    git_token_file: Path | None,
    git_ssh_key_file: Path | None,
    git_known_hosts_file: Path | None,
    ref: str | None = None,
) -> Source:
    auth = GitAuth(git_token_file, git_ssh_key_file, git_known_hosts_file)
    return Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds, auth)


source_flags = FlagGroup("source", _source_of, _repo, _ref, *_source)
"""--repo, --ref, --path, --cache-dir, --namespace, --skip-unknown-kinds and the Git
credential files: a `Source`."""
source_flags_without_ref = FlagGroup("source", _source_of, _repo, *_source)
"""The same without --ref, for the commands that read two refs (--base and --head)."""


_kubeconfig = flag(
    "kubeconfig",
    env=["KUBECONFIG"],
    type=click.Path(dir_okay=False),
    help="Kubeconfig file (default: ~/.kube/config, or the Pod's service account in a cluster).",
)
_context = flag("context", help="Kubeconfig context to use (default: its current context).")


def _cluster_of(
    *,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    target_namespaces: str | None,
) -> Cluster:
    scope = namespace_list(target_namespaces)
    return Cluster(
        kubeconfig, context, instance, field_manager, timeout, concurrency, namespaces=scope
    )


cluster_flags = FlagGroup(
    "cluster",
    _cluster_of,
    _kubeconfig,
    _context,
    flag(
        "instance",
        default=c.DEFAULT_INSTANCE,
        help="This driftctl's instance: it only sees and changes objects labelled "
        f"{c.INSTANCE_LABEL}=<instance>.",
    ),
    flag("field-manager", default=c.FIELD_MANAGER, help="Field manager of server-side apply."),
    flag(
        "timeout",
        type=click.FloatRange(min=1),
        default=300,
        help="Seconds the whole run may take, retries of transient failures included.",
    ),
    flag(
        "concurrency",
        type=click.IntRange(min=1, max=64),
        default=DEFAULT_CONCURRENCY,
        help="WebApps worked on at once (each its WebApp, then its Deployment, then its "
        "status): requests in flight.",
    ),
    flag(
        "target-namespaces",
        metavar="NS[,NS...]",
        help="Read and write only these namespaces (for namespace-scoped RBAC); a WebApp "
        "declared elsewhere is refused (default: the whole cluster).",
    ),
)
"""--kubeconfig, --context, --instance, --field-manager, --timeout, --concurrency,
--target-namespaces: a `Cluster` (--max-events, where a command has it, is its own)."""


def _connection_of(*, kubeconfig: str | None, context: str | None) -> Cluster:
    return Cluster(kubeconfig, context)


connection_flags = FlagGroup("cluster", _connection_of, _kubeconfig, _context)
"""--kubeconfig and --context alone: a `Cluster` for a command that only reads (crd --diff)."""

policy_flags = FlagGroup(
    "policy",
    Policy.of,
    flag(
        "prune/--no-prune",
        default=True,
        help="Delete this instance's WebApps that Git no longer declares.",
    ),
    flag("allow-empty", is_flag=True, help="Allow pruning when Git declares no WebApp at all."),
    flag(
        "max-prune",
        metavar="N|P%",
        help="Most deletions in one run: a count or a percentage of the managed WebApps "
        "(default: half of them).",
    ),
    flag(
        "recreate",
        is_flag=True,
        help="Delete and create again objects whose immutable fields changed.",
    ),
)
"""--prune/--no-prune, --allow-empty, --max-prune, --recreate: a `Policy`, what apply may do.
A flag added here needs its field in `Policy` and its parameter in `Policy.of`."""


def _drift_of(
    *, override_manager: tuple[str, ...], ignore: tuple[str, ...], ignore_manager: tuple[str, ...]
) -> Drift:
    return Drift.of(
        override_managers=override_manager, ignore=ignore, ignore_managers=ignore_manager
    )


drift_flags = FlagGroup(
    "drift",
    _drift_of,
    flag(
        "override-manager",
        multiple=True,
        show_default=False,
        metavar="NAME",
        help="A field manager whose fields outside Git are drift, removed by apply; repeat it. "
        "Given, it replaces the default list (none: revert nobody's): "
        + ", ".join(DEFAULT_OVERRIDE_MANAGERS)
        + ".",
    ),
    flag(
        "ignore",
        multiple=True,
        show_default=False,
        metavar="KIND:/POINTER",
        help="A field that is not drift, e.g. Deployment:/spec/replicas: neither reported nor "
        "reset, though a change of it in Git is still applied; repeat it.",
    ),
    flag(
        "ignore-manager",
        multiple=True,
        show_default=False,
        metavar="NAME",
        help="A field manager whose fields are not drift (as --ignore); repeat it.",
    ),
)
"""--override-manager, --ignore, --ignore-manager: a `Drift`, what counts as drift
(`plan --show-foreign`, its own flag, is added to it)."""


def _shard_of(*, shard_count: int, shard_index: int) -> Shard:
    return Shard(shard_index, shard_count)


shard_flags = FlagGroup(
    "shard",
    _shard_of,
    flag(
        "shard-count",
        type=click.IntRange(min=1),
        default=1,
        help="Split the instance's WebApps into this many shards (an Indexed Job's completions).",
    ),
    flag(
        "shard-index",
        env=["JOB_COMPLETION_INDEX"],
        type=click.IntRange(min=0),
        default=0,
        help="This run's shard, 0 to count-1 (an Indexed Job sets JOB_COMPLETION_INDEX).",
    ),
)
"""--shard-count, --shard-index: a `Shard`, to plan, apply and prune only its WebApps."""


def _lock_of(*, lock_namespace: str | None, lock_timeout: float = 0) -> Lock:
    return Lock(lock_namespace, lock_timeout)


_lock_namespace = flag(
    "lock-namespace",
    help="Namespace of the run lock, Lease driftctl-<instance> (default: the Pod's namespace "
    "in a cluster, else default).",
)
lock_flags = FlagGroup("lock", _lock_of, _lock_namespace)
"""--lock-namespace: a `Lock` that does not wait for another run's."""
waiting_lock_flags = FlagGroup(
    "lock",
    _lock_of,
    _lock_namespace,
    flag(
        "lock-timeout",
        type=click.FloatRange(min=0),
        default=0,
        help="Seconds to wait for another run's lock before exiting 6.",
    ),
)
"""--lock-namespace, --lock-timeout: a `Lock` that may wait (apply)."""

metrics_flags = FlagGroup(
    "metrics",
    Metrics,
    flag(
        "pushgateway",
        metavar="URL",
        help="Push the run's metrics to this Prometheus Pushgateway when it ends "
        "(http://host:9091); a failed push is a warning.",
    ),
)
"""--pushgateway: `Metrics`, where apply pushes them."""

watch_flags = FlagGroup(
    "settings",
    Watch.of,
    flag(
        "resync",
        type=click.FloatRange(min=1),
        default=300,
        help="Seconds between full plans and applies (fresh LISTs), so that anything a watch "
        "missed converges.",
    ),
    flag(
        "git-poll",
        type=click.FloatRange(min=0.1),
        default=15,
        help="Seconds between looks at the Git ref; the commit is fetched only when it moved.",
    ),
    flag(
        "metrics-addr",
        default=":8080",
        metavar="[HOST]:PORT",
        help="Where /healthz, /readyz and /metrics are served (port 0: any free port).",
    ),
    flag(
        "lease-duration",
        type=click.IntRange(min=3),
        default=30,
        help="Seconds a standby waits for a silent leader. The leader renews every third of "
        "it and stops (exit 6) when no renewal succeeded for two thirds of it.",
    ),
)
"""--resync, --git-poll, --metrics-addr, --lease-duration: `Watch`, how watch paces itself."""

check_flags = FlagGroup(
    "settings",
    Check.of,
    flag(
        "fail-on",
        default="invalid",
        metavar="SET",
        help=f"What makes the exit code non-zero, comma-separated: any of {', '.join(FAIL_ON)} "
        "('' for nothing).",
    ),
    flag(
        "max-bytes",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_BYTES,
        help="Most bytes of the Markdown report (a GitHub comment holds 65,536 characters).",
    ),
    flag("offline", is_flag=True, help="Never read the cluster, even with credentials."),
)
"""--fail-on, --max-bytes, --offline: `Check`, what makes the pre-merge check fail."""


def _verify_of(
    *,
    verify: str,
    trusted_keys: Path | None,
    allowed_signers: Path | None,
    allow_rewind: bool = False,
) -> Verify:
    return Verify(verify, trusted_keys, allowed_signers, allow_rewind)


_verify = (
    flag(
        "verify",
        type=click.Choice(VERIFY_MODES),
        default="off",
        help="Refuse (exit 3) a commit not signed by a trusted key: `head` checks the commit "
        "read (and the annotated tag its ref names), `all` every commit since the last "
        "revision verified and applied (recorded on the run lock's Lease).",
    ),
    flag(
        "trusted-keys",
        metavar="DIR",
        type=click.Path(file_okay=False, path_type=Path),
        help="Folder of trusted OpenPGP public keys, armored, one *.asc file each (a subkey "
        "signs for its primary key; expired or revoked keys are not trusted).",
    ),
    flag(
        "allowed-signers",
        metavar="FILE",
        type=click.Path(dir_okay=False, path_type=Path),
        help="ssh-keygen allowed-signers file: the SSH keys trusted to sign commits.",
    ),
)
verify_flags = FlagGroup(
    "verify",
    _verify_of,
    *_verify,
    flag(
        "allow-rewind",
        is_flag=True,
        help="With --verify, apply a commit that does not descend from the last revision "
        "verified and applied (a force-push back; its head is checked as on a first run).",
    ),
)
"""--verify, --trusted-keys, --allowed-signers, --allow-rewind: a `Verify`, which commits
must be signed by a trusted key before anything is applied (plan, apply, watch)."""
verify_flags_without_rewind = FlagGroup("verify", _verify_of, *_verify)
"""The same without --allow-rewind, for `check` (a pull request is never a rewind)."""
_file = click.Path(dir_okay=False, path_type=Path)
_notify = (
    flag(
        "notify-on",
        default=",".join(NOTIFY_ON),
        metavar="SET",
        help="What is worth telling, comma-separated: any of " + ", ".join(NOTIFY_ON) + ".",
    ),
    flag(
        "notify-repeat",
        type=click.FloatRange(min=0),
        default=86_400,
        help="Seconds before something told and unchanged is told again (0: never).",
    ),
    flag(
        "notify-timeout",
        type=click.FloatRange(min=1),
        default=10,
        help="Seconds each receiver may take, retries included; a receiver that fails is a "
        "warning, never a failed run.",
    ),
    flag(
        "notify-max-bytes",
        type=click.IntRange(min=1),
        default=16_384,
        help="Most bytes of a digest; the items that do not fit are counted, not listed.",
    ),
    flag("webhook-url", metavar="URL", help="POST each digest as JSON to this URL."),
    flag(
        "webhook-secret-file",
        type=_file,
        help="File holding the secret the webhook's bodies are signed with "
        "(X-Driftctl-Signature-256: sha256=HMAC).",
    ),
    flag(
        "slack-webhook-file",
        type=_file,
        help="File holding a Slack-compatible incoming webhook's URL (the URL is the secret).",
    ),
    flag(
        "alertmanager-url",
        metavar="URL",
        help="Send each condition found as an alert to this Prometheus Alertmanager "
        "(http://host:9093), resolved once it is gone.",
    ),
    flag(
        "alertmanager-ttl",
        type=click.FloatRange(min=60),
        default=3_600,
        help="Seconds a firing alert lasts unless a later run sends it again (above the time "
        "between runs).",
    ),
    flag(
        "github-repo",
        metavar="OWNER/NAME",
        help="Set the status of each commit applied on this GitHub repository.",
    ),
    flag("github-token-file", type=_file, help="File holding the GitHub token."),
    flag(
        "github-api",
        default=GITHUB_API,
        metavar="URL",
        help="GitHub's API (Enterprise: https://HOST/api/v3).",
    ),
    flag(
        "github-environment",
        metavar="NAME",
        help="Also record a GitHub deployment of each commit applied to this environment.",
    ),
    flag(
        "gitlab-project",
        metavar="ID|PATH",
        help="Set the status of each commit applied on this GitLab project.",
    ),
    flag("gitlab-token-file", type=_file, help="File holding the GitLab token."),
    flag("gitlab-api", metavar="URL", help="GitLab's API (https://HOST/api/v4)."),
)
notify_flags = FlagGroup("notify", Notify.of, *_notify)
"""The receivers, what they are told and how long they may take: `Notify` (apply)."""
watching_notify_flags = FlagGroup(
    "notify",
    Notify.of,
    *_notify,
    flag(
        "notify-window",
        type=click.FloatRange(min=0.1),
        default=10,
        help="Seconds of reconciles one digest gathers.",
    ),
)
"""The same, and how long watch gathers one digest: `Notify` (watch)."""
