"""`driftctl show FILE`: a saved plan, as plan printed it (pipeline.everyday)."""

from __future__ import annotations

from pathlib import Path

import click

from driftctl.cli.command import command
from driftctl.cli.logs import as_format, style
from driftctl.settings import ShowRequest


@command(
    ShowRequest,
    outputs=("text", "json", "yaml", "markdown"),
    examples=[
        "# What a saved plan holds, before it is applied:",
        "$ driftctl show plan.json",
        "# As plan -o json printed it when it was made:",
        "$ driftctl show plan.json -o json",
    ],
)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def show(*, file: Path, request: ShowRequest, output: str) -> None:
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
        shown = request.listing.show_unchanged
        click.echo(
            header + plan_render.plan_text(saved.plan, style(), show_unchanged=shown), nl=False
        )
