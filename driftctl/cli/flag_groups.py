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
from driftctl.cli.flags import Duration, FlagGroup, flag
from driftctl.policies import ChangePolicy, DriftPolicy, Propagation, PrunePolicy
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
    Selection,
    Shard,
    Source,
    Verify,
    Wait,
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


source_flags = FlagGroup("source", _source_of, _repo, _ref, *_source, title="Source flags")
"""--repo, --ref, --path, --cache-dir, --namespace, --skip-unknown-kinds and the Git
credential files: a `Source`."""
source_flags_without_ref = FlagGroup("source", _source_of, _repo, *_source, title="Source flags")
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
    field_manager: str = c.FIELD_MANAGER,
    timeout: float,
    concurrency: int = DEFAULT_CONCURRENCY,
    target_namespaces: str | None = None,
) -> Cluster:
    scope = namespace_list(target_namespaces)
    return Cluster(
        kubeconfig, context, instance, field_manager, timeout, concurrency, namespaces=scope
    )


_kubeconfig = flag(
    "kubeconfig",
    env=["KUBECONFIG"],
    type=click.Path(dir_okay=False),
    help="Kubeconfig file (default: ~/.kube/config, or the Pod's service account in a cluster).",
)
_context = flag("context", help="Kubeconfig context to use (default: its current context).")
_instance = flag(
    "instance",
    default=c.DEFAULT_INSTANCE,
    help="This driftctl's instance: it only sees and changes objects labelled "
    f"{c.INSTANCE_LABEL}=<instance>.",
)
_timeout = flag(
    "timeout",
    type=Duration(minimum=1),
    default="5m",
    help="How long the whole run may take, retries of transient failures included (30s, 5m, "
    "or seconds).",
)
cluster_flags = FlagGroup(
    "cluster",
    _cluster_of,
    _kubeconfig,
    _context,
    _instance,
    flag("field-manager", default=c.FIELD_MANAGER, help="Field manager of server-side apply."),
    _timeout,
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
    title="Cluster flags",
)
"""--kubeconfig, --context, --instance, --field-manager, --timeout, --concurrency,
--target-namespaces: a `Cluster` (--max-events, where a command has it, is its own)."""


class WindowText(click.types.StringParamType):
    """A window as written (driftctl.settings parses it). Its variable, DRIFTCTL_WINDOW, holds
    several separated by `;`: a window itself holds spaces, never a `;`."""

    name = "window"
    envvar_list_splitter = ";"


reading_flags = FlagGroup(
    "cluster",
    _cluster_of,
    _kubeconfig,
    _context,
    _instance,
    flag(
        "field-manager",
        default=c.FIELD_MANAGER,
        help="Field manager whose fields are Git's (as plan reads them).",
    ),
    _timeout,
    flag(
        "target-namespaces",
        metavar="NS[,NS...]",
        help="Read only these namespaces (for namespace-scoped RBAC).",
    ),
    title="Cluster flags",
)
"""--kubeconfig, --context, --instance, --field-manager, --timeout, --target-namespaces: a
`Cluster`, for the commands that only read (status, version): no --concurrency."""

connection_flags = FlagGroup(
    "cluster", _cluster_of, _kubeconfig, _context, _instance, _timeout, title="Cluster flags"
)
"""--kubeconfig, --context, --instance, --timeout: a `Cluster`, for the commands that only
read or free the run lock and the instance's objects (unlock, status, version): the flags of
writing and planning (--field-manager, --concurrency, --target-namespaces) do nothing there."""


def _kubeconfig_of(*, kubeconfig: str | None, context: str | None) -> Cluster:
    return Cluster(kubeconfig, context)


kubeconfig_flags = FlagGroup(
    "cluster", _kubeconfig_of, _kubeconfig, _context, title="Cluster flags"
)
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
    flag(
        "change-policy",
        type=click.Choice([each.value for each in ChangePolicy]),
        default=ChangePolicy.APPLY.value,
        help="What happens to Git's own changes of a WebApp: apply them, or hold them "
        f"(reported, not applied). A WebApp's annotation {c.CHANGE_POLICY_ANNOTATION} in Git "
        "chooses its own.",
    ),
    flag(
        "drift-policy",
        type=click.Choice([each.value for each in DriftPolicy]),
        default=DriftPolicy.CORRECT.value,
        help="What happens to drift made in the cluster: correct it, warn (report it, never "
        f"write it) or off (neither). A WebApp's annotation {c.DRIFT_POLICY_ANNOTATION} in "
        "Git chooses its own.",
    ),
    flag(
        "prune-policy",
        type=click.Choice([each.value for each in PrunePolicy]),
        default=PrunePolicy.DELETE.value,
        help="What happens to a WebApp Git no longer declares: delete it, orphan it (its "
        "Deployment stays, released), confirm (wait for an approval annotation), quarantine "
        f"(scale to zero, delete after --quarantine-grace). {c.PRUNE_POLICY_ANNOTATION} in "
        "Git, while the WebApp is declared, chooses its own.",
    ),
    flag(
        "prune-propagation",
        type=click.Choice([each.value for each in Propagation]),
        default=Propagation.BACKGROUND.value,
        help="How driftctl's deletes reach what the deleted object owns: background or "
        "foreground (the owner goes last).",
    ),
    flag(
        "quarantine-grace",
        default="24h",
        metavar="DURATION",
        help="How long a quarantined WebApp must stay absent from Git before it is deleted "
        "(90m, 12h, 2d).",
    ),
    flag(
        "window",
        multiple=True,
        show_default=False,
        type=WindowText(),
        metavar="WINDOW",
        help="A change window: 'deny|allow CRON for DURATION [in ZONE] [on changes,drift,"
        "prunes]', e.g. 'deny 0 18 * * 5 for 64h in Europe/Berlin'. A run inside a deny "
        "window (or outside every allow window) plans as usual and holds what it covers; "
        "repeat it.",
    ),
    flag(
        "override-windows",
        is_flag=True,
        help="Go through the windows for this one run (each Event it records says so).",
    ),
    title="Policy flags",
)
"""--prune/--no-prune, --allow-empty, --max-prune, --recreate and the controls (the change,
drift and prune policies, --prune-propagation, --quarantine-grace, --window,
--override-windows): a `Policy`, what apply may do. A flag added here needs its field in
`Policy` and its parameter in `Policy.of`."""


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
    title="Drift flags",
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
    title="Shard flags",
)
"""--shard-count, --shard-index: a `Shard`, to plan, apply and prune only its WebApps."""


