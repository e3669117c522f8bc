"""The pre-merge check: check (pipeline.check)."""

from __future__ import annotations

import os

import click

from driftctl.cli.flag_groups import (
    check_flags,
    cluster_flags,
    drift_flags,
    policy_flags,
    source_flags_without_ref,
    verify_flags_without_rewind,
)
from driftctl.cli.flags import flag, output_flag
from driftctl.cli.logs import TextLog, style
from driftctl.settings import Check, Cluster, Drift, Policy, Source, Verify, check_trust_flags


@click.command()
@flag("base", required=True, help="Branch, tag or commit the pull request merges into.")
@flag(
    "head",
    help="Branch, tag or commit of the pull request (default: the working tree of a local path).",
)
@source_flags_without_ref
@cluster_flags
@policy_flags
@drift_flags
@verify_flags_without_rewind
@check_flags
@output_flag("text", "json", "markdown")
@click.pass_context
def check(
    ctx: click.Context,
    *,
    base: str,
    head: str | None,
    source: Source,
    cluster: Cluster,
    policy: Policy,
    drift: Drift,
    verify: Verify,
    settings: Check,
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

    With --verify all: every commit of the pull request (base..head) with its signer or
    "unsigned", and whether its key is trusted (--trusted-keys, --allowed-signers); with
    --verify head, the head commit alone. --fail-on unsigned and --fail-on untrusted make
    such commits fail it (exit 1).
    """
    from driftctl.pipeline import check as pre_merge
    from driftctl.render import check as check_render

    check_trust_flags(settings, verify)
    report = pre_merge.check(
        source.at(base),
        source.at(head),
        cluster,
        policy,
        settings,
        drift=drift,
        verify=verify,
        environ=os.environ,
        notice=TextLog(style()).retry,
    )
    if output == "json":
        click.echo(check_render.check_json(report), nl=False)
    elif output == "markdown":
        click.echo(check_render.check_markdown(report, settings.max_bytes), nl=False)
    else:
        click.echo(check_render.check_text(report, style()), nl=False)
    ctx.exit(report.exit_code)
