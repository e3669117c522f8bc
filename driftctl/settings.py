"""One settings model: every flag of every command as a typed value, validated once.

The command line builds these from its flags (each flag also reads a `DRIFTCTL_*`
environment variable) and hands them down unchanged; nothing below the command line
parses a flag again. A value that cannot work raises UsageError here, before Git or the
cluster is touched. Pure: no environment, no files.

- `Source`: where the desired state is read and how documents are validated;
- `GitAuth`: which files hold the Git credentials (in a Pod, mounted from a Secret); the
  files themselves are read by shell.git_source, never here;
- `Cluster`: how to reach the cluster, which objects are this instance's, and how hard a
  run may press on it (requests in flight, Events recorded);
- `Policy`: what apply may do (prune, its guards, recreate) — `plan` takes the same flags,
  so both say the same thing;
- `Drift`: what counts as drift: whose fields outside Git are reverted, which fields are
  ignored (`plan` and `apply` take the same flags; the grammar of an ignore rule is
  driftctl.ignore_rules);
- `Lock`: the run lock, which only `apply` takes;
- `Shard`: which part of the instance's WebApps one process plans and applies;
- `Metrics`: where `apply` pushes its metrics when the run ends (a Pushgateway).
- `Watch`: how `driftctl watch` paces itself (Git polls, full resyncs) and where it
  serves its probes and metrics;
- `Check`: what makes the pre-merge `check` fail, its Markdown budget, and whether it
  reads the cluster;
- `Verify`: which commits must be signed by a trusted key before anything is applied, the
  files the keys are read from, and whether a rewind is allowed.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from driftctl import conventions as c
from driftctl.errors import UsageError
from driftctl.ignore_rules import IgnoreRule
from driftctl.kube_formats import label_problem, label_value_problem, subdomain_problem

MAX_FIELD_MANAGER = 128  # the API server refuses longer fieldManager values
MAX_SHARDS = 1000  # far more than a fleet needs; bounds the Lease and label values
DEFAULT_CONCURRENCY = 8  # measured: cold applies of 1,000 WebApps, docs/development/benchmarks.md
MAX_EVENTS = 100  # default --max-events: everyday drift, bounded on a first run
_MAX_PRUNE = re.compile(r"^(\d+)(%?)$")


@dataclass(frozen=True)
class GitAuth:
    """Where the Git credentials are: file paths only, never their contents.

    A token (`--git-token-file`) is for https:// URLs; an SSH key (`--git-ssh-key-file`)
    with the hosts it may trust (`--git-known-hosts-file`) is for ssh:// and scp-like
    URLs. A host key is only ever trusted from that file: an SSH key without one is refused,
    so a run can never accept a host key nobody gave it.
    """

    token_file: Path | None = None
    ssh_key_file: Path | None = None
    known_hosts_file: Path | None = None

    def __post_init__(self) -> None:
        if self.token_file is not None and self.ssh_key_file is not None:
            raise UsageError(
                "--git-token-file and --git-ssh-key-file cannot be used together",
                hint="a token is for https:// URLs, an SSH key for ssh:// URLs: give one",
            )
        if self.ssh_key_file is not None and self.known_hosts_file is None:
            raise UsageError(
                "--git-ssh-key-file needs --git-known-hosts-file",
                hint="driftctl trusts only the host keys it is given: pass a known_hosts file "
                "(ssh-keyscan HOST, checked by hand)",
            )

    @property
    def uses_ssh(self) -> bool:
        """Whether ssh is to be run with these files rather than its own set-up."""
        return self.ssh_key_file is not None or self.known_hosts_file is not None


@dataclass(frozen=True)
class Source:
    """Where the desired state is read, and how its documents are validated."""

    repo: str = "."
    ref: str | None = None  # None: the working tree of a local path, a URL's default branch
    path: str = ""  # folder inside the repository ("": its root)
    cache_dir: Path | None = None  # None: ~/.cache/driftctl/repos
    namespace: str = c.DEFAULT_NAMESPACE  # of WebApps that name none
    skip_unknown_kinds: bool = False
    auth: GitAuth = GitAuth()

    def __post_init__(self) -> None:
        problem = label_problem(self.namespace)
        if problem is not None:
            raise UsageError(f"--namespace {problem}")

    def at(self, ref: str | None) -> Source:
        """The same repository and folder at another ref (None: the working tree)."""
        return replace(self, ref=ref)


@dataclass(frozen=True)
class Cluster:
    """How to reach the cluster, and which objects are this instance's."""

    kubeconfig: str | None = None
    context: str | None = None
    instance: str = c.DEFAULT_INSTANCE
    field_manager: str = c.FIELD_MANAGER
    timeout: float = 300.0  # seconds for the whole run, retries included
    concurrency: int = DEFAULT_CONCURRENCY  # WebApps in flight at once
    max_events: int = MAX_EVENTS  # Events one apply records; one summary Event beyond
    # The only namespaces read and written (a namespace-scoped RBAC); (): the whole cluster.
    namespaces: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        problem = instance_problem(self.instance)
        if problem is not None:
            raise UsageError(f"--instance {problem}")
        for namespace in self.namespaces:
            if problem := label_problem(namespace):
                raise UsageError(f"--target-namespaces: {namespace!r} {problem}")
        if len(set(self.namespaces)) != len(self.namespaces):
            raise UsageError("--target-namespaces names a namespace twice")
        if not self.field_manager or len(self.field_manager) > MAX_FIELD_MANAGER:
            raise UsageError(
                f"--field-manager must be 1 to {MAX_FIELD_MANAGER} characters, "
                f"got {len(self.field_manager)}"
            )
        if self.max_events < 0:
            raise UsageError(f"--max-events must be 0 or more, got {self.max_events}")


