"""What `doctor` judges off the cluster: the keys --verify trusts, and the receivers'
settings. Pure: the shell reads the files and gpg imports the keys; this says what that
means for a run.

An allowed-signers file is read as ssh-keygen reads one (`allowed_signer_problems`): each
line not blank nor a comment is principals, options maybe, then a key type and its
base64 body; a line ssh-keygen would pass over silently is a key nobody is trusted by.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from pathlib import Path

from driftctl.core.doctor.findings import Finding, fail, ok
from driftctl.settings import Notify, Verify

KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)


def allowed_signer_problems(text: str) -> tuple[int, list[str]]:
    """How many keys an allowed-signers file trusts, and the problem of each line that is
    not one (`line N: ...`)."""
    keys, problems = 0, []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        at = next((i for i, word in enumerate(words) if word in KEY_TYPES), None)
        if at is None or at == 0 or at + 1 >= len(words):
            problems.append(f"line {number}: not `PRINCIPALS [OPTIONS] KEYTYPE BASE64`")
            continue
        try:
            base64.b64decode(words[at + 1], validate=True)
        except (binascii.Error, ValueError):
            problems.append(f"line {number}: its {words[at]} key is not base64")
            continue
        keys += 1
    return keys, problems


KeysRead = int | str  # how many keys were read, or why none could be


def keys(verify: Verify, pgp: KeysRead | None, ssh: KeysRead | None) -> list[Finding]:
    """The keys --verify trusts: each file readable and holding keys (nothing to check
    without --verify)."""
    if not verify.enabled:
        return [ok("keys", "--verify is off: no key is read")]
    found = []
    for flag, path, read in (
        ("--trusted-keys", verify.trusted_keys, pgp),
        ("--allowed-signers", verify.allowed_signers, ssh),
    ):
        if path is None or read is None:
            continue
        if isinstance(read, str):
            found.append(fail("keys", f"{flag} {path}: {read}", _KEY_HINTS[flag]))
        elif read == 0:
            found.append(fail("keys", f"{flag} {path} trusts no key", _KEY_HINTS[flag]))
        else:
            found.append(ok("keys", f"{flag} {path}: {read} key{'s' if read != 1 else ''} trusted"))
    return found


_KEY_HINTS = {
    "--trusted-keys": "export each trusted key with `gpg --armor --export FINGERPRINT > "
    "NAME.asc` into that folder",
    "--allowed-signers": "write one `EMAIL KEYTYPE BASE64` line per key (`ssh-keygen -Y "
    "find-principals` reads it)",
}


def secret_files(notify: Notify) -> dict[str, Path]:
    """The files the receivers read their secrets from, by receiver."""
    named = {
        "webhook": notify.webhook_secret_file,
        "slack": notify.slack_file,
        "github": notify.github_token_file,
        "gitlab": notify.gitlab_token_file,
    }
    return {name: path for name, path in named.items() if path is not None}


def receivers(notify: Notify, unreadable: Mapping[str, str]) -> list[Finding]:
    """The receivers configured, each with its secret file readable (`unreadable`: why a
    receiver's file is not)."""
    configured = receiver_names(notify)
    if not configured:
        return [ok("receivers", "none configured: a run tells nobody")]
    found = []
    for name in configured:
        if name in unreadable:
            flag = {"webhook": "--webhook-secret-file", "slack": "--slack-webhook-file"}.get(
                name, f"--{name}-token-file"
            )
            found.append(
                fail(
                    "receivers",
                    f"{name}: {unreadable[name]}",
                    f"mount or write the file {flag} names",
                )
            )
        else:
            found.append(ok("receivers", f"{name}: {_target(notify, name)}"))
    return found


def receiver_names(notify: Notify) -> list[str]:
    named = {
        "webhook": notify.webhook,
        "slack": notify.slack_file,
        "alertmanager": notify.alertmanager,
        "github": notify.github,
        "gitlab": notify.gitlab,
    }
    return [name for name, value in named.items() if value is not None]


def _target(notify: Notify, name: str) -> str:
    if name == "webhook" and notify.webhook is not None:
        return notify.webhook.url.split("?")[0] + (", signed" if notify.webhook.secret_file else "")
    if name == "slack":
        return f"its URL read from {notify.slack_file}"
    if name == "alertmanager":
        return str(notify.alertmanager)
    forge = notify.github if name == "github" else notify.gitlab
    return f"{forge.repository} at {forge.api}" if forge else name
