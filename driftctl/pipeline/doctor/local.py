"""`doctor`'s checks off the cluster: the Git source read as a run reads it, the keys
--verify trusts, the receivers' secret files; and, asked (`--send-test`), a test message
to each receiver that takes one.

Git is read through the run's own loading (pipeline.offline): the same fetch, the same
credentials, the same ref, the same validation. Keys go through gpg as a run imports them
(shell.gpg); an allowed-signers file is read and judged (core.doctor.local). Decides
nothing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from driftctl.core.doctor import local as judge
from driftctl.core.doctor.findings import Finding, fail, ok
from driftctl.core.notify.facts import RUN, Category, Item
from driftctl.core.notify.outbox import Heading
from driftctl.core.source.signatures import keyring
from driftctl.errors import DriftctlError, InvalidDesiredState
from driftctl.pipeline.offline import load_desired
from driftctl.pipeline.receivers import Occasion, Run, receivers_of
from driftctl.settings import Notify, Source, Verify
from driftctl.shell.gpg import Keyring
from driftctl.shell.notify_http import Failed, read_secret

TESTED = ("webhook", "slack")  # the digest receivers: the others are told of commits, conditions


def git(source: Source, environ: Mapping[str, str]) -> Finding:
    """The desired state, read and validated as a run reads it."""
    try:
        desired = load_desired(source, environ)
    except InvalidDesiredState as invalid:
        problems = "; ".join(str(each) for each in invalid.problems[:3])
        more = f" (and {len(invalid.problems) - 3} more)" if len(invalid.problems) > 3 else ""
        return fail(
            "git", f"{invalid.message}: {problems}{more}", "driftctl validate shows them all"
        )
    except DriftctlError as failed:
        return fail("git", failed.message, failed.hint or "check --repo, --ref and the credentials")
    revision = desired.revision
    at = f" at {source.ref}" if source.ref else ""
    count = len(desired.webapps)
    return ok(
        "git",
        f"{revision.source}{at}: {revision.label[:12]}, {count} WebApp{'s' if count != 1 else ''}",
    )


def keys(verify: Verify, environ: Mapping[str, str]) -> list[Finding]:
    """The keys --verify trusts, each file read."""
    if not verify.enabled:
        return judge.keys(verify, None, None)
    pgp: judge.KeysRead | None = None
    ssh: judge.KeysRead | None = None
    if verify.trusted_keys is not None:
        pgp = _openpgp(verify.trusted_keys, environ)
    if verify.allowed_signers is not None:
        ssh = _allowed_signers(verify.allowed_signers)
    return judge.keys(verify, pgp, ssh)


def _openpgp(folder: Path, environ: Mapping[str, str]) -> judge.KeysRead:
    try:
        with Keyring(folder, environ) as ring:
            return len(keyring(ring.listing))
    except DriftctlError as failed:
        return failed.message.removeprefix(f"{folder} (--trusted-keys) ")


def _allowed_signers(path: Path) -> judge.KeysRead:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as failed:
        return f"cannot be read ({getattr(failed, 'strerror', None) or failed})"
    count, problems = judge.allowed_signer_problems(text)
    if problems:
        return "; ".join(problems[:3])
    return count


def receivers(notify: Notify) -> list[Finding]:
    """Each receiver configured, its secret file read (nothing is sent)."""
    unreadable = {}
    for name, path in judge.secret_files(notify).items():
        read = read_secret(path)
        if isinstance(read, Failed):
            unreadable[name] = read.reason
    return judge.receivers(notify, unreadable)


def send_test(notify: Notify, instance: str) -> list[Finding]:
    """A test message to each digest receiver (a webhook, Slack), and what came of it."""
    item = Item(
        Category.APPLIED, RUN, "driftctl doctor --send-test: a test message; nothing was applied"
    )
    now = time.time()
    occasion = Occasion((item,), Heading(instance, "", 0, now), None)
    run = Run("doctor-send-test", now, now + notify.timeout)  # its claims, kept nowhere
    found = []
    for name, receiver in receivers_of(notify).items():
        if name not in TESTED:
            found.append(
                ok("send-test", f"{name}: not sent (it is told only of a commit or a condition)")
            )
            continue
        told = receiver(occasion, None, run).send()
        if told.failed is not None:
            found.append(
                fail("send-test", f"{name}: {told.failed}", "check its URL and secret file")
            )
        else:
            found.append(ok("send-test", f"{name}: a test message was sent"))
    return found or [ok("send-test", "no receiver configured: nothing sent")]
