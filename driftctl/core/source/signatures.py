"""Signed Git objects, and the verdict on each signature: whose key, and whether it is trusted.

Pure. A commit carries its signature in a `gpgsig` header (`gpgsig-sha256` in a SHA-256
repository) and what was signed is the commit without those headers; an annotated tag
carries it after its message and what was signed is everything before it (git's own
rules). A signature is OpenPGP (`-----BEGIN PGP SIGNATURE-----`) or SSH
(`-----BEGIN SSH SIGNATURE-----`). The shell runs the tools over what this module splits
off (shell.gpg, shell.ssh_keygen) and hands back their machine-readable answers; the
verdicts are made here:

- OpenPGP: trusted only when gpg reports a good signature (GOODSIG and VALIDSIG) made by a
  key whose primary fingerprint, in full, is one of the keys read from --trusted-keys: the
  signing key is that primary key or one of its subkeys (never a key ID, never a
  fingerprint prefix). A key gpg calls expired or revoked (EXPKEYSIG, REVKEYSIG), or that
  the keyring lists so, is untrusted, however good the signature.
- SSH: trusted only when `ssh-keygen -Y verify` accepts the signature for a principal that
  `ssh-keygen -Y find-principals` found for it in --allowed-signers (which applies its
  `valid-after`/`valid-before` to today).

A verdict names its signer by the full fingerprint (OpenPGP: the primary key's when gpg
gives it; SSH: `SHA256:...`), or "unsigned".
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SHORT = 12  # how many hex digits of a SHA a message shows
_SIGNATURE_HEADERS = (b"gpgsig", b"gpgsig-sha256")


class Scheme(enum.StrEnum):
    """What kind of signature an object carries."""

    OPENPGP = "OpenPGP"
    SSH = "SSH"


_BEGINNINGS = {
    b"-----BEGIN PGP SIGNATURE-----": Scheme.OPENPGP,
    b"-----BEGIN PGP MESSAGE-----": Scheme.OPENPGP,
    b"-----BEGIN SSH SIGNATURE-----": Scheme.SSH,
}


@dataclass(frozen=True)
class SignedObject:
    """A commit or an annotated tag: what was signed, and the signature (None: unsigned)."""

    sha: str
    kind: str  # "commit" or "tag"
    payload: bytes
    signature: bytes | None
    tag_name: str | None = None

    @property
    def scheme(self) -> Scheme | None:
        """OpenPGP or SSH, by the signature's first line; None when unsigned."""
        if self.signature is None:
            return None
        return _scheme_of(self.signature)

    @property
    def display(self) -> str:
        """How a message names it: `commit 1a2b3c4d5e6f`, `tag v1.2 (1a2b3c4d5e6f)`."""
        if self.kind == "tag":
            return f"tag {self.tag_name or '?'} ({self.sha[:SHORT]})"
        return f"commit {self.sha[:SHORT]}"


def _scheme_of(signature: bytes) -> Scheme | None:
    first = signature.split(b"\n", 1)[0].strip()
    return _BEGINNINGS.get(first)


def commit_object(sha: str, raw: bytes) -> SignedObject:
    """A raw commit (`git cat-file commit`) split into what was signed and its signature."""
    header, blank, message = raw.partition(b"\n\n")
    kept: list[bytes] = []
    signatures: dict[bytes, list[bytes]] = {}
    current: list[bytes] | None = None
    for line in header.split(b"\n"):
        name, _space, value = line.partition(b" ")
        if current is not None and line.startswith(b" "):
            current.append(line[1:])
            continue
        current = None
        if name in _SIGNATURE_HEADERS and name not in signatures:
            current = signatures[name] = [value]
            continue
        kept.append(line)
    payload = b"\n".join(kept) + blank + message
    lines = next((signatures[name] for name in _SIGNATURE_HEADERS if name in signatures), None)
    signature = b"\n".join(lines) + b"\n" if lines is not None else None
    return SignedObject(sha, "commit", payload, signature)


def tag_object(sha: str, raw: bytes) -> SignedObject:
    """A raw annotated tag (`git cat-file tag`) split at the last line a signature starts."""
    start = len(raw)
    offset = 0
    for line in raw.splitlines(keepends=True):
        if _scheme_of(line) is not None:
            start = offset
        offset += len(line)
    name = next(
        (line[4:].decode("utf-8", "replace") for line in raw.split(b"\n") if line[:4] == b"tag "),
        None,
    )
    signature = raw[start:] if start < len(raw) else None
    return SignedObject(sha, "tag", raw[:start], signature, name)


