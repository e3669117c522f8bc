"""`driftctl plan`: what apply would change, exactly, with no write (pipeline.plan)."""

from __future__ import annotations

import os

import click

from driftctl.cli.command import command
from driftctl.cli.global_flags import Verbosity, verbosity
from driftctl.cli.logs import Log, as_format, logged, style
from driftctl.settings import PlanRequest


@command(
    PlanRequest,
    outputs=("text", "json", "yaml", "markdown"),
    logged=logged,
    examples=[
        "# What apply would change, from the main branch's apps/ folder:",
        "$ driftctl plan --repo https://git.example.com/you/webapps.git --ref main --path apps",
        "# From a local clone's last commit, as JSON, saved for apply --plan:",
        "$ driftctl plan --ref HEAD --path apps -o json --out plan.json",
        "# Only two WebApps, and those of one team:",
        "$ driftctl plan --ref main --path apps shop blog",
        "$ driftctl plan --ref main --path apps -l team=payments",
    ],
)
@click.pass_context
def plan(ctx: click.Context, *, request: PlanRequest, output: str, log: Log) -> None:
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
    from driftctl.pipeline import plan as planning
    from driftctl.pipeline.listener import Listener
    from driftctl.render import plan as plan_render
    from driftctl.shell.apply import Progress

    hears = Listener(notice=log.retry, warn=log.warn, progress=Progress(tick=log.tick(output)))
    planned = planning.plan(request, hears, os.environ)
    log.warnings(planned.desired.warnings)
    if planned.crd_notice is not None:
        log.warn(planned.crd_notice)
    if output in ("json", "yaml"):
        log.report(as_format(plan_render.plan_json(planned.plan), output))
    elif output == "markdown":
        log.report(plan_render.plan_markdown(planned.plan))
    else:
        level = verbosity()
        show_unchanged = request.listing.show_unchanged or level is Verbosity.VERBOSE
        text = plan_render.plan_text(
            planned.plan,
            style(),
            show_unchanged=show_unchanged,
            only_summary=level is Verbosity.QUIET,
        )
        log.report(text)
    code = planned.plan.exit_code
    log.plan_done(planned.plan, code, output)
    ctx.exit(code)
