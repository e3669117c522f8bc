"""Where the desired state is read, and how its documents are validated: `Source`.

Its Git credentials are named by file only (`GitAuth`, in a Pod mounted from a Secret);
the files themselves are read by shell.git_source, never here. A host key is only ever
trusted from the known_hosts file given: an SSH key without one is refused, so a run can
never accept a host key nobody gave it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from driftctl import conventions as c
from driftctl.errors import UsageError
from driftctl.kube_formats import label_problem
from driftctl.settings.declare import SOURCED, Group, setting
from driftctl.settings.kinds import FilePath, Switch, Text

_NOT_DIFFING = SOURCED - {"diff", "check"}  # those read two refs, --base and --head


@dataclass(frozen=True)
class GitAuth:
    """Where the Git credentials are: file paths only, never their contents. A token is
    for https:// URLs; an SSH key with the hosts it may trust for ssh:// and scp-like ones."""

    token_file: Path | None = None
    ssh_key_file: Path | None = None
    known_hosts_file: Path | None = None

    @property
    def uses_ssh(self) -> bool:
        """Whether ssh is to be run with these files rather than its own set-up."""
        return self.ssh_key_file is not None or self.known_hosts_file is not None


@dataclass(frozen=True, kw_only=True)
class Source:
    """Where the desired state is read, and how its documents are validated."""

    GROUP: ClassVar = Group("Source flags", SOURCED)

    repo: str = setting(
        "repo",
        Text(),
        ".",
        help="Repository: a local path, or a URL (https://, ssh://, git@host:path, file://).",
    )
    ref: str | None = setting(
        "ref",
        Text(),
        commands=_NOT_DIFFING,
        help="Branch, tag or commit to read (default: the working tree of a local path, the "
        "default branch of a URL).",
    )
    path: str = setting(
        "path",
        Text(),
        "",
        show_default=False,
        help="Folder inside the repository holding the manifests (default: the root).",
    )
    cache_dir: Path | None = setting(
        "cache-dir",
        FilePath(folder=True),
        metavar="DIRECTORY",
        help="Where fetched repositories are kept (default: ~/.cache/driftctl/repos).",
    )
    namespace: str = setting(
        "namespace",
        Text(label_problem),
        c.DEFAULT_NAMESPACE,
        help="Namespace of WebApps that do not name one.",
    )
    skip_unknown_kinds: bool = setting(
        "skip-unknown-kinds",
        Switch(),
        False,
        help="Skip documents of other kinds with a warning instead of refusing them.",
    )
    token_file: Path | None = setting(
        "git-token-file",
        FilePath(),
        help="File holding a token for an https:// repository (in a Pod: a Secret's file). "
        f"Or set {c.GIT_TOKEN_ENV}.",
    )
    ssh_key_file: Path | None = setting(
        "git-ssh-key-file",
        FilePath(),
        help="SSH private key for an ssh:// repository; needs --git-known-hosts-file.",
    )
    known_hosts_file: Path | None = setting(
        "git-known-hosts-file",
        FilePath(),
        help="known_hosts file: the only host keys ssh accepts (others are refused).",
    )

    def __post_init__(self) -> None:
        if self.token_file is not None and self.ssh_key_file is not None:
            raise UsageError(
                "--git-token-file and --git-ssh-key-file cannot be used together",
                hint="a token is for https:// URLs, an SSH key for ssh:// URLs: give one",
            )
        if self.ssh_key_file is not None and self.known_hosts_file is None:
            raise UsageError(
                "--git-ssh-key-file needs --git-known-hosts-file",
                hint="driftctl trusts only the host keys it is given: pass a known_hosts file "
                "(ssh-keyscan HOST, checked by hand)",
            )

    @property
    def auth(self) -> GitAuth:
        """The files holding the Git credentials."""
        return GitAuth(self.token_file, self.ssh_key_file, self.known_hosts_file)

    def at(self, ref: str | None) -> Source:
        """The same repository and folder at another ref (None: the working tree)."""
        return replace(self, ref=ref)
