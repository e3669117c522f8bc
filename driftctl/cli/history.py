"""`driftctl history`: what the instance's runs applied, newest first (pipeline.history)."""

from __future__ import annotations

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, as_format, style
from driftctl.settings import HistoryRequest


@command(
    HistoryRequest,
    outputs=("text", "json", "yaml"),
    examples=[
        "# The runs that wrote something, newest first:",
        "$ driftctl history",
        "# Every change of shop in the last day, with its commit and fields:",
        "$ driftctl history shop --since 1d",
        "# The changes of one team's WebApps, as JSON:",
        "$ driftctl history -l team=payments -o json",
    ],
)
def history(*, request: HistoryRequest, output: str) -> None:
    """Show what the instance's runs applied, newest first: when, which run, which commit.

    Without NAME, one row per run that wrote something (apply, or a watch reconcile): its
    time, its run (the host: a CronJob's Pod), the revision it applied and how many WebApps
    it created, configured, deleted or failed. With NAME... or -l, one row per change of
    those WebApps: its outcome, its cause (`git`: a commit; `drift`: a field changed in the
    cluster, put back; `cleanup`: a deletion asked for in the cluster), the revision and
    the fields it changed; a pruned WebApp's changes stay after it is gone. Then the `git
    revert` that undoes the newest change from Git: rollback is Git's. Each run that writes
    something records itself in ConfigMaps beside the run lock (--lock-namespace), a ring of
    bounded size per instance, the oldest dropped first; a run that writes nothing records
    nothing. Reads only those ConfigMaps. Exit 0; 2/4 on errors.
    """
    from driftctl.pipeline.history import history as read_history
    from driftctl.render import history as render

    runs, entries = read_history(request, TextLog(style()).retry)
    if output != "text":
        click.echo(as_format(render.history_json(runs, entries), output), nl=False)
    elif entries is None:
        click.echo(render.runs_text(runs), nl=False)
    else:
        click.echo(render.entries_text(entries, str(request.selection)), nl=False)
