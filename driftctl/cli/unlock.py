"""`driftctl unlock`: break a run lock on purpose, when a run died holding it (pipeline.apply)."""

from __future__ import annotations

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, style
from driftctl.settings.requests import UnlockRequest


@command(
    UnlockRequest,
    examples=[
        "# Free the default instance's Lease after a run died holding it:",
        "$ driftctl unlock",
        "# Shard 2's Lease of the instance blue:",
        "$ driftctl unlock --instance blue --shard-count 4 --shard-index 2",
    ],
)
def unlock(*, request: UnlockRequest) -> None:
    """Break this instance's (or this shard's) run lock on purpose, when a run died holding it.

    Frees the Lease driftctl-<instance> in --lock-namespace whoever holds it, and says whose
    it was. Use it only when you know the holder is gone: a live holder stops writing when
    its next renewal is refused.
    """
    from driftctl.pipeline import apply as applying
    from driftctl.render import plan as plan_render

    unlocked = applying.unlock(request, notice=TextLog(style()).retry)
    click.echo(plan_render.unlocked_line(unlocked.lease.display, unlocked.holder))