def _lock_of(*, lock_namespace: str, lock_timeout: float = 0) -> Lock:
    return Lock(lock_namespace, lock_timeout)


_lock_namespace = flag(
    "lock-namespace",
    default=c.LOCK_NAMESPACE,
    help="Namespace of the run lock, Lease driftctl-<instance>, wherever driftctl runs: every "
    "run of an instance must name the same.",
)
lock_flags = FlagGroup("lock", _lock_of, _lock_namespace, title="Lock flags")
"""--lock-namespace: a `Lock` that does not wait for another run's."""
waiting_lock_flags = FlagGroup(
    "lock",
    _lock_of,
    _lock_namespace,
    flag(
        "lock-timeout",
        type=Duration(),
        default="0s",
        help="How long to wait for another run's lock before exiting 6 (30s, 5m, or seconds).",
    ),
    title="Lock flags",
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
    title="Metrics flags",
)
"""--pushgateway: `Metrics`, where apply pushes them."""


def _wait_of(*, wait: bool, wait_timeout: float) -> Wait:
    return Wait(wait, wait_timeout)


wait_flags = FlagGroup(
    "wait",
    _wait_of,
    flag(
        "wait",
        is_flag=True,
        help="After applying, wait for the rollouts of the WebApps this run changed: each "
        "Ready, or Stalled (exit 7), or --wait-timeout gone (exit 7).",
    ),
    flag(
        "wait-timeout",
        type=click.FloatRange(min=1),
        default=300,
        help="Seconds --wait waits for the rollouts, after the changes are applied (apart "
        "from --timeout).",
    ),
)
"""--wait, --wait-timeout: `Wait`, whether apply waits for its rollouts."""

watch_flags = FlagGroup(
    "settings",
    Watch.of,
    flag(
        "resync",
        type=Duration(minimum=1),
        default="5m",
        help="Time between full plans and applies (fresh LISTs), so that anything a watch "
        "missed converges.",
    ),
    flag(
        "git-poll",
        type=Duration(minimum=0.1),
        default="15s",
        help="Time between looks at the Git ref; the commit is fetched only when it moved.",
    ),
    flag(
        "metrics-addr",
        default=":8080",
        metavar="[HOST]:PORT",
        help="Where /healthz, /readyz and /metrics are served (port 0: any free port).",
    ),
    flag(
        "lease-duration",
        type=Duration(minimum=3),
        default="30s",
        help="How long a standby waits for a silent leader (whole seconds). The leader renews "
        "every third of it and stops (exit 6) when no renewal succeeded for two thirds of it.",
    ),
    flag(
        "shard-count",
        type=click.IntRange(min=1),
        default=1,
        help="Split the instance's WebApps into this many shards, each led by one process "
        "(its own Lease, driftctl-<instance>-shard-<i>); as apply's --shard-count.",
    ),
    flag(
        "shard-index",
        type=click.IntRange(min=0),
        help="Lead only this shard (default: whichever shard's Lease is free, so that the "
        "replicas of one Deployment share the shards out).",
    ),
    title="Watch flags",
)
"""--resync, --git-poll, --metrics-addr, --lease-duration, --shard-count, --shard-index:
`Watch`, how watch paces itself and which shard it leads."""

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
    title="Check flags",
)
"""--fail-on, --max-bytes, --offline: `Check`, what makes the pre-merge check fail."""

selection_flags = FlagGroup(
    "selection",
    Selection.of,
    click.argument("names", nargs=-1, metavar="[NAME]..."),
    flag(
        "selector",
        short="-l",
        metavar="SELECTOR",
        help="Act only on the WebApps whose labels match, as kubectl's -l (team=web, "
        "env in (prod,staging), !legacy); prunes too. Instead of NAME...",
    ),
    title="Selection",
)
"""`NAME...` (WebApps by name, or namespace/name) and -l/--selector: a `Selection`, the
WebApps a run plans, applies and prunes (the guards count the whole instance)."""


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
    title="Verify flags",
)
"""--verify, --trusted-keys, --allowed-signers, --allow-rewind: a `Verify`, which commits
must be signed by a trusted key before anything is applied (plan, apply, watch)."""
verify_flags_without_rewind = FlagGroup("verify", _verify_of, *_verify, title="Verify flags")
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
        type=Duration(minimum=0),
        default=86_400,
        help="Seconds before something told and unchanged is told again (0: never).",
    ),
    flag(
        "notify-timeout",
        type=Duration(minimum=1),
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
        type=Duration(minimum=60),
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
notify_flags = FlagGroup("notify", Notify.of, *_notify, title="Notification flags")
"""The receivers, what they are told and how long they may take: `Notify` (apply)."""
watching_notify_flags = FlagGroup(
    "notify",
    Notify.of,
    *_notify,
    flag(
        "notify-window",
        type=Duration(minimum=0.1),
        default=10,
        help="Seconds of reconciles one digest gathers.",
    ),
    title="Notification flags",
)
"""The same, and how long watch gathers one digest: `Notify` (watch)."""
