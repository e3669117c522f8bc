"""Git credentials from files, the way a Pod gets them from a mounted Secret.

A token file (`--git-token-file`, `DRIFTCTL_GIT_TOKEN_FILE`) authenticates against a real
`git http-backend` on loopback; an SSH key with its known_hosts (`--git-ssh-key-file`,
`--git-known-hosts-file`) against a real OpenSSH sshd on loopback. Neither secret reaches
the output, the cache, or the argv of any process driftctl starts: a `git` on PATH that
records its argv before running the real one shows what a process list would.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from driftctl.shell.git_auth import secrets_of
from tests.support.builders import webapp
from tests.support.clirun import Ran, run_driftctl
from tests.support.gitrepos import Repo, SshServer, http_git_server, ssh_git_server

TOKEN = "tok-5c1d8e2f7a"
USERNAME = "x-access-token"
Driftctl = Callable[[Sequence[str]], Ran]


@pytest.fixture(autouse=True)
def no_token_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's DRIFTCTL_GIT_TOKEN must not stand in for the files under test."""
    monkeypatch.delenv("DRIFTCTL_GIT_TOKEN", raising=False)
    monkeypatch.delenv("DRIFTCTL_GIT_TOKEN_FILE", raising=False)


@pytest.fixture
def driftctl(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Driftctl:
    """`driftctl ARGS` in this process: exit code, stdout, stderr."""
    return lambda args: run_driftctl(args, capsys, monkeypatch)


@pytest.fixture
def served(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "served" / "apps.git").write({"deploy/web.yaml": webapp("web")})
    repo.commit("first")
    return repo


@pytest.fixture
def recorded_argv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first on PATH that appends its argv to a file, then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    folder, log = tmp_path / "recording", tmp_path / "argv.log"
    folder.mkdir()
    shim = folder / "git"
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\nexec {real} "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    """The token as `kubectl create secret --from-file` mounts it: with its line end."""
    path = tmp_path / "secret" / "token"
    path.parent.mkdir()
    path.write_text(TOKEN + "\n")
    return path


def validate(repo: str, cache: Path, *flags: str) -> list[str]:
    return ["validate", "--repo", repo, "--path", "deploy", "--cache-dir", str(cache), *flags]


def assert_nowhere(secret: str, output: str, cache: Path, argv_log: Path) -> None:
    """`secret` (and its Basic header form) is not in the output, the cache or any argv."""
    forms = [secret, base64.b64encode(f"{USERNAME}:{secret}".encode()).decode()]
    places = {"output": output, "argv": argv_log.read_text()}
    for path in cache.rglob("*"):
        if path.is_file():
            places[str(path)] = path.read_bytes().decode(errors="replace")
    for form in forms:
        for where, text in places.items():
            assert form not in text, f"the secret is in {where}"


def test_a_token_file_authenticates_and_is_nowhere_else(
    served: Repo,
    token_file: Path,
    recorded_argv: Path,
    tmp_path: Path,
    driftctl: Driftctl,
) -> None:
    cache = tmp_path / "cache"
    with http_git_server(served.path.parent, USERNAME, TOKEN) as (base, seen):
        args = validate(f"{base}/apps.git", cache, "--git-token-file", str(token_file))
        ran = driftctl(args)

    assert ran.code == 0, ran.err
    assert "valid: 1 WebApp" in ran.out
    expected = "Basic " + base64.b64encode(f"{USERNAME}:{TOKEN}".encode()).decode()
    assert expected in seen, "the server saw the token from the file, line end stripped"
    assert "fetch" in recorded_argv.read_text(), "the recording saw git's argv"
    assert_nowhere(TOKEN, ran.out + ran.err, cache, recorded_argv)


def test_the_token_file_is_named_by_its_environment_variable_in_a_pod(
    served: Repo,
    token_file: Path,
    tmp_path: Path,
    driftctl: Driftctl,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DRIFTCTL_GIT_TOKEN_FILE", str(token_file))
    with http_git_server(served.path.parent, USERNAME, TOKEN) as (base, _seen):
        ran = driftctl(validate(f"{base}/apps.git", tmp_path / "cache"))

    assert ran.code == 0, ran.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(None, "No such file or directory", id="missing"),
        pytest.param("\n", "is empty", id="empty"),
        pytest.param(b"\xff\xfe", "not UTF-8 text", id="not-text"),
    ],
)
def test_an_unusable_token_file_is_exit_4_naming_the_file_and_the_flag(
    served: Repo,
    tmp_path: Path,
    driftctl: Driftctl,
    content: str | bytes | None,
    message: str,
) -> None:
    path = tmp_path / "token"
    if content is not None:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with http_git_server(served.path.parent, USERNAME, TOKEN) as (base, seen):
        args = validate(f"{base}/apps.git", tmp_path / "cache", "--git-token-file", str(path))
        ran = driftctl(args)

    assert ran.code == 4
    first = ran.err.splitlines()[0]
    assert first.startswith("error: ")
    assert str(path) in first
    assert "--git-token-file" in first
    assert message in first
    assert "Traceback" not in ran.err
    assert seen == [], "nothing was fetched"


def test_a_token_from_both_the_environment_and_a_file_is_a_usage_error(
    token_file: Path, tmp_path: Path, driftctl: Driftctl, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIFTCTL_GIT_TOKEN", "another")
    args = validate("https://git.example.invalid/apps.git", tmp_path / "cache")

    ran = driftctl([*args, "--git-token-file", str(token_file)])

    assert ran.code == 2
    assert "DRIFTCTL_GIT_TOKEN and --git-token-file cannot be used together" in ran.err


def test_the_token_from_a_file_is_among_the_secrets_a_log_redacts(token_file: Path) -> None:
    secrets = secrets_of("https://git.example.invalid/apps.git", {}, token_file)

    assert TOKEN in secrets
    assert base64.b64encode(f"{USERNAME}:{TOKEN}".encode()).decode() in secrets
    assert secrets_of("https://git.example.invalid/a.git", {}, token_file.parent / "none") == ()


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[SshServer]:
    with ssh_git_server(tmp_path / "sshd") as server:
        yield server


def ssh_flags(key: Path, known_hosts: Path) -> list[str]:
    return ["--git-ssh-key-file", str(key), "--git-known-hosts-file", str(known_hosts)]


def test_an_ssh_key_with_known_hosts_fetches_over_ssh_and_nothing_is_written_to_them(
    served: Repo,
    sshd: SshServer,
    recorded_argv: Path,
    tmp_path: Path,
    driftctl: Driftctl,
) -> None:
    cache = tmp_path / "cache"
    known_before = sshd.known_hosts.read_bytes()
    flags = ssh_flags(sshd.client_key, sshd.known_hosts)

    ran = driftctl(validate(f"{sshd.base}{served.path}", cache, *flags))

    assert ran.code == 0, ran.err
    assert f"valid: 1 WebApp in 1 file ({sshd.base}{served.path}#deploy" in ran.out
    assert sshd.known_hosts.read_bytes() == known_before
    private_key = sshd.client_key.read_text()
    assert_nowhere(private_key.splitlines()[1], ran.out + ran.err, cache, recorded_argv)


def test_relative_ssh_key_and_known_hosts_paths_are_read_from_where_driftctl_runs(
    served: Repo,
    sshd: SshServer,
    tmp_path: Path,
    driftctl: Driftctl,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(sshd.known_hosts.parent)  # git itself runs ssh in the cache repository
    flags = ssh_flags(Path(sshd.client_key.name), Path(sshd.known_hosts.name))

    ran = driftctl(validate(f"{sshd.base}{served.path}", tmp_path / "cache", *flags))

    assert ran.code == 0, ran.err


SSH_REFUSALS = {"host key": "Host key verification failed", "client key": "Permission denied"}


@pytest.mark.parametrize("refused", SSH_REFUSALS)
def test_ssh_refuses_an_unlisted_host_key_and_an_unauthorized_client_key_with_exit_4(
    served: Repo, sshd: SshServer, tmp_path: Path, driftctl: Driftctl, refused: str
) -> None:
    known_hosts = sshd.other_known_hosts if refused == "host key" else sshd.known_hosts
    key = sshd.client_key
    if refused == "client key":
        key = tmp_path / "stranger"
        shutil.copy(sshd.known_hosts.parent / "other", key)
    known_before = known_hosts.read_bytes()
    args = validate(f"{sshd.base}{served.path}", tmp_path / "cache", *ssh_flags(key, known_hosts))

    ran = driftctl(args)

    assert ran.code == 4
    assert ran.err.startswith("error: cannot fetch")
    assert SSH_REFUSALS[refused] in ran.err
    assert "Traceback" not in ran.err
    assert known_hosts.read_bytes() == known_before, "an unknown host key is never added"


@pytest.mark.parametrize(
    ("repo", "message"),
    [
        pytest.param(
            "https://git.example.invalid/apps.git",
            "work only with ssh:// and user@host:path URLs, not https://",
            id="ssh-key-with-https",
        ),
        pytest.param(
            "ssh://git@127.0.0.1:1/apps.git", "cannot read {missing}", id="missing-key-file"
        ),
    ],
)
def test_an_ssh_key_that_cannot_be_used_is_exit_4_before_ssh_runs(
    sshd: SshServer,
    tmp_path: Path,
    driftctl: Driftctl,
    repo: str,
    message: str,
) -> None:
    missing = tmp_path / "no-such-key"
    key = sshd.client_key if repo.startswith("https") else missing
    args = validate(repo, tmp_path / "cache", *ssh_flags(key, sshd.known_hosts))

    ran = driftctl(args)

    assert ran.code == 4
    assert message.format(missing=missing) in ran.err.splitlines()[0]
