"""The only module that runs ssh-keygen: SSH signatures checked against --allowed-signers.

git signs with SSH keys in the namespace `git`; ssh-keygen checks such a signature the
way `git verify-commit` has it do: `-Y find-principals` names who the signing key belongs
to in the allowed-signers file (applying the file's `valid-after`/`valid-before` to
today), `-Y verify` checks the signature for each of them, and `-Y check-novalidate`
checks the signature alone, to name the key of a signer outside the file. The keys are
only ever the file's, never the repository's. Decides nothing: what ssh-keygen printed
goes back as core.source.signatures.SshAnswers, judged there.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from driftctl.core.source.signatures import SshAnswers
from driftctl.errors import SourceError

NAMESPACE = "git"  # what git signs commits and tags in
TIMEOUT_SECONDS = 60
_QUIET = ("No principal matched.",)


class AllowedSigners:
    """ssh-keygen over one allowed-signers file."""

    def __init__(self, path: Path, environ: Mapping[str, str]) -> None:
        if not path.is_file():
            raise SourceError(f"{path} (--allowed-signers) is not a readable file")
        self._path = path
        self._env = {key: environ[key] for key in ("PATH", "TMPDIR") if key in environ}
        self._env["LC_ALL"] = "C"

    def check(self, payload: bytes, signature: bytes) -> SshAnswers:
        """What ssh-keygen says about a detached SSH `signature` over `payload`."""
        with tempfile.NamedTemporaryFile(suffix=".sig", dir=self._env.get("TMPDIR")) as file:
            file.write(signature)
            file.flush()
            sig = file.name
            found = self._run("-Y", "find-principals", "-s", sig, "-f", str(self._path))
            principals = tuple(found.stdout.decode().split()) if found.returncode == 0 else ()
            refusal = "" if principals else _last_words(found)
            for principal in principals:
                verified = self._run(
                    "-Y", "verify", "-f", str(self._path), "-I", principal, "-n", NAMESPACE,
                    "-s", sig, input=payload,
                )  # fmt: skip
                if verified.returncode == 0:
                    return SshAnswers(principals, verified.stdout.decode().strip())
                refusal = _last_words(verified)
            checked = self._run("-Y", "check-novalidate", "-n", NAMESPACE, "-s", sig, input=payload)
        if checked.returncode != 0:
            return SshAnswers(principals, None, None, refusal or _last_words(checked))
        return SshAnswers(principals, None, checked.stdout.decode().strip(), refusal)

    def _run(self, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(
                ["ssh-keygen", *args],
                env=self._env,
                input=input,
                capture_output=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
                stdin=None if input is not None else subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise SourceError(
                "ssh-keygen is not installed (or not on PATH): --verify needs it for "
                "--allowed-signers"
            ) from None
        except subprocess.TimeoutExpired:
            raise SourceError(f"ssh-keygen took longer than {TIMEOUT_SECONDS} s") from None


def _last_words(done: subprocess.CompletedProcess[bytes]) -> str:
    """ssh-keygen's last meaningful line on stderr (its plain refusals left out)."""
    lines = [
        line.strip()
        for line in done.stderr.decode("utf-8", "replace").splitlines()
        if line.strip() and line.strip() not in _QUIET
    ]
    return lines[-1] if lines else ""