# -- OpenPGP ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenPgpKey:
    """One primary key of the trusted keyring, as `gpg --with-colons --list-keys` shows it."""

    fingerprint: str
    subkeys: tuple[str, ...] = ()
    expired: bool = False
    revoked: bool = False


def keyring(listing: str) -> tuple[OpenPgpKey, ...]:
    """The primary keys (with their subkeys) of a `--with-colons --fixed-list-mode` listing."""
    keys: list[OpenPgpKey] = []
    record: str | None = None  # "pub" or "sub": the record the next `fpr` line belongs to
    validity = ""
    for line in listing.splitlines():
        fields = line.split(":")
        if fields[0] in ("pub", "sub"):
            record, validity = fields[0], fields[1] if len(fields) > 1 else ""
        elif fields[0] == "fpr" and len(fields) > 9 and record is not None:
            fingerprint = fields[9].upper()
            if record == "pub":
                keys.append(OpenPgpKey(fingerprint, (), validity == "e", validity == "r"))
            elif keys:
                last = keys[-1]
                keys[-1] = OpenPgpKey(
                    last.fingerprint, (*last.subkeys, fingerprint), last.expired, last.revoked
                )
            record = None
    return tuple(keys)


class Failure(enum.StrEnum):
    """Why a signature is not trusted."""

    UNSIGNED = "unsigned"
    UNKNOWN_KEY = "unknown key"
    EXPIRED = "expired key"
    REVOKED = "revoked key"
    BAD = "bad signature"


@dataclass(frozen=True)
class Verdict:
    """What one object's signature says: its signer (None: unsigned), whether it is trusted."""

    subject: SignedObject
    signer: str | None  # "OpenPGP key <fingerprint>", "SSH key SHA256:... (principal)"
    fingerprint: str | None  # the key's full fingerprint, when known
    failure: Failure | None = None
    reason: str = ""  # why, in words, when it is not trusted

    @property
    def trusted(self) -> bool:
        """Signed by a trusted key that is neither expired nor revoked."""
        return self.failure is None

    @property
    def counts_as(self) -> str | None:
        """The `check --fail-on` name it counts under: unsigned, untrusted, or None."""
        if self.failure is None:
            return None
        return "unsigned" if self.failure is Failure.UNSIGNED else "untrusted"

    @property
    def shown_signer(self) -> str:
        """Its signer as a report shows it: `unsigned` or the signing key."""
        return self.signer or "unsigned"


def unsigned(subject: SignedObject) -> Verdict:
    """The verdict on an object without a signature."""
    return Verdict(subject, None, None, Failure.UNSIGNED, "it carries no signature")


def unjudged(subject: SignedObject) -> Verdict:
    """The verdict on a signature no keys were given for (or of a kind not checked): never
    trusted."""
    scheme = subject.scheme
    if scheme is None:
        return Verdict(
            subject,
            "an X.509 or unknown signature",
            None,
            Failure.UNKNOWN_KEY,
            "driftctl checks OpenPGP and SSH signatures only",
        )
    flag = "--trusted-keys" if scheme is Scheme.OPENPGP else "--allowed-signers"
    return Verdict(
        subject,
        f"an {scheme} key",
        None,
        Failure.UNKNOWN_KEY,
        f"no {flag} was given to check {scheme} signatures with",
    )


def openpgp_verdict(subject: SignedObject, status: str, keys: Sequence[OpenPgpKey]) -> Verdict:
    """The verdict from gpg's `--status-fd` lines for `subject`'s signature."""
    lines = _status(status)
    if "ERRSIG" in lines:
        return _unchecked(subject, lines)
    valid = lines.get("VALIDSIG", [])
    if "BADSIG" in lines or not valid:
        key_id = (lines.get("BADSIG") or ["?"])[0].upper()
        return Verdict(
            subject, f"OpenPGP key {key_id}", None, Failure.BAD, "the signature does not match"
        )
    signing = valid[0].upper()
    primary = valid[9].upper() if len(valid) > 9 else signing
    key = next((key for key in keys if key.fingerprint == primary), None)
    if key is None or signing not in (key.fingerprint, *key.subkeys):
        failure: tuple[Failure, str] | None = (Failure.UNKNOWN_KEY, _UNKNOWN_PGP)
    else:
        failure = _key_failure(lines, key)
    signer = f"OpenPGP key {primary}"
    return (
        Verdict(subject, signer, primary, *failure)
        if failure
        else Verdict(subject, signer, primary)
    )


