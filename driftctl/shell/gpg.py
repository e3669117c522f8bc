"""The only module that runs gpg: a keyring of its own, made from --trusted-keys, that checks
OpenPGP signatures.

The keyring lives in a temporary home made for one use and removed after it, never the
user's ~/.gnupg (GNUPGHOME is ignored): only the armored public keys (`*.asc`) of the
folder named are imported, nothing from the repository, a key server or the environment.
gpg runs in batch mode without an agent (`--no-autostart`: checking a signature needs no
secret key), with a clean environment and its messages in English. This module decides
nothing: it hands back gpg's key listing and `--status-fd` lines, which
core.source.signatures judges.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from driftctl.errors import SourceError

TIMEOUT_SECONDS = 60
_FLAG = "--trusted-keys"


class Keyring:
    """The trusted OpenPGP keys in a temporary gpg home, for a `with` block."""

    def __init__(self, folder: Path, environ: Mapping[str, str]) -> None:
        self._folder = folder
        self._env = {key: environ[key] for key in ("PATH", "TMPDIR") if key in environ}
        self._env["LC_ALL"] = "C"
        self._home: Path | None = None
        self.listing = ""  # `gpg --with-colons --list-keys` of the imported keys

    def __enter__(self) -> Keyring:
        files = _key_files(self._folder)
        # Made here, not by gpg: a home gpg 2.4 creates itself gets common.conf with
        # use-keyboxd (a daemon); one that exists is a plain keybox file.
        self._home = Path(tempfile.mkdtemp(prefix="driftctl-gpg-", dir=self._env.get("TMPDIR")))
        self._env["GNUPGHOME"] = str(self._home)
        try:
            for file in files:
                self._import(file)
            self.listing = self._run(
                "--with-colons", "--fixed-list-mode", "--list-keys", what="listing the keys"
            ).stdout.decode("utf-8", "replace")
        except BaseException:
            self._remove()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._remove()

    def check(self, payload: bytes, signature: bytes) -> str:
        """gpg's status lines for a detached `signature` over `payload` (whatever it says:
        an unknown key or a bad signature is an answer, not an error)."""
        home = self._require_home()
        with tempfile.NamedTemporaryFile(dir=home, suffix=".sig") as detached:
            detached.write(signature)
            detached.flush()
            done = self._run(
                "--verify", detached.name, "-", input=payload, check=False, what="checking"
            )
        return done.stdout.decode("utf-8", "replace")

    def _import(self, file: Path) -> None:
        try:
            data = file.read_bytes()
        except OSError as error:
            raise SourceError(f"cannot read {file} ({_FLAG}): {error.strerror}") from None
        done = self._run("--import", input=data, check=False, what=f"importing {file}")
        # Judged by its status line, not its exit status: gpg exits 2 after importing when it
        # only failed to reach an agent (none is needed: `--no-autostart`), as it does when
        # the home's socket path is longer than a socket's name may be (a long TMPDIR).
        if b"[GNUPG:] IMPORT_OK " not in done.stdout:
            raise SourceError(
                f"{file} ({_FLAG}) holds no OpenPGP public key gpg can import",
                hint="export one with: gpg --armor --export FINGERPRINT > NAME.asc",
            )

    def _run(
        self, *args: str, input: bytes | None = None, check: bool = True, what: str
    ) -> subprocess.CompletedProcess[bytes]:
        home = self._require_home()
        command = [
            "gpg", "--homedir", str(home), "--batch", "--no-tty", "--no-autostart",
            "--no-auto-key-retrieve", "--no-auto-key-locate", "--trust-model", "always",
            "--status-fd", "1", *args,
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command,
                env=self._env,
                input=input,
                capture_output=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
                stdin=None if input is not None else subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise SourceError(
                "gpg is not installed (or not on PATH): --verify needs it for --trusted-keys"
            ) from None
        except subprocess.TimeoutExpired:
            raise SourceError(f"gpg took longer than {TIMEOUT_SECONDS} s {what}") from None
        if check and done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SourceError(f"gpg failed {what}: {message[-1] if message else done.returncode}")
        return done

    def _require_home(self) -> Path:
        if self._home is None:
            raise RuntimeError("the keyring is used outside its `with` block")
        return self._home

    def _remove(self) -> None:
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None


def _key_files(folder: Path) -> list[Path]:
    """The `*.asc` files of the folder (a mounted Secret's files are symlinks: followed)."""
    if not folder.is_dir():
        raise SourceError(f"{folder} ({_FLAG}) is not a folder")
    try:
        files = sorted(path for path in folder.glob("*.asc") if path.is_file())
    except OSError as error:
        raise SourceError(f"cannot read {folder} ({_FLAG}): {error.strerror}") from None
    if not files:
        raise SourceError(
            f"{folder} ({_FLAG}) holds no *.asc file",
            hint="put each trusted public key there as NAME.asc (gpg --armor --export)",
        )
    return files
