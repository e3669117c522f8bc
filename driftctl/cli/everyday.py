"""The everyday commands: version, completion, status, show (pipeline.everyday)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from driftctl.cli.command import command
from driftctl.cli.flag_groups import drift_flags, lock_flags, reading_flags, source_flags
from driftctl.cli.flags import flag, output_flag
from driftctl.cli.logs import TextLog, as_format, style
from driftctl.settings import Cluster, Drift, Lock, Source

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VARIABLE = "_DRIFTCTL_COMPLETE"


@command(
    examples=[
        "# This driftctl, the API server of the current context, and its WebApp CRD:",
        "$ driftctl version",
        "# This driftctl only, as JSON:",
        "$ driftctl version --client -o json",
    ]
)
@flag("client", is_flag=True, help="Only this driftctl's version: no cluster is read.")
@reading_flags
@output_flag("text", "json", "yaml")
def version(*, client: bool, cluster: Cluster, output: str) -> None:
    """Print this driftctl's version and, from the cluster, the API server's and the CRD's.

    The CRD line says whether the cluster's WebApp CRD has the schema this driftctl
    generates (`driftctl crd`); when it has another, install this driftctl's. With
    --client, no cluster is read. Exit 0; 4 when the cluster cannot be read (as text, the
    client's line is printed first all the same).
    """
    from driftctl.pipeline import everyday
    from driftctl.render import overview

    here = everyday.client_version()
    if output == "text":  # as kubectl's: the client's line even when the cluster fails
        document = overview.version_document(*here, None, None)
        click.echo(overview.client_version_text(document), nl=False)
    found = everyday.cluster_versions(None if client else cluster, TextLog(style()).retry)
    document = overview.version_document(*here, *found)
    if output == "text":
        click.echo(overview.cluster_version_text(document), nl=False)
    else:
        click.echo(as_format(overview.version_json(document), output), nl=False)


@command(
    examples=[
        "# Bash, for this shell, then for every new one:",
        "$ source <(driftctl completion bash)",
        "$ driftctl completion bash > ~/.local/share/bash-completion/completions/driftctl",
        "# Zsh and fish:",
        '$ driftctl completion zsh > "${fpath[1]}/_driftctl"',
        "$ driftctl completion fish > ~/.config/fish/completions/driftctl.fish",
    ]
)
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Commands, flags and their choices complete on TAB once the script is loaded (click's
    completion: the script calls driftctl with _DRIFTCTL_COMPLETE set).
    """
    from click.shell_completion import get_completion_class

    root = ctx.find_root().command
    kind = get_completion_class(shell)
    if kind is None:  # pragma: no cover - click ships all three
        raise click.UsageError(f"no completion for {shell}")
    click.echo(kind(root, {}, "driftctl", COMPLETE_VARIABLE).source())


@command(
    examples=[
        "# The instance's WebApps against the main branch's apps/ folder:",
        "$ driftctl status --ref main --path apps",
        "# Another instance, as JSON:",
        "$ driftctl status --ref main --path apps --instance blue -o json",
    ]
)
@source_flags
@reading_flags
@drift_flags
@lock_flags
@output_flag("text", "json", "yaml")
def status(*, source: Source, cluster: Cluster, drift: Drift, lock: Lock, output: str) -> None:
    """Show the instance's WebApps: in sync with Git or not, ready, revision; and its lock.

    One row per WebApp Git declares or the instance has: `in sync`, `drifted` (plan says
    how), `held` (it differs, and a control holds all of it: a suspension, a removal
    waiting for its approval or its grace; said under the table), `missing` (declared,
    absent; also when another owner's WebApp holds the name: plan reads it and says
    `conflict`), `not in Git` (pruned by the next apply, unless something keeps it),
    `conflict` (its Deployment carries this instance's label but its WebApp does not
    control it) or `deleting`; whether it is ready, its available replicas of the desired,
    and the Git revision it was last applied at. Then who holds the run lock, and when the
    last run took it. Reads only the instance's two LISTs and its Lease, the cheapest read
    of a plan: it sends no dry-run, so `drifted` is what plan's local check cannot clear
    (plan and its dry-runs say exactly what differs). Writes nothing. Exit 0; 2/3/4 on
    errors.
    """
    from driftctl.pipeline import everyday
    from driftctl.render import overview

    found, held = everyday.status(
        source, cluster, lock, drift=drift, environ=os.environ, notice=TextLog(style()).retry
    )
    if output == "text":
        click.echo(overview.status_text(found, held, style()), nl=False)
    else:
        click.echo(as_format(overview.status_json(found, held), output), nl=False)


@command(
    examples=[
        "# What a saved plan holds, before it is applied:",
        "$ driftctl show plan.json",
        "# As plan -o json printed it when it was made:",
        "$ driftctl show plan.json -o json",
    ]
)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@flag("show-unchanged", is_flag=True, help="List unchanged objects too (text output).")
@output_flag("text", "json", "yaml", "markdown")
def show(*, file: Path, show_unchanged: bool, output: str) -> None:
    """Show a saved plan (`plan --out FILE`): what it was made for and what it does.

    Reads the file as `apply --plan` does and refuses it the same way when it is not a
    saved plan (exit 3). Text says which instance, source, commit and policy the plan was
    made for, then its actions as `plan` printed them; JSON is what `plan -o json` printed.
    No cluster is read. Exit 0, 3 for a file that is not a saved plan.
    """
    from driftctl.pipeline import everyday
    from driftctl.render import plan as plan_render

    saved = everyday.saved(file)
    if output in ("json", "yaml"):
        click.echo(as_format(plan_render.plan_json(saved.plan), output), nl=False)
    elif output == "markdown":
        click.echo(plan_render.plan_markdown(saved.plan), nl=False)
    else:
        header = plan_render.saved_plan_header(saved, str(file))
        text = plan_render.plan_text(saved.plan, style(), show_unchanged=show_unchanged)
        click.echo(header + text, nl=False)
