"""`driftctl apply`: make the cluster equal to Git (pipeline.apply)."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from driftctl.cli.command import command
from driftctl.cli.logs import Log, TextLog, as_format, logged
from driftctl.cli.options import given
from driftctl.settings import ApplyRequest, Drift, Policy
from driftctl.settings.declare import declarations

if TYPE_CHECKING:
    from driftctl.core.planning.actions import Plan


@command(
    ApplyRequest,
    outputs=("text", "json", "yaml"),
    logged=logged,
    examples=[
        "# Make the cluster equal to the main branch's apps/ folder:",
        "$ driftctl apply --repo https://git.example.com/you/webapps.git --ref main --path apps",
        "# Exactly the plan a reviewer approved (it records its source and commit):",
        "$ driftctl apply --plan plan.json",
        "# Two WebApps only, without asking on a terminal, waiting up to a minute for the lock:",
        "$ driftctl apply --ref main --path apps shop blog --yes --lock-timeout 1m",
    ],
)
@click.pass_context
def apply(ctx: click.Context, *, request: ApplyRequest, output: str, log: Log) -> None:
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
    from driftctl.pipeline import apply as applying
    from driftctl.pipeline.listener import Listener
    from driftctl.render import plan as plan_render

    request.saved.refuse_beside(_recorded_given(ctx, bool(request.selection.names)))
    request = dataclasses.replace(
        request, source_given=bool(given(ctx, "repo", "path", "namespace"))
    )
    hears = Listener(
        notice=log.retry,
        warn=log.warn,
        progress=log.progress(output),
        planned=log.planned,
        confirm=None if request.run.yes else asker(log),
    )
    report = applying.apply(request, hears, os.environ)
    if output in ("json", "yaml"):
        log.report(as_format(plan_render.outcomes_json(report.outcomes, report.refusals), output))
    log.applied(report, output)
    ctx.exit(report.exit_code)


def _recorded_given(ctx: click.Context, named: bool) -> tuple[str, ...]:
    """What a saved plan records that was given beside --plan: --ref, -l or NAME, and every
    setting of the policy and of drift (a --config file, which serves every command, is
    not "given")."""
    recorded = [each.parameter for group in (Policy, Drift) for each in declarations(group)]
    chosen = given(ctx, "ref", "selector", *recorded)
    return chosen + (("NAME",) if named else ())


def asker(log: Log) -> Callable[[Plan], bool] | None:
    """Who lets apply prune or replace: a person at a terminal (stdin and stdout are one),
    asked by the text log; nobody in a pipe, a Pod or with a JSON log."""
    on_a_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    in_a_pod = "KUBERNETES_SERVICE_HOST" in os.environ
    if not on_a_terminal or in_a_pod or not isinstance(log, TextLog):
        return None
    return log.ask
