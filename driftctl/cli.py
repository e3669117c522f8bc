"""The command line: the only module that imports click.

Each command takes plain click options, builds the settings (driftctl.settings validates
them), makes one pipeline call, prints what it returns and exits with the code from
errors.ExitCode. No decision is made here. Every flag also reads an environment variable,
`DRIFTCTL_<FLAG>` (e.g. `--max-prune` from `DRIFTCTL_MAX_PRUNE`), so a CronJob can be
configured from a ConfigMap; `--kubeconfig` also reads `KUBECONFIG`, `--shard-index` also
`JOB_COMPLETION_INDEX` (an Indexed Job's).

`plan` and `apply` log as text for a person (the default) or, with `--log-format json`,
as one JSON object per line on stderr (render.log): then stdout carries only what `-o`
asks for, and nothing else is printed, so a log pipeline can parse every line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from driftctl import __version__
from driftctl import conventions as c
from driftctl.errors import DriftctlError, ExitCode, InvalidDesiredState
from driftctl.render.style import Style
from driftctl.settings import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_BYTES,
    DEFAULT_OVERRIDE_MANAGERS,
    FAIL_ON,
    MAX_EVENTS,
    Check,
    Cluster,
    Drift,
    GitAuth,
    Lock,
    Metrics,
    Policy,
    SavedPlanUse,
    Shard,
    Source,
    Watch,
    namespace_list,
)

if TYPE_CHECKING:
    from driftctl.core.planning.actions import Plan
    from driftctl.core.planning.outcomes import ApplyReport
    from driftctl.render import log as log_render
    from driftctl.shell.apply import Progress, Tick
    from driftctl.shell.terminal import TerminalProgress

# Each command imports the pipeline, the shell and the renderers it uses when it runs, so
# that `driftctl --help` (and a usage error) costs click and the settings, not the
# Kubernetes client, GitPython and the planner: measured in README.md (Development).

F = TypeVar("F", bound=Callable[..., object])
ENV_PREFIX = "DRIFTCTL_"


def flag(name: str, *, env: Sequence[str] = (), **attributes: Any) -> Callable[[F], F]:
    """A click option `--name` that also reads DRIFTCTL_NAME (and `env`, in that order).

    `name` may be a pair, `prune/--no-prune`; its variable is named after the first.
    """
    variable = ENV_PREFIX + name.split("/", maxsplit=1)[0].upper().replace("-", "_")
    attributes.setdefault("show_default", True)
    return click.option(f"--{name}", envvar=[variable, *env], show_envvar=True, **attributes)


def stacked(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Several options applied as one decorator, in the order they are written."""

    def decorate(command: F) -> F:
        for each in reversed(decorators):
            command = each(command)
        return command

    return decorate


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="driftctl")
def cli() -> None:
    """Keep WebApp resources and their Deployments equal to a Git repository."""


def output_flag(*formats: str) -> Callable[[F], F]:
    """-o/--output with the command's formats; the first is the default."""
    return click.option(
        "-o",
        "--output",
        type=click.Choice(list(formats)),
        default=formats[0],
        show_default=True,
        envvar=ENV_PREFIX + "OUTPUT",
        show_envvar=True,
    )


@cli.command()
@output_flag("yaml", "json")
def crd(output: str) -> None:
    """Print the WebApp CustomResourceDefinition, generated from driftctl's model.

    Install it with `driftctl crd | kubectl apply -f -`. specs/webapp-crd.yaml is this
    output, committed.
    """
    from driftctl.core.source.crd import GENERATED_NOTICE, webapp_crd
    from driftctl.render.manifests import to_json, to_yaml

    manifest = webapp_crd()
    click.echo(
        to_json(manifest) if output == "json" else to_yaml(manifest, notice=GENERATED_NOTICE),
        nl=False,
    )


