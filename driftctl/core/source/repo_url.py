"""Where the desired state lives: a local path or a Git URL, parsed, vetted and redacted.

Decides which URLs driftctl will hand to git (https, ssh, scp-like `user@host:path`,
file; plain http and git:// only to the loopback host), refuses transport helpers
(`ext::`), option injection (a leading `-`) and anything else, and separates credentials
from the URL so that git, logs and annotations only ever see the redacted form. Pure: no
git is run and no environment is read here.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from dataclasses import dataclass, field

from driftctl.errors import SourceError

SECURE_SCHEMES = ("https", "ssh", "file")
LOOPBACK_ONLY_SCHEMES = ("http", "git")  # no TLS: a token or the manifests could be read or changed
_SCP_LIKE = re.compile(r"^(?:(?P<user>[^@/:]+)@)?(?P<host>[^@/:]+):(?P<path>.+)$")


@dataclass(frozen=True)
class Credentials:
    """A username and secret for HTTP Basic auth; the secret never appears in repr or str."""

    username: str
    secret: str = field(repr=False)

    def __str__(self) -> str:
        return f"{self.username}:****"


@dataclass(frozen=True)
class RepoUrl:
    """A remote repository: the URL git fetches (no credentials) and credentials kept apart."""

    scheme: str  # https, http, ssh, git, file, or "scp" for user@host:path
    url: str  # what git is given and what people see: never has a password in it
    host: str | None
    credentials: Credentials | None = None

    @property
    def is_loopback(self) -> bool:
        """Whether the host is this machine, where plain http and git:// cannot be overheard."""
        return _is_loopback(self.host)

    @property
    def allowed_protocols(self) -> str:
        """The value of GIT_ALLOW_PROTOCOL for fetching this URL: its own scheme only."""
        return "ssh" if self.scheme == "scp" else self.scheme

    @property
    def origin(self) -> str:
        """`scheme://host[:port]/`: the scope an HTTP credential header is limited to."""
        parts = urllib.parse.urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}/"


def is_url(repo: str) -> bool:
    """Whether --repo names a remote (a URL or scp-like address) rather than a local path."""
    if "://" in repo or "::" in repo or repo.startswith("-"):
        return True
    match = _SCP_LIKE.match(repo)
    # Like git: `a:b` is scp-like only when no slash comes before the colon.
    return match is not None and "/" not in repo.split(":", 1)[0]


def parse_repo_url(repo: str) -> RepoUrl:
    """The vetted, redacted form of a repository URL, or SourceError saying why it is refused."""
    if repo.startswith("-"):
        raise SourceError(f"refused repository {repo!r}: it would be read as a git option")
    if "::" in repo.split("://", 1)[0]:
        raise SourceError(
            f"refused repository {_redact(repo)}: transport helpers (like ext::) can run commands"
        )
    if "://" not in repo:
        return _parse_scp_like(repo)
    return _parse_standard(repo)


def _parse_standard(repo: str) -> RepoUrl:
    parts = urllib.parse.urlsplit(repo)
    scheme = parts.scheme.lower()
    if scheme not in SECURE_SCHEMES + LOOPBACK_ONLY_SCHEMES:
        raise SourceError(f"refused repository {_redact(repo)}: unsupported scheme {scheme!r}")
    host = parts.hostname
    if scheme != "file" and not host:
        raise SourceError(f"refused repository {_redact(repo)}: no host")
    if host is not None and host.startswith("-"):
        raise SourceError(f"refused repository {_redact(repo)}: host would be read as an option")
    if scheme in LOOPBACK_ONLY_SCHEMES and not _is_loopback(host):
        raise SourceError(
            f"refused repository {_redact(repo)}: {scheme}:// is unencrypted",
            hint="use https:// or ssh:// (plain http and git:// are allowed only to 127.0.0.1)",
        )
    credentials, netloc = _split_userinfo(parts, scheme)
    url = urllib.parse.urlunsplit((scheme, netloc, parts.path, parts.query, ""))
    return RepoUrl(scheme, url, host, credentials)


def _split_userinfo(parts: urllib.parse.SplitResult, scheme: str) -> tuple[Credentials | None, str]:
    host_port = parts.netloc.rpartition("@")[2]
    if parts.username is None and parts.password is None:
        return None, host_port
    if scheme in ("ssh",):
        if parts.password is not None:
            raise SourceError(
                f"refused repository {_redact(urllib.parse.urlunsplit(parts))}: "
                "a password in an ssh URL; use an SSH key or agent"
            )
        return None, parts.netloc  # the ssh login name is an address, not a secret
    username = urllib.parse.unquote(parts.username or "")
    secret = urllib.parse.unquote(parts.password or "")
    return (Credentials(username, secret) if secret else None), host_port


def _parse_scp_like(repo: str) -> RepoUrl:
    match = _SCP_LIKE.match(repo)
    if match is None:
        raise SourceError(f"refused repository {_redact(repo)}: not a URL git understands")
    host, path = match["host"], match["path"]
    if host.startswith("-") or path.startswith("-"):
        raise SourceError(f"refused repository {repo!r}: it would be read as an ssh option")
    return RepoUrl("scp", repo, host)


def _is_loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _redact(text: str) -> str:
    """A URL with any `user:password@` replaced, for messages about URLs that are refused."""
    return re.sub(r"//[^/@]*@", "//****@", text)


def redact_text(text: str, secrets: tuple[str, ...]) -> str:
    """`text` (e.g. git's stderr) with every secret replaced, as a last line of defence."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "****")
    return text
