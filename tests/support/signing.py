"""Real signing keys made by the tests, and commits and tags signed with them by the real git.

One `Keys` per test session (fast: ed25519 keys, no passphrase): in a gpg home of its own,
`alice` (a primary key with a signing subkey; trusted), `mallory` (never trusted) and
`old` (made with gpg's clock set to 2025-01-01, expired the next day, and signing with that
clock, as if the commit had been made then); and the SSH keys `bob` (in the allowed-signers
file) and `eve` (not in it). `trusted_keys` is a folder of what a user would mount: alice's
and old's armored public keys; `allowed_signers`, bob's line. The gpg agents of the home
are stopped at the end; nothing touches the user's ~/.gnupg or ~/.ssh.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.gitrepos import Repo, git_env

OLD_CLOCK = "20250101T000000!"  # when `old` was made; it expired a day later
OLD_SIGNING_CLOCK = "20250101T010000!"


@dataclass(frozen=True)
class Signer:
    """How git signs as one key: its -c settings and the environment gpg needs."""

    name: str
    config: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    fingerprint: str = ""  # the primary key's (OpenPGP) or the SHA256:... (SSH)


@dataclass(frozen=True)
class Keys:
    """The session's keys, and the files a user would hand driftctl."""

    alice: Signer  # trusted; signs with her primary key
    alice_subkey: Signer  # trusted: a subkey of alice's primary key
    mallory: Signer  # an OpenPGP key nobody trusts
    old: Signer  # trusted, but expired
    bob: Signer  # an SSH key in the allowed-signers file
    eve: Signer  # an SSH key outside it
    trusted_keys: Path  # a folder of *.asc
    allowed_signers: Path
    home: Path  # the gpg home the keys were made in (never driftctl's)


def _gpg(home: Path, *args: str, clock: str | None = None) -> str:
    faked = ["--faked-system-time", clock] if clock else []
    done = subprocess.run(
        ["gpg", "--homedir", str(home), "--batch", "--pinentry-mode", "loopback", *faked, *args],
        capture_output=True,
        check=True,
        env={**os.environ, "LC_ALL": "C"},
    )
    return done.stdout.decode()


def _new_key(home: Path, uid: str, expiry: str, clock: str | None = None) -> str:
    """A new ed25519 signing key without passphrase; its primary fingerprint."""
    _gpg(home, "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", expiry, clock=clock)
    listing = _gpg(home, "--with-colons", "--list-keys", uid)
    return next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr"))


def _subkey(home: Path, primary: str) -> str:
    _gpg(home, "--passphrase", "", "--quick-add-key", primary, "ed25519", "sign", "2y")
    listing = _gpg(home, "--with-colons", "--list-keys", primary).splitlines()
    after_sub = [listing[i + 1] for i, line in enumerate(listing) if line.startswith("sub")]
    return after_sub[-1].split(":")[9]


def _openpgp(name: str, home: Path, key: str, primary: str, program: str = "gpg") -> Signer:
    config = ("-c", f"gpg.program={program}", "-c", f"user.signingkey={key}!")
    return Signer(name, config, (("GNUPGHOME", str(home)),), primary)


def _ssh(name: str, folder: Path) -> tuple[Signer, str]:
    private = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(private)],
        check=True,
    )
    public = (folder / f"{name}.pub").read_text().split()
    fingerprint = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(private)],
        capture_output=True,
        check=True,
        text=True,
    ).stdout.split()[1]
    config = ("-c", "gpg.format=ssh", "-c", f"user.signingkey={private}.pub")
    return Signer(name, config, (), fingerprint), f"{public[0]} {public[1]}"


@contextlib.contextmanager
def made_keys(folder: Path) -> Iterator[Keys]:
    """Every key of the session, made in `folder`; the gpg agents stopped at the end."""
    home = folder / "gnupg"
    home.mkdir(mode=0o700, parents=True)
    try:
        alice = _new_key(home, "Alice <alice@example.invalid>", "2y")
        subkey = _subkey(home, alice)
        mallory = _new_key(home, "Mallory <mallory@example.invalid>", "2y")
        old = _new_key(home, "Old <old@example.invalid>", "1d", clock=OLD_CLOCK)
        old_gpg = folder / "gpg-in-2025"
        old_gpg.write_text(f'#!/bin/sh\nexec gpg --faked-system-time {OLD_SIGNING_CLOCK} "$@"\n')
        old_gpg.chmod(0o755)
        trusted = folder / "trusted-keys"
        trusted.mkdir()
        for name, fingerprint in (("alice", alice), ("old", old)):
            (trusted / f"{name}.asc").write_text(_gpg(home, "--armor", "--export", fingerprint))
        bob, bob_key = _ssh("bob", folder)
        eve, _eve_key = _ssh("eve", folder)
        signers = folder / "allowed_signers"
        signers.write_text(f"bob@example.invalid {bob_key}\n")
        yield Keys(
            alice=_openpgp("alice", home, alice, alice),
            alice_subkey=_openpgp("alice's subkey", home, subkey, alice),
            mallory=_openpgp("mallory", home, mallory, mallory),
            old=_openpgp("old", home, old, old, program=str(old_gpg)),
            bob=bob,
            eve=eve,
            trusted_keys=trusted,
            allowed_signers=signers,
            home=home,
        )
    finally:
        subprocess.run(
            ["gpgconf", "--homedir", str(home), "--kill", "all"], check=False, capture_output=True
        )


def _git(repo: Repo, signer: Signer | None, *args: str) -> str:
    config = signer.config if signer else ()
    done = subprocess.run(
        ["git", *config, *args],
        cwd=repo.path,
        env=git_env(dict(signer.env) if signer else None),
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


def commit(repo: Repo, signer: Signer | None, message: str = "change") -> str:
    """Commit everything written, signed by `signer` (None: unsigned); the new SHA."""
    _git(repo, signer, "add", "--all")
    _git(
        repo,
        signer,
        "commit",
        "--quiet",
        "--allow-empty",
        "-m",
        message,
        *(["-S"] if signer else []),
    )
    return _git(repo, None, "rev-parse", "HEAD")


def tag(repo: Repo, signer: Signer | None, name: str, target: str = "HEAD") -> str:
    """An annotated tag on `target`, signed by `signer` (None: unsigned); its object's SHA."""
    _git(repo, signer, "tag", "-m", name, *(["-s"] if signer else ["-a"]), name, target)
    return _git(repo, None, "rev-parse", name)
