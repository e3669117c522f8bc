"""The batch commands, each one run against the cluster: plan, apply, unlock (pipeline.batch)."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from driftctl.cli.command import Verbosity, command, verbosity
from driftctl.cli.flag_groups import (
    cluster_flags,
    connection_flags,
    drift_flags,
    lock_flags,
    metrics_flags,
    notify_flags,
    policy_flags,
    selection_flags,
    shard_flags,
    source_flags,
    verify_flags,
    wait_flags,
    waiting_lock_flags,
)
from driftctl.cli.flags import F, flag, given, output_flag
from driftctl.cli.logs import Log, TextLog, as_format, log_format_flag, logged, style
from driftctl.settings import (
    MAX_EVENTS,
    Cluster,
    Drift,
    Lock,
    Metrics,
    Notify,
    Policy,
    SavedPlanUse,
    Selection,
    Shard,
    Source,
    Verify,
    Wait,
)

if TYPE_CHECKING:
    from driftctl.core.planning.actions import Plan


@command(
    examples=[
        "# What apply would change, from the main branch's apps/ folder:",
        "$ driftctl plan --repo https://git.example.com/you/webapps.git --ref main --path apps",
        "# From a local clone's last commit, as JSON, saved for apply --plan:",
        "$ driftctl plan --ref HEAD --path apps -o json --out plan.json",
        "# Only two WebApps, and those of one team:",
        "$ driftctl plan --ref main --path apps shop blog",
        "$ driftctl plan --ref main --path apps -l team=payments",
    ]
)
@logged
@selection_flags
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@shard_flags
@verify_flags
@lock_flags
@flag("show-unchanged", is_flag=True, help="List unchanged objects too (text output; as -v).")
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
@output_flag("text", "json", "yaml", "markdown")
@log_format_flag
@click.pass_context
def plan(
    ctx: click.Context,
    *,
    log: Log,
    selection: Selection,
    source: Source,
    cluster: Cluster,
    policy: Policy,
    drift: Drift,
    shard: Shard,
    verify: Verify,
    lock: Lock,
    show_unchanged: bool,
    show_foreign: bool,
    out: Path | None,
    output: str,
) -> None:
    """Show what `apply` would change in the cluster, exactly, without changing anything.

    Per object: create, update (with the field changes and who changed them; fields set
    outside Git by the kubectl family are removed), unchanged, prune, cleanup pending,
    replace, skip, or conflict (another owner's object). Takes the same flags as `apply` for
    what it may do (--no-prune, --max-prune, --recreate, --ignore...), so the two say the
    same. Objects that cannot have drifted cost no request; the others are checked with a
    server-side dry-run. What a control holds (a suspension, a change or drift policy, a
    window, a removal waiting) is planned as `hold`, saying why. Takes no lock, and reads
    its Lease (--lock-namespace): a suspension of the instance is set there. With NAME... or
    -l, only the WebApps named or selected (and their Deployments): nothing else is planned
    or pruned, though the prune guards count the whole instance. With --shard-count, only
    this shard's WebApps. With --out FILE the plan is also saved (only for a commit: not a
    dirty working tree), with the live uid and resourceVersion of each object, for `apply
    --plan FILE`. With --verify, a commit `apply` would refuse is refused the same way (exit
    3), against the last revision verified that the run lock's Lease records (read, not
    written). Exit 0 when the cluster equals Git, 1 when it differs (apply would change it,
    or leave it so, or a control holds something), 5 when apply would fail an object or a
    guard would refuse its prunes, 2/3/4 on errors.
    """
    from driftctl.pipeline import batch
    from driftctl.render import plan as plan_render

    planned = batch.plan(
        source,
        cluster,
        policy,
        drift=dataclasses.replace(drift, show_foreign=show_foreign),
        shard=shard,
        environ=os.environ,
        notice=log.retry,
        out=out,
        tick=log.tick(output),
        warn=log.warn,
        selection=selection,
        verify=verify,
        lock=lock,
    )
    log.warnings(planned.desired.warnings)
    if planned.crd_notice is not None:
        log.warn(planned.crd_notice)
    if output in ("json", "yaml"):
        log.report(as_format(plan_render.plan_json(planned.plan), output))
    elif output == "markdown":
        log.report(plan_render.plan_markdown(planned.plan))
    else:
        level = verbosity()
        log.report(
            plan_render.plan_text(
                planned.plan,
                style(),
                show_unchanged=show_unchanged or level is Verbosity.VERBOSE,
                only_summary=level is Verbosity.QUIET,
            )
        )
    code = planned.plan.exit_code
    log.plan_done(planned.plan, code)
    ctx.exit(code)


def saved_plan_alone(command: F) -> F:
    """`apply --plan FILE` applies the commit and the policy the file records: --ref and the
    policy and drift flags are refused beside it (SavedPlanUse), before any is validated.

    Written under `logged` and above the flag groups, whose flags it reads as given.
    """

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> object:
        if kwargs["plan"] is not None:
            names = ("ref", "selector", *policy_flags.names, *drift_flags.names)
            chosen = given(click.get_current_context(), *names)
            SavedPlanUse(kwargs["plan"], chosen + (("NAME",) if kwargs["names"] else ()))
        return command(*args, **kwargs)

    return cast(F, run)


@command(
    examples=[
        "# Make the cluster equal to the main branch's apps/ folder:",
        "$ driftctl apply --repo https://git.example.com/you/webapps.git --ref main --path apps",
        "# Exactly the plan a reviewer approved (it records its source and commit):",
        "$ driftctl apply --plan plan.json",
        "# Two WebApps only, without asking on a terminal, waiting up to a minute for the lock:",
        "$ driftctl apply --ref main --path apps shop blog --yes --lock-timeout 1m",
    ]
)
@logged
@saved_plan_alone
@selection_flags
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@shard_flags
@verify_flags
@waiting_lock_flags
@metrics_flags
@wait_flags
@notify_flags
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
@flag(
    "yes",
    short="-y",
    is_flag=True,
    help="Do not ask before pruning or replacing, on a terminal (nothing is asked in a pipe, "
    "a Pod or a JSON log).",
)
@flag(
    "allow-dirty",
    is_flag=True,
    help="Apply a working tree with changes not committed under --path (its revision is "
    "recorded as <sha>-dirty); without it, apply applies commits only.",
)
@output_flag("text", "json", "yaml")
@log_format_flag
@click.pass_context
def apply(
    ctx: click.Context,
    *,
    log: Log,
    selection: Selection,
    source: Source,
    cluster: Cluster,
    policy: Policy,
    drift: Drift,
    shard: Shard,
    verify: Verify,
    lock: Lock,
    metrics: Metrics,
    wait: Wait,
    notify: Notify,
    plan: Path | None,
    max_events: int,
    yes: bool,
    allow_dirty: bool,
    output: str,
) -> None:
    """Make the cluster equal to Git: apply, prune through the finalizer, write status.

    Takes the run lock, plans exactly as `plan` does, then carries the plan out with
    server-side apply. Prints one line per changed object and a summary. Exit 0 when every
    object succeeded, 5 when some failed (the others applied), 6 when another run holds the
    lock, 3/4 on errors (3 also for a saved plan made for another instance, source or CRD).
    On a terminal it asks before it prunes or replaces (--yes does not ask; nothing is asked
    in a pipe or a Pod); answered no, it writes nothing and exits 1.
    With NAME... or -l, only the WebApps named or selected: nothing else is written or
    pruned (the prune guards count the whole instance). With --shard-count, only this
    shard's WebApps, under this shard's own Lease; with --pushgateway, the run's metrics are
    pushed when it ends. With receivers (--webhook-url, --slack-webhook-file,
    --alertmanager-url, --github-repo, --gitlab-project), one digest of what is new goes out
    when the run ends; a receiver that fails is a warning.

    With --wait, it then follows the rollouts of the WebApps it changed, writing their
    status as they move, until each is Ready or Stalled (a Pod's reason waiting will not
    fix, or the progress deadline) or --wait-timeout is gone: exit 0 when all rolled out,
    7 when one stalled or did not finish in time.

    With --plan FILE: applies that saved plan at its commit with its policy, from the source
    it records (--repo, --path and --namespace may be left out). An object whose live uid or
    resourceVersion moved since is planned again: it proceeds when its action and patch are
    unchanged, and is refused (exit 5) otherwise; when none of its changes can be made any
    more (it was applied already), the plan is stale (exit 3, nothing applied).

    With --verify head|all: the commit (all: and every commit since the last revision
    verified and applied) must be signed by a key of --trusted-keys or --allowed-signers,
    and must descend from that revision (unless --allow-rewind); otherwise one line names
    the commit, its signer or "unsigned", and the reason, nothing is written, and the run
    exits 3. The revision applied is recorded on the run lock's Lease.
    """
    from driftctl.pipeline import batch
    from driftctl.render import plan as plan_render

    report = batch.apply(
        source,
        dataclasses.replace(cluster, max_events=max_events),
        policy,
        lock,
        drift=drift,
        shard=shard,
        metrics=metrics,
        notify=notify,
        environ=os.environ,
        notice=log.retry,
        warn=log.warn,
        progress=log.progress(output),
        planned=log.planned,
        plan_file=plan,
        wait=wait,
        source_given=bool(given(ctx, "repo", "path", "namespace")),
        allow_dirty=allow_dirty,
        selection=selection,
        confirm=None if yes else asker(log),
        verify=verify,
    )
    if output in ("json", "yaml"):
        log.report(as_format(plan_render.outcomes_json(report.outcomes), output))
    log.applied(report, output)
    ctx.exit(report.exit_code)


def asker(log: Log) -> Callable[[Plan], bool] | None:
    """Who lets apply prune or replace: a person at a terminal (stdin and stdout are one),
    asked by the text log; nobody in a pipe, a Pod or with a JSON log."""
    on_a_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    in_a_pod = "KUBERNETES_SERVICE_HOST" in os.environ
    if not on_a_terminal or in_a_pod or not isinstance(log, TextLog):
        return None
    return log.ask


@command(
    examples=[
        "# Free the default instance's Lease after a run died holding it:",
        "$ driftctl unlock",
        "# Shard 2's Lease of the instance blue:",
        "$ driftctl unlock --instance blue --shard-count 4 --shard-index 2",
    ]
)
@connection_flags
@shard_flags
@lock_flags
def unlock(*, cluster: Cluster, shard: Shard, lock: Lock) -> None:
    """Break this instance's (or this shard's) run lock on purpose, when a run died holding it.

    Frees the Lease driftctl-<instance> in --lock-namespace whoever holds it, and says whose
    it was. Use it only when you know the holder is gone: a live holder stops writing when
    its next renewal is refused.
    """
    from driftctl.pipeline import batch
    from driftctl.render import plan as plan_render

    unlocked = batch.unlock(cluster, lock, shard=shard, notice=TextLog(style()).retry)
    click.echo(plan_render.unlocked_line(unlocked.lease.display, unlocked.holder))
