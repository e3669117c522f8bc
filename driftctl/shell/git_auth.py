"""Git credentials: which a run uses for a URL, and how they reach git without leaking.

A token comes from DRIFTCTL_GIT_TOKEN, from `--git-token-file` (a Secret's file in a Pod;
not both) or from the URL. It reaches git as an HTTP Authorization header in environment
variables (GIT_CONFIG_COUNT/KEY/VALUE) scoped to the URL's host: never in the URL, git's
argv or the cache's config. An SSH key and its known_hosts file become the
GIT_SSH_COMMAND git runs ssh with: that key only, that known_hosts only, no prompt, and a
host key the file does not list is refused. `secrets_of` lists what a log must redact.
Used by shell.git_source and shell.git_history, which run git (through GitPython); nothing
here runs a process.
"""

from __future__ import annotations

import base64
import contextlib
import shlex
from collections.abc import Mapping
from pathlib import Path

from driftctl import conventions as c
from driftctl.core.source.repo_url import Credentials, RepoUrl, is_url, parse_repo_url
from driftctl.errors import SourceError, UsageError
from driftctl.settings import GitAuth

TOKEN_ENV = c.GIT_TOKEN_ENV
USERNAME_ENV = "DRIFTCTL_GIT_USERNAME"
DEFAULT_USERNAME = "x-access-token"  # accepted with a token by the common Git hosts


def authenticate(
    env: dict[str, str], url: RepoUrl, environ: Mapping[str, str], auth: GitAuth
) -> tuple[str, ...]:
    """Add to git's environment `env` the credentials for `url`; return the secrets git's
    messages must be redacted of."""
    secrets: tuple[str, ...] = ()
    credentials = _credentials(url, environ, auth)
    if credentials is not None:
        secrets = (credentials.secret, _with_header(env, url, credentials))
    if auth.uses_ssh:
        env["GIT_SSH_COMMAND"] = ssh_command(url, auth)
    return secrets


def _credentials(url: RepoUrl, environ: Mapping[str, str], auth: GitAuth) -> Credentials | None:
    token = _token(environ, auth)
    if token:
        return Credentials(environ.get(USERNAME_ENV) or DEFAULT_USERNAME, token)
    return url.credentials


def _token(environ: Mapping[str, str], auth: GitAuth) -> str | None:
    """The token from DRIFTCTL_GIT_TOKEN or --git-token-file (not both), or None."""
    if auth.token_file is None:
        return environ.get(TOKEN_ENV) or None
    if environ.get(TOKEN_ENV):
        raise UsageError(f"{TOKEN_ENV} and --git-token-file cannot be used together: give one")
    return read_token_file(auth.token_file)


def read_token_file(path: Path) -> str:
    """The token in `path`, without the line end `kubectl create secret --from-file` keeps."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as unreadable:
        reason = getattr(unreadable, "strerror", None) or "not UTF-8 text"
        raise SourceError(
            f"cannot read the Git token file {path} (--git-token-file): {reason}",
            hint="in a cluster, create the Secret it is mounted from (docs/get-started/"
            "cluster.md), or leave --git-token-file out for a public repository",
        ) from None
    if not token:
        raise SourceError(f"the Git token file {path} (--git-token-file) is empty")
    return token


def ssh_command(url: RepoUrl, auth: GitAuth) -> str:
    """GIT_SSH_COMMAND for the SSH key and known_hosts of `auth`: nothing else is used.

    The key file is handed to ssh by its path (ssh reads it; driftctl never does).
    StrictHostKeyChecking=yes with the given known_hosts (and no global one) refuses every
    host key the file does not list, and never writes to the file; BatchMode makes a key
    with a passphrase fail at once instead of asking.
    """
    if url.scheme not in ("ssh", "scp"):
        raise SourceError(
            "--git-ssh-key-file and --git-known-hosts-file work only with ssh:// and "
            f"user@host:path URLs, not {url.scheme}://",
            hint="for https, use a token (--git-token-file)",
        )
    for path, name in ((auth.ssh_key_file, "ssh-key"), (auth.known_hosts_file, "known-hosts")):
        if path is not None and not _readable(path):
            raise SourceError(f"cannot read {path} (--git-{name}-file)")
    # Absolute: git runs ssh in the cache repository, not where driftctl was started.
    argv = ["ssh"]
    if auth.ssh_key_file is not None:
        argv += ["-i", str(auth.ssh_key_file.absolute()), "-o", "IdentitiesOnly=yes"]
    if auth.known_hosts_file is not None:
        argv += ["-o", f"UserKnownHostsFile={auth.known_hosts_file.absolute()}"]
        argv += ["-o", "GlobalKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=yes"]
    return shlex.join([*argv, "-o", "BatchMode=yes"])


def _readable(path: Path) -> bool:
    try:
        with path.open("rb"):
            return True
    except OSError:
        return False


def secrets_of(
    repo: str, environ: Mapping[str, str], token_file: Path | None = None
) -> tuple[str, ...]:
    """Every secret a run may hold for `repo`: the token (from the environment or its file)
    or URL password, and the header value git is given. For a last redaction of what a run
    logs; nothing is fetched, and a token file that cannot be read adds nothing."""
    found: list[Credentials] = []
    username = environ.get(USERNAME_ENV) or DEFAULT_USERNAME
    token = environ.get(TOKEN_ENV)
    if token:
        found.append(Credentials(username, token))
    if token_file is not None:
        with contextlib.suppress(SourceError):  # reported when the run reads it
            found.append(Credentials(username, read_token_file(token_file)))
    if is_url(repo):
        try:
            in_url = parse_repo_url(repo).credentials
        except SourceError:
            in_url = None  # refused before any credential is used
        found += [in_url] if in_url else []
    return tuple(
        secret for credentials in found for secret in (credentials.secret, _basic(credentials))
    )


def _basic(credentials: Credentials) -> str:
    """The base64 `user:secret` of an HTTP Basic Authorization header."""
    return base64.b64encode(f"{credentials.username}:{credentials.secret}".encode()).decode()


def _with_header(env: dict[str, str], url: RepoUrl, credentials: Credentials) -> str:
    """Adds an Authorization header for the URL's host only; returns the header's secret part."""
    if url.scheme not in ("https", "http"):
        raise SourceError(
            f"a token ({TOKEN_ENV}, --git-token-file or user:password in the URL) works only "
            "with https://",
            hint="for ssh, use an SSH key (--git-ssh-key-file) or agent",
        )
    encoded = _basic(credentials)
    env["GIT_CONFIG_COUNT"] = "1"
    env["GIT_CONFIG_KEY_0"] = f"http.{url.origin}.extraHeader"
    env["GIT_CONFIG_VALUE_0"] = f"Authorization: Basic {encoded}"
    return encoded