repo_flag = flag(
    "repo",
    default=".",
    help="Repository: a local path, or a URL (https://, ssh://, git@host:path, file://).",
)
ref_flag = flag(
    "ref",
    help="Branch, tag or commit to read (default: the working tree of a local path, the "
    "default branch of a URL).",
)
source_flags = stacked(
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
"""--path, --cache-dir, --namespace, --skip-unknown-kinds and the Git credential files
(with --repo and maybe --ref)."""


def _style() -> Style:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return Style(colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))


@cli.command()
@repo_flag
@ref_flag
@source_flags
@output_flag("text", "json")
@click.pass_context
def validate(
    ctx: click.Context,
    *,
    repo: str,
    ref: str | None,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    git_token_file: Path | None,
    git_ssh_key_file: Path | None,
    git_known_hosts_file: Path | None,
    output: str,
) -> None:
    """Check the desired state in Git without a cluster.

    Reads every *.yaml/*.yml file under --path, refuses unsafe YAML, and checks each WebApp
    against the CRD schema, Kubernetes naming rules and duplicates. Exit 0 when valid, 3 with
    every problem (file:line:column: reason) otherwise, 4 when Git cannot be read.
    """
    from driftctl.pipeline import offline
    from driftctl.render import offline as offline_render

    auth = GitAuth(git_token_file, git_ssh_key_file, git_known_hosts_file)
    source = Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds, auth)
    report = offline.validate_source(source, os.environ)
    if output == "json":
        click.echo(offline_render.validation_json(report), nl=False)
    else:
        text = offline_render.validation_text(report, _style())
        click.echo(text, nl=False, err=not report.valid)
    ctx.exit(ExitCode.OK if report.valid else ExitCode.INVALID_INPUT)


@cli.command()
@flag("base", required=True, help="Branch, tag or commit before the change (e.g. main).")
@flag(
    "head",
    help="Branch, tag or commit after the change (default: the working tree of a local path).",
)
@repo_flag
@source_flags
@output_flag("text", "json", "markdown")
@click.pass_context
def diff(
    ctx: click.Context,
    *,
    base: str,
    head: str | None,
    repo: str,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    git_token_file: Path | None,
    git_ssh_key_file: Path | None,
    git_known_hosts_file: Path | None,
    output: str,
) -> None:
    """Show how the desired state changes between two commits, without a cluster.

    WebApps added, removed and changed (field by field, old -> new). What a pre-merge check
    runs: `driftctl diff --base origin/main --head HEAD -o markdown`. Exit 0 when equal, 1 when
    different, 3 when either side is invalid (the message says which), 4 when Git cannot be
    read.
    """
    from driftctl.pipeline import offline
    from driftctl.render import offline as offline_render

    auth = GitAuth(git_token_file, git_ssh_key_file, git_known_hosts_file)
    source = Source(repo, None, path, cache_dir, namespace, skip_unknown_kinds, auth)
    report = offline.diff_sources(source.at(base), source.at(head), os.environ)
    if output == "json":
        click.echo(offline_render.diff_json(report), nl=False)
    elif output == "markdown":
        click.echo(offline_render.diff_markdown(report), nl=False)
    else:
        click.echo(offline_render.diff_text(report, _style()), nl=False)
    ctx.exit(ExitCode.OK if report.diff.equal else ExitCode.CHANGES)