def namespace_list(text: str | None) -> tuple[str, ...]:
    """`--target-namespaces a,b` as a tuple; None or blank: () (the whole cluster)."""
    if text is None or not text.strip():
        return ()
    return tuple(part.strip() for part in text.split(","))


def instance_problem(instance: str) -> str | None:
    """Why `instance` cannot name an instance: it is a label value and part of a Lease name."""
    if not instance:
        return "must not be empty"
    return label_value_problem(instance) or subdomain_problem(c.lease_name(instance))


@dataclass(frozen=True)
class MaxPrune:
    """A limit on deletions per run: a count, or a percentage of the managed set."""

    value: int
    percent: bool = False

    @classmethod
    def parse(cls, text: str) -> MaxPrune:
        """`N` (a count) or `P%` (0-100 percent of the managed WebApps)."""
        match = _MAX_PRUNE.match(text.strip())
        if match is None:
            raise UsageError(
                f"--max-prune must be a count N or a percentage P%, not {text!r}",
                hint="for example --max-prune 10 or --max-prune 25%",
            )
        value, percent = int(match.group(1)), bool(match.group(2))
        if percent and value > 100:
            raise UsageError(f"--max-prune percentage must be at most 100%, not {text!r}")
        return cls(value, percent)

    def limit(self, managed: int) -> int:
        """How many deletions are allowed when `managed` objects are managed."""
        return managed * self.value // 100 if self.percent else self.value

    def __str__(self) -> str:
        return f"{self.value}%" if self.percent else str(self.value)


@dataclass(frozen=True)
class Policy:
    """What apply may do. `plan` takes the same flags, so plan and apply say the same."""

    prune: bool = True
    allow_empty: bool = False  # prune even when Git declares no WebApp at all
    max_prune: MaxPrune | None = None  # None: half the managed set
    recreate: bool = False  # delete and create again objects whose immutable fields changed

    @classmethod
    def of(cls, *, prune: bool, allow_empty: bool, max_prune: str | None, recreate: bool) -> Policy:
        """The policy from its flags as typed (--max-prune as text)."""
        limit = MaxPrune.parse(max_prune) if max_prune is not None else None
        return cls(prune, allow_empty, limit, recreate)


