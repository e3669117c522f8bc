"""`driftctl doctor`: what stops the run these settings configure, one line per check
(pipeline.doctor); or its stuck WebApps released (--release-finalizers)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

import click

from driftctl.cli.command import command
from driftctl.cli.logs import TextLog, as_format, style
from driftctl.errors import UsageError
from driftctl.settings import DoctorRequest


@command(
    DoctorRequest,
    outputs=("text", "json", "yaml"),
    examples=[
        "# Everything a run of the default instance needs, with the CronJob's settings:",
        "$ driftctl doctor --repo https://git.example.com/you/webapps.git --ref main --path apps",
        "# Before `driftctl install`: the cluster, and what the install needs of you:",
        "$ driftctl doctor --pre",
        "# The permissions of another ServiceAccount, and a test message to the webhook:",
        "$ driftctl doctor --config driftctl.yaml --as-serviceaccount ci:deployer --send-test",
        "# Release the instance's WebApps stuck in deletion, without asking:",
        "$ driftctl doctor --release-finalizers --yes",
    ],
)
@click.pass_context
def doctor(ctx: click.Context, *, request: DoctorRequest, output: str) -> None:
    """Check what stops the run these settings configure: one line per check, with the fix.

    Takes the same settings as a run (flags, variables or --config), and checks, each on a
    line `ok`, `warn` or `fail` (a hint under each warning or failure names the fix, a
    command to run): the cluster reached and its version; the instance's CronJob or
    operator and its last run; the WebApp CRD installed, established, its schema against
    this driftctl's (`crd --diff`, summed up); every permission the run uses, asked with a
    SubjectAccessReview for the ServiceAccount it runs as (--as-serviceaccount; default the
    installed one), or a SelfSubjectAccessReview for you (--as-caller, and inside a Pod),
    each one missing named with the RBAC rule that grants it; the run lock's namespace and
    Lease (free, held, or held by a run that is gone); WebApps stuck in deletion
    (driftctl's finalizer, deleted over --stuck-after ago) and why when it can tell; Git
    read as the run reads it (credentials, ref, validation); the keys --verify trusts; the
    receivers' secret files (a test message only with --send-test). --pre checks only what
    needs no installation: the cluster, and what `driftctl install` needs of you. Writes
    nothing. With --release-finalizers, instead: removes driftctl's finalizer from the
    instance's stuck WebApps it can prove it applied (its label, its managed-by label, its
    own server-side apply), one line each, asking first on a terminal (--yes elsewhere);
    another instance's, or one it cannot prove, is left. Exit 0 when every check passed, 1
    with warnings only, 4 when a check failed; 2 on a bad flag.
    """
    from driftctl.core.doctor.findings import exit_code
    from driftctl.pipeline import doctor as doctoring
    from driftctl.render import doctor as render

    notice = TextLog(style()).retry
    if request.doctor.release_finalizers:
        findings = doctoring.release(request, notice, _confirm(request.run.yes))
    else:
        findings = doctoring.doctor(request, os.environ, notice)
    if output == "text":
        click.echo(render.doctor_text(findings, style()), nl=False)
    else:
        click.echo(as_format(render.doctor_json(findings), output), nl=False)
    ctx.exit(int(exit_code(findings)))


def _confirm(yes: bool) -> Callable[[Sequence[str]], bool] | None:
    """What asks before a release: nobody with --yes; a person on a terminal; elsewhere
    --yes is needed (UsageError, nothing read)."""
    if yes:
        return None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "--release-finalizers asks before it releases, and this is no terminal",
            hint="pass --yes to release without asking",
        )
    return _asked


def _asked(names: Sequence[str]) -> bool:
    click.echo("\n".join(f"  {name}" for name in names), err=True)
    count = len(names)
    them = "this WebApp" if count == 1 else f"these {count} WebApps"
    question = f"Release driftctl's finalizer from {them}?"
    return click.confirm(question, default=False, err=True)
