"""`driftctl check`: the pre-merge check (pipeline.check)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NoReturn

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, as_format, style
from driftctl.settings import CheckRequest


@command(
    CheckRequest,
    outputs=("text", "json", "yaml", "markdown"),
    examples=[
        "# In CI: a Markdown comment for the pull request, failing on prunes and replaces:",
        "$ driftctl check --base origin/main --head HEAD --path apps -o markdown \\",
        "    --fail-on invalid,prune,replace",
        "# With a cluster: what merging does to it, apart from drift already there:",
        "$ driftctl check --base main --head feature --path apps --context prod",
        "# Across clusters, one --target each (repeated):",
        "$ driftctl check --base main --target name=prod,context=prod,path=overlays/prod",
    ],
)
@click.pass_context
def check(ctx: click.Context, *, request: CheckRequest, output: str) -> None:
    """The pre-merge check: what merging --head into --base does, for a pull-request comment.

    Always, without a cluster: validates the head (its problems are the report's) and shows
    the change: WebApps added, removed and changed, and the Deployments they alter. With
    --kubeconfig (or KUBECONFIG) or --context: what applying the head does to the live
    cluster, split into changes the pull request introduces, drift already there, prunes,
    replacements and blocked objects. Read-only: writes nothing, takes no lock. Exit 0, or
    1 when it finds what --fail-on names (3 for `invalid`); 4 when Git or the cluster
    cannot be read.

    With --verify all: every commit of the pull request (base..head) with its signer or
    "unsigned", and whether its key is trusted (--trusted-keys, --allowed-signers); with
    --verify head, the head commit alone. --fail-on unsigned and --fail-on untrusted make
    such commits fail it (exit 1).

    With --target (repeated, or a list under `target:` in --config): one report across
    clusters, each target checked with its own cluster, folder (overlay) and instance: a
    summary table on top (creates, updates, prunes, held, drift per target), then each
    target's part, with the rollouts merging starts there. A target whose cluster cannot
    be read is a line of the report, not a failed check, unless --fail-on unreachable
    (exit 4). The Markdown shares --max-bytes fairly among the targets.
    """
    from driftctl.pipeline import check as pre_merge
    from driftctl.render import check as check_render

    if request.check.targets:
        _across(ctx, request, output)
    report = pre_merge.check(request, environ=os.environ, notice=TextLog(style()).retry)
    _echo(
        output,
        lambda: check_render.check_json(report),
        lambda: check_render.check_markdown(report, request.check.max_bytes),
        lambda: check_render.check_text(report, style()),
    )
    ctx.exit(report.exit_code)


def _across(ctx: click.Context, request: CheckRequest, output: str) -> NoReturn:
    """`check --target ...`: the report across targets, in the format asked for."""
    from driftctl.pipeline import check as pre_merge
    from driftctl.render import check as check_render

    report = pre_merge.across_targets(request, environ=os.environ, notice=TextLog(style()).retry)
    _echo(
        output,
        lambda: check_render.targets_json(report),
        lambda: check_render.targets_markdown(report, request.check.max_bytes),
        lambda: check_render.targets_text(report, style()),
    )
    ctx.exit(report.exit_code)


def _echo(
    output: str,
    as_json: Callable[[], str],
    as_markdown: Callable[[], str],
    as_text: Callable[[], str],
) -> None:
    """The report in the format asked for: its JSON (or the same as YAML), Markdown, or text."""
    if output in ("json", "yaml"):
        click.echo(as_format(as_json(), output), nl=False)
    elif output == "markdown":
        click.echo(as_markdown(), nl=False)
    else:
        click.echo(as_text(), nl=False)
