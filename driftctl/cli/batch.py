"""The batch commands, each one run against the cluster: plan, apply, unlock (pipeline.batch)."""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
from typing import Any, cast

import click

from driftctl.cli.flag_groups import (
    cluster_flags,
    drift_flags,
    lock_flags,
    metrics_flags,
    notify_flags,
    policy_flags,
    shard_flags,
    source_flags,
    verify_flags,
    waiting_lock_flags,
)
from driftctl.cli.flags import F, flag, given, output_flag
from driftctl.cli.logs import Log, TextLog, log_format_flag, logged, style
from driftctl.errors import ExitCode
from driftctl.settings import (
    MAX_EVENTS,
    Cluster,
    Drift,
    Lock,
    Metrics,
    Notify,
    Policy,
    SavedPlanUse,
    Shard,
    Source,
    Verify,
)


@click.command()
@logged
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@shard_flags
@verify_flags
@lock_flags
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
    log: Log,
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
    server-side dry-run. Takes no lock. With --shard-count, only this shard's WebApps. With
    --out FILE the plan is also saved (only for a commit: not a dirty working tree), with
    the live uid and resourceVersion of each object, for `apply --plan FILE`. With --verify,
    a commit `apply` would refuse is refused the same way (exit 3), against the last
    revision verified that the run lock's Lease records (read, not written). Exit 0 when
    the cluster equals Git, 1 when it differs, 2/3/4 on errors.
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
        verify=verify,
        lock=lock,
    )
    log.warnings(planned.desired.warnings)
    if planned.crd_notice is not None:
        log.warn(planned.crd_notice)
    if output == "json":
        click.echo(plan_render.plan_json(planned.plan), nl=False)
    elif output == "markdown":
        click.echo(plan_render.plan_markdown(planned.plan), nl=False)
    else:
        text = plan_render.plan_text(planned.plan, style(), show_unchanged=show_unchanged)
        click.echo(text, nl=False)
    code = ExitCode.CHANGES if planned.plan.differs else ExitCode.OK
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
            names = ("ref", *policy_flags.names, *drift_flags.names)
            SavedPlanUse(kwargs["plan"], given(click.get_current_context(), *names))
        return command(*args, **kwargs)

    return cast(F, run)


@click.command()
@logged
@saved_plan_alone
@source_flags
@cluster_flags
@policy_flags
@drift_flags
@shard_flags
@verify_flags
@waiting_lock_flags
@metrics_flags
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
@output_flag("text", "json")
@log_format_flag
@click.pass_context
def apply(
    ctx: click.Context,
    *,
    log: Log,
    source: Source,
    cluster: Cluster,
    policy: Policy,
    drift: Drift,
    shard: Shard,
    verify: Verify,
    lock: Lock,
    metrics: Metrics,
    notify: Notify,
    plan: Path | None,
    max_events: int,
    output: str,
) -> None:
    """Make the cluster equal to Git: apply, prune through the finalizer, write status.

    Takes the run lock, plans exactly as `plan` does, then carries the plan out with
    server-side apply. Prints one line per changed object and a summary. Exit 0 when every
    object succeeded, 5 when some failed (the others applied), 6 when another run holds the
    lock, 3/4 on errors (3 also for a saved plan made for another instance, source or CRD).
    With --shard-count, only this shard's WebApps, under this shard's own Lease; with
    --pushgateway, the run's metrics are pushed when it ends. With receivers (--webhook-url,
    --slack-webhook-file, --alertmanager-url, --github-repo, --gitlab-project), one digest
    of what is new goes out when the run ends; a receiver that fails is a warning.

    With --plan FILE: applies that saved plan at its commit with its policy. An object whose
    live uid or resourceVersion moved since is planned again: it proceeds when its action
    and patch are unchanged, and is refused (exit 5) otherwise.

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
        verify=verify,
    )
    if output == "json":
        click.echo(plan_render.outcomes_json(report.outcomes), nl=False)
    log.applied(report, output)
    ctx.exit(report.exit_code)


@click.command()
@cluster_flags
@shard_flags
@lock_flags
def unlock(*, cluster: Cluster, shard: Shard, lock: Lock) -> None:
    """Break this instance's (or this shard's) run lock on purpose (when a run died holding it)."""
    from driftctl.pipeline import batch
    from driftctl.render import plan as plan_render

    unlocked = batch.unlock(cluster, lock, shard=shard, notice=TextLog(style()).retry)
    click.echo(plan_render.unlocked_line(unlocked.lease.display, unlocked.holder))