cluster_flags = stacked(
    flag(
        "kubeconfig",
        env=["KUBECONFIG"],
        type=click.Path(dir_okay=False),
        help="Kubeconfig file (default: ~/.kube/config, or the Pod's service account in a "
        "cluster).",
    ),
    flag("context", help="Kubeconfig context to use (default: its current context)."),
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
--target-namespaces."""

policy_flags = stacked(
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
"""--prune/--no-prune, --allow-empty, --max-prune, --recreate: what apply may do."""

drift_flags = stacked(
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
"""--override-manager, --ignore, --ignore-manager: what counts as drift."""

shard_flags = stacked(
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
"""--shard-count, --shard-index: plan, apply and prune only one shard's WebApps."""

log_format_flag = flag(
    "log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    help="text for a person; json: one JSON object per line on stderr, for a log pipeline.",
)

lock_namespace_flag = flag(
    "lock-namespace",
    help="Namespace of the run lock, Lease driftctl-<instance> (default: the Pod's namespace "
    "in a cluster, else default).",
)


class TextLog:
    """A cluster command's log for a person: object lines on stdout, the rest on stderr.

    On a terminal (`terminal`: stderr is one) it also shows how far the run is, on one
    line of stderr that is erased before anything else is printed and when the run ends.
    """

    def __init__(self, style: Style, terminal: TerminalProgress | None = None) -> None:
        self.style = style
        self.terminal = terminal

    @contextlib.contextmanager
    def run(self, command: str) -> Iterator[None]:
        """Errors go up to main(), which prints them (after the progress line is erased)."""
        try:
            yield
        finally:
            self._clear()

    def _clear(self) -> None:
        if self.terminal:
            self.terminal.clear()

    def tick(self, output: str) -> Tick:
        """How far the run is, on the terminal: never with JSON or Markdown output."""
        from driftctl.shell.apply import no_tick

        return self.terminal.tick if self.terminal and output == "text" else no_tick

    def retry(self, line: str) -> None:
        """A retry, as it happens: a person watching the run should know now."""
        self._clear()
        click.echo(f"note: {line}", err=True)

    def warn(self, line: str) -> None:
        self._clear()
        click.echo(f"warning: {line}", err=True)

    def warnings(self, desired_warnings: Sequence[object]) -> None:
        for warning in desired_warnings:
            self.warn(str(warning))

    def progress(self, output: str) -> Progress:
        """Text output as apply goes: a line per changed object and per status written."""
        from driftctl.core.planning.objects import ObjectKey
        from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
        from driftctl.render import plan as plan_render
        from driftctl.shell.apply import Progress

        if output != "text":
            return Progress()

        def echo(line: str) -> None:
            self._clear()
            click.echo(line)

        def outcome(item: ObjectOutcome) -> None:
            if item.outcome is not Outcome.UNCHANGED:
                echo(plan_render.outcome_line(item, self.style))

        def status(key: ObjectKey, written: dict[str, Any]) -> None:
            echo(plan_render.status_line(key, written, self.style))

        return Progress(outcome, status, self.tick(output))

    def planned(self, plan: Plan) -> None:
        """Apply is about to carry out `plan` (the text log says nothing yet)."""

    def plan_done(self, plan: Plan, code: int) -> None:
        """The plan was printed on stdout already."""

    def applied(self, report: ApplyReport, output: str) -> None:
        from driftctl.render import plan as plan_render

        self._clear()
        if output == "text":
            for refusal in report.refusals:
                click.echo(self.style.paint(f"refused: {refusal}", "red"), err=True)
            click.echo(plan_render.outcome_summary(report.outcomes))


class JsonLog:
    """A cluster command's log as JSON lines on stderr (render.log), one write per line.

    Lines come from several threads (retries are reported by the workers sending
    requests), so each is written whole under a lock.
    """

    def __init__(self, context: log_render.LogContext) -> None:
        from driftctl.render import log as log_render

        self.render = log_render
        self.context = context
        self._lock = threading.Lock()
        self._started = time.monotonic()

    def write(self, record: log_render.Record) -> None:
        line = self.render.json_line(record, self.context, datetime.datetime.now(datetime.UTC))
        with self._lock:
            click.echo(line, err=True)

    @property
    def duration(self) -> float:
        return time.monotonic() - self._started

    @contextlib.contextmanager
    def run(self, command: str) -> Iterator[None]:
        """Log what stops the run, then its summary, and exit with its code."""
        try:
            yield
        except DriftctlError as error:
            self._stopped(command, self.render.error_record(error), error.exit_code)
        except (KeyboardInterrupt, click.exceptions.Abort):
            code = ExitCode.INTERRUPTED
            self._stopped(command, self.render.interrupted_record(code), code)

    def _stopped(self, command: str, record: log_render.Record, code: int) -> None:
        self.write(record)
        self.write(self.render.stopped_summary(command, code, self.duration))
        raise click.exceptions.Exit(code)

    def retry(self, line: str) -> None:
        self.write(self.render.retry_record(line))

    def warn(self, line: str) -> None:
        self.write(self.render.warning_record(line))

    def tick(self, output: str) -> Tick:
        """No progress line among JSON log lines."""
        from driftctl.shell.apply import no_tick

        return no_tick

    def warnings(self, desired_warnings: Sequence[object]) -> None:
        for warning in desired_warnings:
            self.warn(str(warning))

    def progress(self, output: str) -> Progress:
        from driftctl.core.planning.objects import ObjectKey
        from driftctl.core.planning.outcomes import ObjectOutcome, Outcome
        from driftctl.shell.apply import Progress

        def outcome(item: ObjectOutcome) -> None:
            if item.outcome is not Outcome.UNCHANGED:
                self.write(self.render.outcome_record(item))

        def status(key: ObjectKey, written: dict[str, Any]) -> None:
            self.write(self.render.status_record(key, written))

        return Progress(outcome, status)

    def planned(self, plan: Plan) -> None:
        """From here on every line carries the revision being applied."""
        self.context = dataclasses.replace(self.context, revision=plan.revision)

    def plan_done(self, plan: Plan, code: int) -> None:
        """Each action but the unchanged, the guards' refusals, then the summary."""
        self.planned(plan)
        for action in self.render.changing_actions(plan):
            self.write(self.render.action_record(action))
        for refusal in plan.refusals:
            self.write(self.render.refusal_record(refusal))
        self.write(self.render.plan_summary(plan, code, self.duration))

    def applied(self, report: ApplyReport, output: str) -> None:
        for refusal in report.refusals:
            self.write(self.render.refusal_record(refusal))
        self.write(self.render.apply_summary(report, self.duration))


Log = TextLog | JsonLog


def _log(
    log_format: str, instance: str, shard: tuple[int, int], repo: str, token_file: Path | None
) -> Log:
    """The log a cluster command writes, as --log-format asks."""
    from driftctl.render import log as log_render
    from driftctl.render.progress import progress_line
    from driftctl.shell.git_auth import secrets_of
    from driftctl.shell.terminal import TerminalProgress

    if log_format == "text":
        terminal = TerminalProgress(sys.stderr, progress_line) if sys.stderr.isatty() else None
        return TextLog(_style(), terminal)
    index, count = shard
    context = log_render.LogContext(
        instance, index, count, secrets=secrets_of(repo, os.environ, token_file)
    )
    return JsonLog(context)


@cli.command()
@repo_flag
@ref_flag
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@shard_flags
@flag("show-unchanged", is_flag=True, help="List unchanged objects too (text output).")
@flag(
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also save the plan to this file, for `driftctl apply --plan FILE`.",
)
@flag(
    "show-foreign",
    is_flag=True,
    help="List the fields of other managers (controllers, webhooks) that Git does not declare; "
    "they are left alone.",
)
@output_flag("text", "json", "markdown")
@log_format_flag
@click.pass_context
def plan(
    ctx: click.Context,
    *,
    repo: str,
    ref: str | None,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    git_token_file: Path | None,
    git_ssh_key_file: Path | None,
    git_known_hosts_file: Path | None,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    target_namespaces: str | None,
    prune: bool,
    allow_empty: bool,
    max_prune: str | None,
    recreate: bool,
    override_manager: tuple[str, ...],
    ignore: tuple[str, ...],
    ignore_manager: tuple[str, ...],
    shard_count: int,
    shard_index: int,
    show_unchanged: bool,
    show_foreign: bool,
    out: Path | None,
    output: str,
    log_format: str,
) -> None:
    """Show what `apply` would change in the cluster, exactly, without changing anything.

    Per object: create, update (with the field changes and who changed them; fields set
    outside Git by the kubectl family are removed), unchanged, prune, cleanup pending,
    replace, skip, or conflict (another owner's object). Takes the same flags as `apply` for
    what it may do (--no-prune, --max-prune, --recreate, --ignore...), so the two say the
    same. Objects that cannot have drifted cost no request; the others are checked with a
    server-side dry-run. Takes no lock. With --shard-count, only this shard's WebApps. With
    --out FILE the plan is also saved (only for a commit: not a dirty working tree), with
    the live uid and resourceVersion of each object, for `apply --plan FILE`. Exit 0 when
    the cluster equals Git, 1 when it differs, 2/3/4 on errors.
    """
    from driftctl.pipeline import cluster as run
    from driftctl.render import plan as plan_render

    log = _log(log_format, instance, (shard_index, shard_count), repo, git_token_file)
    with log.run("plan"):
        auth = GitAuth(git_token_file, git_ssh_key_file, git_known_hosts_file)
        source = Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds, auth)
        scope = namespace_list(target_namespaces)
        cluster = Cluster(
            kubeconfig, context, instance, field_manager, timeout, concurrency, namespaces=scope
        )
        policy = Policy.of(
            prune=prune, allow_empty=allow_empty, max_prune=max_prune, recreate=recreate
        )
        drift = Drift.of(
            override_managers=override_manager,
            ignore=ignore,
            ignore_managers=ignore_manager,
            show_foreign=show_foreign,
        )
        shard = Shard(shard_index, shard_count)
        planned = run.plan(
            source,
            cluster,
            policy,
            drift=drift,
            shard=shard,
            environ=os.environ,
            notice=log.retry,
            out=out,
            tick=log.tick(output),
        )
        log.warnings(planned.desired.warnings)
        if output == "json":
            click.echo(plan_render.plan_json(planned.plan), nl=False)
        elif output == "markdown":
            click.echo(plan_render.plan_markdown(planned.plan), nl=False)
        else:
            text = plan_render.plan_text(planned.plan, _style(), show_unchanged=show_unchanged)
            click.echo(text, nl=False)
        code = ExitCode.CHANGES if planned.plan.differs else ExitCode.OK
        log.plan_done(planned.plan, code)
    ctx.exit(code)


