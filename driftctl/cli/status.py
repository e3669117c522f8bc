"""`driftctl status`: the instance's WebApps against Git, and its lock (pipeline.everyday)."""

from __future__ import annotations

import os

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, as_format, style
from driftctl.settings import StatusRequest


@command(
    StatusRequest,
    outputs=("text", "json", "yaml"),
    examples=[
        "# The instance's WebApps against the main branch's apps/ folder:",
        "$ driftctl status --ref main --path apps",
        "# Another instance, as JSON:",
        "$ driftctl status --ref main --path apps --instance blue -o json",
    ],
)
def status(*, request: StatusRequest, output: str) -> None:
    """Show the instance's WebApps: in sync with Git or not, ready, revision; and its lock.

    One row per WebApp Git declares or the instance has: `in sync`, `drifted` (plan says
    how), `held` (it differs, and a control holds all of it: a suspension, a removal
    waiting for its approval or its grace; said under the table), `missing` (declared,
    absent; also when another owner's WebApp holds the name: plan reads it and says
    `conflict`), `not in Git` (pruned by the next apply, unless something keeps it),
    `conflict` (its Deployment carries this instance's label but its WebApp does not
    control it) or `deleting`; whether it is ready, its available replicas of the desired,
    the Git revision it was last applied at, and its last change the instance's history
    records (`driftctl history NAME` lists them all). Then who holds the run lock, and when
    the last run took it. Reads only the instance's two LISTs, its Lease and its history's
    ConfigMaps, the cheapest read of a plan: it sends no dry-run, so `drifted` is what
    plan's local check cannot clear (plan and its dry-runs say exactly what differs).
    Writes nothing. Exit 0; 2/3/4 on errors.
    """
    from driftctl.pipeline import everyday
    from driftctl.render import overview

    log = TextLog(style())
    found = everyday.status(request, environ=os.environ, notice=log.retry)
    if found.unread:
        log.warn(f"history: {found.unread}; no last change is shown")
    changes = overview.Changes(found.changes, found.now)
    if output == "text":
        click.echo(overview.status_text(found.status, found.lock, style(), changes), nl=False)
    else:
        click.echo(
            as_format(overview.status_json(found.status, found.lock, changes), output), nl=False
        )
