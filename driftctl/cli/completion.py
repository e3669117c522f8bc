"""`driftctl completion SHELL`: the shell completion script (click's completion)."""

from __future__ import annotations

import click

from driftctl.cli.command import command

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VARIABLE = "_DRIFTCTL_COMPLETE"


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
