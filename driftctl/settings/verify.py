"""Which commits must be signed by a trusted key before anything is applied: `Verify`
(plan, apply, check and watch take it).

`head`: the commit a run applies (and the annotated tag, when the ref names one); `all`:
every commit between the last revision applied and that one. The keys are only ever the
files named here (a folder of armored OpenPGP public keys, an ssh-keygen allowed-signers
file), never anything in the repository; they are read when a run verifies, not here.
`allow_rewind` lets a run apply a commit that does not descend from the last revision
applied (not `check`: a pull request is never a rewind).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from driftctl.errors import UsageError
from driftctl.settings.declare import PLANNING, Group, setting
from driftctl.settings.kinds import FilePath, Switch, Word

VERIFY_MODES = ("off", "head", "all")
TRUST_FAILURES = ("unsigned", "untrusted")  # the --fail-on names that need --verify


@dataclass(frozen=True, kw_only=True)
class Verify:
    """Which commits must be signed by a trusted key, and by which keys (paths only)."""

    GROUP: ClassVar = Group("Verify flags", PLANNING | {"doctor"})

    mode: str = setting(
        "verify",
        Word(VERIFY_MODES),
        "off",
        help="Refuse (exit 3) a commit not signed by a trusted key: `head` checks the commit "
        "read (and the annotated tag its ref names), `all` every commit since the last "
        "revision verified and applied (recorded on the run lock's Lease).",
    )
    trusted_keys: Path | None = setting(  # a folder of *.asc files
        "trusted-keys",
        FilePath(folder=True),
        metavar="DIR",
        help="Folder of trusted OpenPGP public keys, armored, one *.asc file each (a subkey "
        "signs for its primary key; expired or revoked keys are not trusted).",
    )
    allowed_signers: Path | None = setting(
        "allowed-signers",
        FilePath(),
        metavar="FILE",
        help="ssh-keygen allowed-signers file: the SSH keys trusted to sign commits.",
    )
    allow_rewind: bool = setting(
        "allow-rewind",
        Switch(),
        False,
        commands=PLANNING - {"check"},
        help="With --verify, apply a commit that does not descend from the last revision "
        "verified and applied (a force-push back; its head is checked as on a first run).",
    )

    def __post_init__(self) -> None:
        keys = self.trusted_keys is not None or self.allowed_signers is not None
        if self.enabled and not keys:
            raise UsageError(
                f"--verify {self.mode} needs the keys to trust",
                hint="pass --trusted-keys DIR (armored OpenPGP public keys, *.asc) and/or "
                "--allowed-signers FILE (ssh-keygen's allowed-signers format)",
            )
        given = [
            name
            for name, value in (
                ("--trusted-keys", self.trusted_keys),
                ("--allowed-signers", self.allowed_signers),
                ("--allow-rewind", self.allow_rewind or None),
            )
            if value is not None
        ]
        if not self.enabled and given:
            raise UsageError(
                f"{', '.join(given)} only work with --verify head or --verify all",
                hint="turn verification on, or drop them",
            )

    @property
    def enabled(self) -> bool:
        """Whether any commit is verified at all."""
        return self.mode != "off"

    @property
    def every_commit(self) -> bool:
        """`all`: every commit since the last revision applied, not only the head."""
        return self.mode == "all"


NO_VERIFY = Verify()
