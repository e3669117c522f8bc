"""Repository URLs are parsed, refused when unsafe, and never shown with credentials."""

from __future__ import annotations

import pytest

from driftctl.core.source.repo_url import is_url, parse_repo_url
from driftctl.errors import SourceError


@pytest.mark.parametrize(
    ("repo", "expected"),
    [
        pytest.param(".", False, id="dot"),
        pytest.param("./deploy:prod", False, id="relative-path-with-colon"),
        pytest.param("/srv/repo", False, id="absolute-path"),
        pytest.param("https://host/org/repo.git", True, id="https"),
        pytest.param("git@host:org/repo.git", True, id="scp-like"),
        pytest.param("file:///srv/repo", True, id="file-url"),
        pytest.param("ext::sh -c id", True, id="transport-helper"),
    ],
)
def test_urls_are_told_apart_from_local_paths(repo: str, expected: bool) -> None:
    assert is_url(repo) is expected


@pytest.mark.parametrize(
    ("repo", "url", "scheme"),
    [
        pytest.param("https://host/org/repo.git", "https://host/org/repo.git", "https", id="https"),
        pytest.param("HTTPS://host/r", "https://host/r", "https", id="scheme-case"),
        pytest.param("ssh://git@host:2222/org/r", "ssh://git@host:2222/org/r", "ssh", id="ssh"),
        pytest.param("git@host:org/r.git", "git@host:org/r.git", "scp", id="scp-like"),
        pytest.param("file:///srv/r", "file:///srv/r", "file", id="file"),
        pytest.param(
            "http://127.0.0.1:8080/r", "http://127.0.0.1:8080/r", "http", id="http-loopback"
        ),
        pytest.param("git://localhost/r", "git://localhost/r", "git", id="git-loopback"),
    ],
)
def test_accepted_urls(repo: str, url: str, scheme: str) -> None:
    parsed = parse_repo_url(repo)
    assert (parsed.url, parsed.scheme) == (url, scheme)


def test_credentials_in_a_url_are_split_out_and_never_shown() -> None:
    parsed = parse_repo_url("https://bot:s3cr%40t@host/org/repo.git")
    assert parsed.url == "https://host/org/repo.git"
    assert parsed.credentials is not None
    assert (parsed.credentials.username, parsed.credentials.secret) == ("bot", "s3cr@t")
    assert "s3cr" not in repr(parsed)
    assert "s3cr" not in str(parsed.credentials)
    assert parsed.origin == "https://host/"


def test_a_username_alone_is_not_a_credential() -> None:
    parsed = parse_repo_url("https://bot@host/r")
    assert (parsed.url, parsed.credentials) == ("https://host/r", None)


@pytest.mark.parametrize(
    ("repo", "reason"),
    [
        pytest.param("ext::sh -c touch% /tmp/pwned", "transport helpers", id="ext"),
        pytest.param("fd::17", "transport helpers", id="fd"),
        pytest.param("--upload-pack=touch /tmp/x", "git option", id="option-injection"),
        pytest.param("-uhost:repo", "git option", id="short-option"),
        pytest.param("ssh://-oProxyCommand=x/r", "option", id="ssh-host-option"),
        pytest.param("-oProxyCommand=x:r", "git option", id="scp-host-option"),
        pytest.param("host:-oProxyCommand=x", "ssh option", id="scp-path-option"),
        pytest.param("ftp://host/r", "unsupported scheme 'ftp'", id="ftp"),
        pytest.param("http://example.com/r", "http:// is unencrypted", id="http-remote"),
        pytest.param("git://example.com/r", "git:// is unencrypted", id="git-remote"),
        pytest.param("ssh://u:pw@host/r", "a password in an ssh URL", id="ssh-password"),
    ],
)
def test_unsafe_urls_are_refused(repo: str, reason: str) -> None:
    with pytest.raises(SourceError, match=reason) as refused:
        parse_repo_url(repo)
    assert "pw@" not in str(refused.value)