def _unchecked(subject: SignedObject, lines: Mapping[str, list[str]]) -> Verdict:
    """gpg could not check the signature: the key is not in the keyring, or worse."""
    error = lines["ERRSIG"]
    fingerprint = error[6].upper() if len(error) > 6 and error[6] else None
    signer = f"OpenPGP key {fingerprint or (error[0].upper() if error else '?')}"
    if "NO_PUBKEY" in lines:
        return Verdict(subject, signer, fingerprint, Failure.UNKNOWN_KEY, _UNKNOWN_PGP)
    return Verdict(subject, signer, fingerprint, Failure.BAD, "gpg cannot check the signature")


def _key_failure(lines: Mapping[str, list[str]], key: OpenPgpKey) -> tuple[Failure, str] | None:
    """Why a good signature by a trusted key still is not trusted (None: it is)."""
    if "REVKEYSIG" in lines or key.revoked:
        return Failure.REVOKED, "the key is revoked"
    if "EXPKEYSIG" in lines or key.expired:
        return Failure.EXPIRED, "the key has expired"
    if "EXPSIG" in lines:
        return Failure.EXPIRED, "the signature has expired"
    if "GOODSIG" not in lines:
        return Failure.BAD, "gpg did not call it good"
    return None


_UNKNOWN_PGP = "the key is not one of --trusted-keys"


def _status(status: str) -> dict[str, list[str]]:
    """gpg's status lines by keyword (the first of each), their arguments split."""
    found: dict[str, list[str]] = {}
    for line in status.splitlines():
        if line.startswith("[GNUPG:] "):
            keyword, *arguments = line[len("[GNUPG:] ") :].split(" ")
            found.setdefault(keyword, arguments)
    return found


# -- SSH ----------------------------------------------------------------------------------

_SSH_KEY = re.compile(r"with (\S+) key (SHA256:[A-Za-z0-9+/=]+)")
# ssh-keygen's words when a key's valid-after/valid-before in the file do not cover today.
_EXPIRED_SSH = re.compile(r"key has expired|key is not yet valid")


@dataclass(frozen=True)
class SshAnswers:
    """What ssh-keygen said about one SSH signature.

    `principals`: whom `-Y find-principals` found in the allowed-signers file for the key;
    `verified`: what `-Y verify` printed for the first of them that it accepted (None: none
    did); `checked`: what `-Y check-novalidate` printed (the signature alone, any key; None:
    it is not even a good signature); `refusal`: ssh-keygen's last words otherwise.
    """

    principals: tuple[str, ...] = ()
    verified: str | None = None
    checked: str | None = None
    refusal: str = ""


def ssh_verdict(subject: SignedObject, answers: SshAnswers) -> Verdict:
    """The verdict from ssh-keygen's answers about `subject`'s signature."""
    said = answers.verified or answers.checked or ""
    found = _SSH_KEY.search(said)
    fingerprint = found.group(2) if found else None
    key = f"SSH key {fingerprint}" if fingerprint else "SSH key ?"
    if answers.verified is not None and fingerprint is not None and answers.principals:
        principal = next(
            (p for p in answers.principals if f"for {p} with" in said), answers.principals[0]
        )
        return Verdict(subject, f"{key} ({principal})", fingerprint)
    if answers.checked is None:
        why = "the signature does not match" + (f" ({answers.refusal})" if answers.refusal else "")
        return Verdict(subject, key, fingerprint, Failure.BAD, why)
    if not answers.principals:
        if _EXPIRED_SSH.search(answers.refusal):
            why = f"--allowed-signers does not let the key sign now ({answers.refusal})"
            return Verdict(subject, key, fingerprint, Failure.EXPIRED, why)
        return Verdict(
            subject, key, fingerprint, Failure.UNKNOWN_KEY, "the key is not in --allowed-signers"
        )
    # Found, yet refused: the file restricts the key (its namespaces, or its validity).
    why = "--allowed-signers does not let the key sign this"
    why += f" ({answers.refusal})" if answers.refusal else ""
    return Verdict(subject, f"{key} ({answers.principals[0]})", fingerprint, Failure.BAD, why)


def refusal(verdicts: Sequence[Verdict]) -> str | None:
    """Why a revision is refused, in one line: the first object not trusted (its signer and
    the reason), and how many others are not; None when every one is trusted."""
    failed = [verdict for verdict in verdicts if not verdict.trusted]
    if not failed:
        return None
    first = failed[0]
    others = len(failed) - 1
    more = f" ({others} more not trusted)" if others else ""
    return f"{first.subject.display} ({first.shown_signer}): {first.reason}{more}"