@cli.command()
@repo_flag
@ref_flag
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@shard_flags
@lock_namespace_flag
@flag(
    "lock-timeout",
    type=click.FloatRange(min=0),
    default=0,
    help="Seconds to wait for another run's lock before exiting 6.",
)
@flag(
    "pushgateway",
    metavar="URL",
    help="Push the run's metrics to this Prometheus Pushgateway when it ends "
    "(http://host:9091); a failed push is a warning.",
)
@flag(
    "plan",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Apply exactly this saved plan (`plan --out FILE`); objects changed since are "
    "checked again.",
)
@flag(
    "max-events",
    type=click.IntRange(min=0),
    default=MAX_EVENTS,
    help="Most Kubernetes Events one run records (one per changed WebApp); one summary "
    "Event on the run's Lease counts the rest.",
)
@output_flag("text", "json")
@log_format_flag
@click.pass_context
def apply(
    ctx: click.Context,
    *,
    repo: str,
    ref: str | None,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    git_token_file: Path | None,
    git_ssh_key_file: Path | None,
    git_known_hosts_file: Path | None,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    target_namespaces: str | None,
    prune: bool,
    allow_empty: bool,
    max_prune: str | None,
    recreate: bool,
    override_manager: tuple[str, ...],
    ignore: tuple[str, ...],
    ignore_manager: tuple[str, ...],
    shard_count: int,
    shard_index: int,
    lock_namespace: str | None,
    lock_timeout: float,
    pushgateway: str | None,
    plan: Path | None,
    max_events: int,
    output: str,
    log_format: str,
) -> None:
    """Make the cluster equal to Git: apply, prune through the finalizer, write status.

    Takes the run lock, plans exactly as `plan` does, then carries the plan out with
    server-side apply. Prints one line per changed object and a summary. Exit 0 when every
    object succeeded, 5 when some failed (the others applied), 6 when another run holds the
    lock, 3/4 on errors (3 also for a saved plan made for another instance, source or CRD).
    With --shard-count, only this shard's WebApps, under this shard's own Lease; with
    --pushgateway, the run's metrics are pushed when it ends.

    With --plan FILE: applies that saved plan at its commit with its policy. An object whose
    live uid or resourceVersion moved since is planned again: it proceeds when its action
    and patch are unchanged, and is refused (exit 5) otherwise.
    """
    from driftctl.pipeline import cluster as run
    from driftctl.render import plan as plan_render

    log = _log(log_format, instance, (shard_index, shard_count), repo, git_token_file)
    with log.run("apply"):
        if plan is not None:
            SavedPlanUse(plan, _given(ctx, "ref", *POLICY_FLAGS, *DRIFT_FLAGS))
        auth = GitAuth(git_token_file, git_ssh_key_file, git_known_hosts_file)
        source = Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds, auth)
        scope = namespace_list(target_namespaces)
        cluster = Cluster(
            kubeconfig,
            context,
            instance,
            field_manager,
            timeout,
            concurrency,
            max_events=max_events,
            namespaces=scope,
        )
        policy = Policy.of(
            prune=prune, allow_empty=allow_empty, max_prune=max_prune, recreate=recreate
        )
        drift = Drift.of(
            override_managers=override_manager, ignore=ignore, ignore_managers=ignore_manager
        )
        report = run.apply(
            source,
            cluster,
            policy,
            Lock(lock_namespace, lock_timeout),
            drift=drift,
            shard=Shard(shard_index, shard_count),
            metrics=Metrics(pushgateway),
            environ=os.environ,
            notice=log.retry,
            warn=log.warn,
            progress=log.progress(output),
            planned=log.planned,
            plan_file=plan,
        )
        if output == "json":
            click.echo(plan_render.outcomes_json(report.outcomes), nl=False)
        log.applied(report, output)
    ctx.exit(report.exit_code)