@dataclass(frozen=True)
class Lock:
    """The run lock of `apply`: a Lease driftctl-<instance>."""

    namespace: str | None = None  # None: the Pod's namespace in a cluster, else default
    timeout: float = 0.0  # seconds to wait for another run's lock

    def __post_init__(self) -> None:
        if self.namespace is not None and (problem := label_problem(self.namespace)):
            raise UsageError(f"--lock-namespace {problem}")


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count`: this process plans, applies and prunes only its WebApps.

    Which WebApp belongs to which shard is core.planning.shards' stable hash of its
    namespace/name. One shard of one (the default) is the whole instance.
    """

    index: int = 0
    count: int = 1

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


@dataclass(frozen=True)
class Metrics:
    """Where `apply` pushes its metrics when the run ends (None: nowhere)."""

    pushgateway: str | None = None  # http(s)://host[:port][/prefix]

    def __post_init__(self) -> None:
        if self.pushgateway is not None and (problem := pushgateway_problem(self.pushgateway)):
            raise UsageError(
                f"--pushgateway {problem}", hint="for example --pushgateway http://pushgateway:9091"
            )


def pushgateway_problem(url: str) -> str | None:
    """Why `url` cannot name a Pushgateway; credentials in it are refused (they would be
    printed with every failed push), and never repeated in the message."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return "is not a URL"
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if "@" in parts.netloc:
        return "must not carry credentials (user:password@)"
    if not parts.hostname:
        return "has no host"
    if parts.query or parts.fragment:
        return "must not have a query or fragment"
    return None


@dataclass(frozen=True)
class Watch:
    """How `driftctl watch` paces itself, and where it serves /healthz, /readyz, /metrics."""

    resync: float = 300.0  # seconds between full plans and applies (the seed operator's requeue)
    git_poll: float = 15.0  # seconds between looks at the Git ref
    metrics_host: str = "0.0.0.0"
    metrics_port: int = 8080
    lease_duration: int = 30  # seconds; renewed every third, given up after two thirds

    def __post_init__(self) -> None:
        if self.lease_duration < MIN_LEASE_SECONDS:
            raise UsageError(
                f"--lease-duration must be at least {MIN_LEASE_SECONDS} seconds, "
                f"got {self.lease_duration}"
            )
        if self.resync < 1:
            raise UsageError(f"--resync must be at least 1 second, got {self.resync:g}")
        if self.git_poll < 0.1:
            raise UsageError(f"--git-poll must be at least 0.1 seconds, got {self.git_poll:g}")
        if not 0 <= self.metrics_port <= 65535:
            raise UsageError(f"--metrics-addr port must be 0 to 65535, got {self.metrics_port}")

    @classmethod
    def of(
        cls, *, resync: float, git_poll: float, metrics_addr: str, lease_duration: int = 30
    ) -> Watch:
        """The settings from their flags (--metrics-addr as HOST:PORT, or :PORT for all)."""
        host, colon, port = metrics_addr.rpartition(":")
        if not colon or not port.isdigit():
            raise UsageError(
                f"--metrics-addr must be HOST:PORT or :PORT, not {metrics_addr!r}",
                hint="for example --metrics-addr 127.0.0.1:8080 or --metrics-addr :8080",
            )
        return cls(resync, git_poll, host.strip("[]") or "0.0.0.0", int(port), lease_duration)


MIN_LEASE_SECONDS = 3
# What `check --fail-on` may name: "unsigned" and "untrusted" are commits (`--verify`).
FAIL_ON = ("invalid", "prune", "replace", "drift", "change", "unsigned", "untrusted")
DEFAULT_MAX_BYTES = 65_536  # a GitHub comment holds at most 65,536 characters
MIN_MAX_BYTES = 4_096  # room for the summary and a few objects


@dataclass(frozen=True)
class Check:
    """What makes `check` fail, how long its Markdown may be, and whether it reads the cluster."""

    fail_on: frozenset[str] = frozenset({"invalid"})
    max_bytes: int = DEFAULT_MAX_BYTES
    offline: bool = False  # never read the cluster, even with credentials

    def __post_init__(self) -> None:
        unknown = sorted(self.fail_on - set(FAIL_ON))
        if unknown:
            raise UsageError(
                f"--fail-on does not know {', '.join(map(repr, unknown))}",
                hint=f"name any of {', '.join(FAIL_ON)}, separated by commas (or '' for none)",
            )
        if self.max_bytes < MIN_MAX_BYTES:
            raise UsageError(f"--max-bytes must be at least {MIN_MAX_BYTES}, got {self.max_bytes}")

    @classmethod
    def of(cls, *, fail_on: str, max_bytes: int, offline: bool) -> Check:
        """The check's settings from its flags as typed (--fail-on as `a,b`)."""
        names = frozenset(part.strip() for part in fail_on.split(",") if part.strip())
        return cls(names, max_bytes, offline)

    def reads_cluster(self, cluster: Cluster) -> bool:
        """Whether `check` reads the cluster: only when credentials are named (a kubeconfig
        or a context), so a check never reaches whatever cluster happens to be current."""
        return not self.offline and (cluster.kubeconfig is not None or cluster.context is not None)


VERIFY_MODES = ("off", "head", "all")
TRUST_FAILURES = ("unsigned", "untrusted")  # the --fail-on names that need --verify


@dataclass(frozen=True)
class Verify:
    """Which commits must be signed by a trusted key, and by which keys (paths only).

    `head`: the commit a run applies (and the annotated tag, when the ref names one);
    `all`: every commit between the last revision applied and that one. The keys are only
    ever the files named here (a folder of armored OpenPGP public keys, an ssh-keygen
    allowed-signers file), never anything in the repository. `allow_rewind` lets a run
    apply a commit that does not descend from the last revision applied.
    """

    mode: str = "off"
    trusted_keys: Path | None = None  # a folder of *.asc files
    allowed_signers: Path | None = None
    allow_rewind: bool = False

    def __post_init__(self) -> None:
        if self.mode not in VERIFY_MODES:
            raise UsageError(
                f"--verify must be one of {', '.join(VERIFY_MODES)}, not {self.mode!r}"
            )
        keys = self.trusted_keys is not None or self.allowed_signers is not None
        if self.enabled and not keys:
            raise UsageError(
                f"--verify {self.mode} needs the keys to trust",
                hint="pass --trusted-keys DIR (armored OpenPGP public keys, *.asc) and/or "
                "--allowed-signers FILE (ssh-keygen's allowed-signers format)",
            )
        given = [
            name
            for name, value in (
                ("--trusted-keys", self.trusted_keys),
                ("--allowed-signers", self.allowed_signers),
                ("--allow-rewind", self.allow_rewind or None),
            )
            if value is not None
        ]
        if not self.enabled and given:
            raise UsageError(
                f"{', '.join(given)} only work with --verify head or --verify all",
                hint="turn verification on, or drop them",
            )

    @property
    def enabled(self) -> bool:
        """Whether any commit is verified at all."""
        return self.mode != "off"

    @property
    def every_commit(self) -> bool:
        """`all`: every commit since the last revision applied, not only the head."""
        return self.mode == "all"


NO_VERIFY = Verify()


def check_trust_flags(check: Check, verify: Verify) -> None:
    """`check --fail-on unsigned|untrusted` judges commits: it needs --verify to see them."""
    asked = sorted(set(TRUST_FAILURES) & check.fail_on)
    if asked and not verify.enabled:
        raise UsageError(
            f"--fail-on {','.join(asked)} needs --verify head or --verify all",
            hint="--verify all lists every commit of the pull request with its signer",
        )


@dataclass(frozen=True)
class SavedPlanUse:
    """`apply --plan FILE`: the plan records its commit and policy, so those flags are out."""

    path: Path
    also_given: tuple[str, ...] = ()  # --ref and policy flags given on the command line

    def __post_init__(self) -> None:
        if self.also_given:
            raise UsageError(
                f"--plan applies the commit and the policy recorded in {self.path}; "
                f"drop {', '.join(self.also_given)}",
                hint="make a new plan with those flags instead",
            )


# The kubectl family: fields these managers own are a person's edits, and drift.
DEFAULT_OVERRIDE_MANAGERS = (
    "kubectl",
    "kubectl-edit",
    "kubectl-patch",
    "kubectl-client-side-apply",
    "kubectl-set",
    "kubectl-scale",
    "kubectl-label",
    "kubectl-annotate",
    "kubectl-rollout",
    "before-first-apply",
)
NO_MANAGER = "none"  # `--override-manager none`: no manager's fields are reverted


def _manager_names(names: Iterable[str], flag: str) -> tuple[str, ...]:
    out = [name.strip() for name in names]
    for name in out:
        if not name or len(name) > MAX_FIELD_MANAGER:
            raise UsageError(f"{flag} must be 1 to {MAX_FIELD_MANAGER} characters, got {name!r}")
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Drift:
    """What counts as drift (plan and apply take the same flags).

    Fields in managedFields owned by an override manager, not in Git, are drift: planned and
    removed. Fields matched by an ignore rule, or owned by an ignored manager, are not drift:
    neither reported nor reset, though a change of them in Git is still applied.
    `show_foreign` lists the fields of other managers, which are always left alone.
    """

    override_managers: tuple[str, ...] = DEFAULT_OVERRIDE_MANAGERS
    ignore: tuple[IgnoreRule, ...] = ()
    ignore_managers: tuple[str, ...] = ()
    show_foreign: bool = False

    @classmethod
    def of(
        cls,
        *,
        override_managers: Sequence[str] = (),
        ignore: Sequence[str] = (),
        ignore_managers: Sequence[str] = (),
        show_foreign: bool = False,
    ) -> Drift:
        """The drift settings from repeatable flags; no --override-manager keeps the defaults."""
        overrides: tuple[str, ...] = DEFAULT_OVERRIDE_MANAGERS
        if override_managers:
            given = _manager_names(override_managers, "--override-manager")
            overrides = () if given == (NO_MANAGER,) else given
        try:
            rules = tuple(IgnoreRule.parse(text) for text in ignore)
        except ValueError as bad:
            raise UsageError(f"--ignore {bad}") from None
        ignored = _manager_names(ignore_managers, "--ignore-manager")
        return cls(overrides, rules, ignored, show_foreign)


# What a run may tell people about (core.notify.facts.Category's values, in its order).
NOTIFY_ON = (
    "error",
    "invalid",
    "rollout",
    "conflict",
    "guard",
    "held",
    "drift",
    "prune",
    "applied",
)
DEFAULT_NOTIFY_BYTES = 16_384  # a digest's bound; Slack cuts a message's text at 40,000
MIN_NOTIFY_BYTES = 2_048
GITHUB_API = "https://api.github.com"


@dataclass(frozen=True)
class Webhook:
    """A generic webhook: its URL, and the file holding the secret its bodies are signed with."""

    url: str
    secret_file: Path | None = None

    def __post_init__(self) -> None:
        _refuse_url("--webhook-url", self.url, query=True)


@dataclass(frozen=True)
class Forge:
    """Commit statuses on a Git forge: its API, the repository (GitHub `owner/name`, GitLab
    a project id or path) and the file holding the token; `environment`, for GitHub, also
    records a deployment of each commit applied."""

    api: str
    repository: str
    token_file: Path
    environment: str | None = None


@dataclass(frozen=True)
class Notify:
    """Whom a run tells, about what, how often, and how long it may try (apply and watch).

    Secrets are only ever named by file (the webhook's secret, Slack's URL, the forges'
    tokens); the files are read when a run sends, never here.
    """

    on: frozenset[str] = frozenset(NOTIFY_ON)
    repeat: float = 86_400.0  # seconds before an unchanged item is told again (0: never)
    timeout: float = 10.0  # seconds one receiver may take, retries included
    max_bytes: int = DEFAULT_NOTIFY_BYTES
    window: float = 10.0  # watch: seconds of reconciles one digest gathers
    webhook: Webhook | None = None
    slack_file: Path | None = None  # the incoming webhook's URL (itself a secret)
    alertmanager: str | None = None
    alert_ttl: float = 3_600.0  # seconds a firing alert lasts unless sent again
    github: Forge | None = None
    gitlab: Forge | None = None

    def __post_init__(self) -> None:
        unknown = sorted(self.on - set(NOTIFY_ON))
        if unknown:
            raise UsageError(
                f"--notify-on does not know {', '.join(map(repr, unknown))}",
                hint=f"name any of {', '.join(NOTIFY_ON)}, separated by commas",
            )
        if self.repeat < 0 or self.timeout < 1 or self.window < 0.1 or self.alert_ttl < 60:
            raise UsageError(
                "--notify-repeat must be 0 or more, --notify-timeout at least 1, "
                "--notify-window at least 0.1 and --alertmanager-ttl at least 60 seconds"
            )
        if self.max_bytes < MIN_NOTIFY_BYTES:
            raise UsageError(
                f"--notify-max-bytes must be at least {MIN_NOTIFY_BYTES}, got {self.max_bytes}"
            )
        if self.alertmanager is not None:
            _refuse_url("--alertmanager-url", self.alertmanager)

    @property
    def anyone(self) -> bool:
        """Whether any receiver is configured (else a run tells nobody and reads nothing)."""
        receivers = (self.webhook, self.slack_file, self.alertmanager, self.github, self.gitlab)
        return any(receiver is not None for receiver in receivers)

    @classmethod
    def of(
        cls,
        *,
        notify_on: str,
        notify_repeat: float,
        notify_timeout: float,
        notify_max_bytes: int,
        webhook_url: str | None,
        webhook_secret_file: Path | None,
        slack_webhook_file: Path | None,
        alertmanager_url: str | None,
        alertmanager_ttl: float,
        github_repo: str | None,
        github_token_file: Path | None,
        github_api: str,
        github_environment: str | None,
        gitlab_project: str | None,
        gitlab_token_file: Path | None,
        gitlab_api: str | None,
        notify_window: float = 10.0,
    ) -> Notify:
        """The settings from their flags as typed (--notify-on as `a,b`)."""
        on = frozenset(part.strip() for part in notify_on.split(",") if part.strip())
        if webhook_secret_file is not None and webhook_url is None:
            raise UsageError("--webhook-secret-file needs --webhook-url")
        webhook = Webhook(webhook_url, webhook_secret_file) if webhook_url else None
        github = _github(github_repo, github_token_file, github_api, github_environment)
        gitlab = _gitlab(gitlab_project, gitlab_token_file, gitlab_api)
        return cls(
            on,
            notify_repeat,
            notify_timeout,
            notify_max_bytes,
            notify_window,
            webhook,
            slack_webhook_file,
            alertmanager_url,
            alertmanager_ttl,
            github,
            gitlab,
        )


_GITHUB_REPO = re.compile(r"^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$")


def _github(
    repo: str | None, token_file: Path | None, api: str, environment: str | None
) -> Forge | None:
    if repo is None:
        if token_file is not None or environment is not None:
            raise UsageError("--github-token-file and --github-environment need --github-repo")
        return None
    if not _GITHUB_REPO.match(repo):
        raise UsageError(f"--github-repo must be OWNER/NAME, not {repo!r}")
    if token_file is None:
        raise UsageError(
            "--github-repo needs --github-token-file",
            hint="a token that may write commit statuses (and deployments), in a mounted file",
        )
    _refuse_url("--github-api", api)
    return Forge(api.rstrip("/"), repo, token_file, environment or None)


def _gitlab(project: str | None, token_file: Path | None, api: str | None) -> Forge | None:
    if project is None:
        if token_file is not None or api is not None:
            raise UsageError("--gitlab-token-file and --gitlab-api need --gitlab-project")
        return None
    if token_file is None or api is None:
        raise UsageError(
            "--gitlab-project needs --gitlab-api and --gitlab-token-file",
            hint="for example --gitlab-api https://gitlab.example.com/api/v4",
        )
    if not project.strip("/"):
        raise UsageError("--gitlab-project must be a project id or path (group/name)")
    _refuse_url("--gitlab-api", api)
    return Forge(api.rstrip("/"), project.strip("/"), token_file)


def _refuse_url(flag: str, url: str, *, query: bool = False) -> None:
    """A receiver's URL: http(s), a host, no credentials (they belong in files)."""
    problem = pushgateway_problem(url)
    if problem == "must not have a query or fragment" and query:
        problem = None
    if problem is not None:
        raise UsageError(f"{flag} {problem}")