@cli.command()
@flag("base", required=True, help="Branch, tag or commit the pull request merges into.")
@flag(
    "head",
    help="Branch, tag or commit of the pull request (default: the working tree of a local path).",
)
@repo_flag
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@flag(
    "fail-on",
    default="invalid",
    metavar="SET",
    help=f"What makes the exit code non-zero, comma-separated: any of {', '.join(FAIL_ON)} "
    "('' for nothing).",
)
@flag(
    "max-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_BYTES,
    help="Most bytes of the Markdown report (a GitHub comment holds 65,536 characters).",
)
@flag("offline", is_flag=True, help="Never read the cluster, even with credentials.")
@output_flag("text", "json", "markdown")
@click.pass_context
def check(
    ctx: click.Context,
    *,
    base: str,
    head: str | None,
    repo: str,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    git_token_file: Path | None,
    git_ssh_key_file: Path | None,
    git_known_hosts_file: Path | None,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    target_namespaces: str | None,
    prune: bool,
    allow_empty: bool,
    max_prune: str | None,
    recreate: bool,
    override_manager: tuple[str, ...],
    ignore: tuple[str, ...],
    ignore_manager: tuple[str, ...],
    fail_on: str,
    max_bytes: int,
    offline: bool,
    output: str,
) -> None:
    """The pre-merge check: what merging --head into --base does, for a pull-request comment.

    Always, without a cluster: validates the head (its problems are the report's) and shows
    the change: WebApps added, removed and changed, and the Deployments they alter. With
    --kubeconfig (or KUBECONFIG) or --context: what applying the head does to the live
    cluster, split into changes the pull request introduces, drift already there, prunes,
    replacements and blocked objects. Read-only: writes nothing, takes no lock. Exit 0, or
    1 when it finds what --fail-on names (3 for `invalid`); 4 when Git or the cluster
    cannot be read.
    """
    from driftctl.pipeline import check as pre_merge
    from driftctl.render import check as check_render

    auth = GitAuth(git_token_file, git_ssh_key_file, git_known_hosts_file)
    source = Source(repo, None, path, cache_dir, namespace, skip_unknown_kinds, auth)
    scope = namespace_list(target_namespaces)
    cluster = Cluster(
        kubeconfig, context, instance, field_manager, timeout, concurrency, namespaces=scope
    )
    policy = Policy.of(prune=prune, allow_empty=allow_empty, max_prune=max_prune, recreate=recreate)
    settings = Check.of(fail_on=fail_on, max_bytes=max_bytes, offline=offline)
    drift = Drift.of(
        override_managers=override_manager, ignore=ignore, ignore_managers=ignore_manager
    )
    report = pre_merge.check(
        source.at(base),
        source.at(head),
        cluster,
        policy,
        settings,
        drift=drift,
        environ=os.environ,
        notice=TextLog(_style()).retry,
    )
    if output == "json":
        click.echo(check_render.check_json(report), nl=False)
    elif output == "markdown":
        click.echo(check_render.check_markdown(report, settings.max_bytes), nl=False)
    else:
        click.echo(check_render.check_text(report, _style()), nl=False)
    ctx.exit(report.exit_code)


POLICY_FLAGS = ("prune", "allow_empty", "max_prune", "recreate")
DRIFT_FLAGS = ("override_manager", "ignore", "ignore_manager")


def _given(ctx: click.Context, *names: str) -> tuple[str, ...]:
    """The flags among `names` set on the command line or by their variable."""
    defaulted = (None, click.core.ParameterSource.DEFAULT)
    return tuple(
        "--" + name.replace("_", "-")
        for name in names
        if ctx.get_parameter_source(name) not in defaulted
    )


@cli.command()
@repo_flag
@ref_flag
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@lock_namespace_flag
@flag(
    "max-events",
    type=click.IntRange(min=0),
    default=MAX_EVENTS,
    help="Most Kubernetes Events one reconcile records (one per changed WebApp).",
)
@flag(
    "resync",
    type=click.FloatRange(min=1),
    default=300,
    help="Seconds between full plans and applies (fresh LISTs), so that anything a watch "
    "missed converges.",
)
@flag(
    "git-poll",
    type=click.FloatRange(min=0.1),
    default=15,
    help="Seconds between looks at the Git ref; the commit is fetched only when it moved.",
)
@flag(
    "metrics-addr",
    default=":8080",
    metavar="[HOST]:PORT",
    help="Where /healthz, /readyz and /metrics are served (port 0: any free port).",
)
@flag(
    "lease-duration",
    type=click.IntRange(min=3),
    default=30,
    help="Seconds a standby waits for a silent leader. The leader renews every third of "
    "it and stops (exit 6) when no renewal succeeded for two thirds of it.",
)
def watch(
    *,
    repo: str,
    ref: str | None,
    path: str,
    cache_dir: Path | None,
    namespace: str,
    skip_unknown_kinds: bool,
    git_token_file: Path | None,
    git_ssh_key_file: Path | None,
    git_known_hosts_file: Path | None,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    target_namespaces: str | None,
    prune: bool,
    allow_empty: bool,
    max_prune: str | None,
    recreate: bool,
    override_manager: tuple[str, ...],
    ignore: tuple[str, ...],
    ignore_manager: tuple[str, ...],
    lock_namespace: str | None,
    max_events: int,
    resync: float,
    git_poll: float,
    metrics_addr: str,
    lease_duration: int,
) -> None:
    """Keep the cluster equal to Git continuously: the operator form of `apply`.

    One active process per instance: it takes the run lock's Lease (renewed; released on
    SIGTERM) and a second process waits as a standby. It watches this instance's WebApps
    and Deployments and reconciles a WebApp as soon as it or its Deployment changes, with
    the same plan and apply as `apply` (--timeout bounds each reconcile); a failed one is
    tried again after 1 s, doubling up to 5 minutes. It looks at the Git ref every
    --git-poll seconds and runs a full plan and apply when it moved, and every --resync
    seconds. Serves /healthz, /readyz and Prometheus /metrics on --metrics-addr. Runs until
    SIGTERM (exit 0); 3 when Git is invalid at the start, 4 when the cluster cannot be
    used, 6 when it lost the Lease to another process or could not renew it in time.
    """
    import signal

    from driftctl.pipeline import watch as run

    stop = threading.Event()

    def stopping(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    auth = GitAuth(git_token_file, git_ssh_key_file, git_known_hosts_file)
    setup = run.Setup(
        Source(repo, ref, path, cache_dir, namespace, skip_unknown_kinds, auth),
        Cluster(
            kubeconfig,
            context,
            instance,
            field_manager,
            timeout,
            concurrency,
            max_events=max_events,
            namespaces=namespace_list(target_namespaces),
        ),
        Policy.of(prune=prune, allow_empty=allow_empty, max_prune=max_prune, recreate=recreate),
        Lock(lock_namespace),
        Watch.of(
            resync=resync,
            git_poll=git_poll,
            metrics_addr=metrics_addr,
            lease_duration=lease_duration,
        ),
        Drift.of(override_managers=override_manager, ignore=ignore, ignore_managers=ignore_manager),
    )
    log = TextLog(_style())

    def say(line: str) -> None:
        click.echo(line, err=True)

    run.watch(
        setup,
        environ=os.environ,
        notice=log.retry,
        say=say,
        progress=log.progress("text"),
        stop=stop,
    )


@cli.command()
@cluster_flags
@shard_flags
@lock_namespace_flag
def unlock(
    *,
    kubeconfig: str | None,
    context: str | None,
    instance: str,
    field_manager: str,
    timeout: float,
    concurrency: int,
    target_namespaces: str | None,
    shard_count: int,
    shard_index: int,
    lock_namespace: str | None,
) -> None:
    """Break this instance's (or this shard's) run lock on purpose (when a run died holding it)."""
    from driftctl.pipeline import cluster as run
    from driftctl.render import plan as plan_render

    scope = namespace_list(target_namespaces)
    cluster = Cluster(
        kubeconfig, context, instance, field_manager, timeout, concurrency, namespaces=scope
    )
    shard = Shard(shard_index, shard_count)
    unlocked = run.unlock(
        cluster, Lock(lock_namespace), shard=shard, notice=TextLog(_style()).retry
    )
    click.echo(plan_render.unlocked_line(unlocked.lease.display, unlocked.holder))


def report_error(error: DriftctlError) -> None:
    """Print an error the way a person reads it: the message, each problem, the hint."""
    click.echo(f"error: {error.message}", err=True)
    if isinstance(error, InvalidDesiredState):
        for problem in error.problems:
            click.echo(f"  {problem}", err=True)
    if error.hint:
        click.echo(f"hint: {error.hint}", err=True)


def main() -> None:
    """Entry point of the `driftctl` command: run, and map errors to exit codes."""
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Exit as done:
        code = done.exit_code
    except click.ClickException as usage:
        usage.show()
        code = ExitCode.USAGE
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        code = ExitCode.INTERRUPTED
    except DriftctlError as error:
        report_error(error)
        code = error.exit_code
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        code = ExitCode.INTERRUPTED
    sys.exit(int(code or 0))
