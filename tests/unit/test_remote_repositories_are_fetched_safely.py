"""Remote repositories are fetched shallow into a cache from real Git servers on loopback,
and a token never leaks into output, errors or the cache's config."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from driftctl.core.source.tree import Snapshot, TreeEntryKind
from driftctl.errors import SourceError
from driftctl.settings import Source
from driftctl.shell.git_source import read_snapshot
from tests.support.builders import webapp
from tests.support.clirun import run_driftctl
from tests.support.gitrepos import Repo, git_daemon, http_git_server

TOKEN = "tok-7f3c9a1e5b"


@pytest.fixture
def served(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "served" / "apps.git").write({"deploy/web.yaml": webapp("web")})
    repo.commit("first")
    repo.tag("v1")
    return repo


@pytest.fixture
def daemon(served: Repo) -> Iterator[str]:
    with git_daemon(served.path.parent) as base:
        yield f"{base}/apps.git"


def fetch(url: str, cache: Path, ref: str | None = None, **env: str) -> Snapshot:
    environ = {**os.environ, **env}
    return read_snapshot(Source(repo=url, ref=ref, path="deploy", cache_dir=cache), environ)


def image_of(snapshot: Snapshot) -> bytes:
    (entry,) = [e for e in snapshot.entries if e.kind is TreeEntryKind.FILE]
    assert entry.data is not None
    return entry.data


def test_a_file_url_is_fetched_into_the_cache(served: Repo, tmp_path: Path) -> None:
    snapshot = fetch(f"file://{served.path}", tmp_path / "cache")
    assert snapshot.revision == served.git("rev-parse", "HEAD")
    assert snapshot.source == f"file://{served.path}#deploy"
    assert image_of(snapshot) == webapp("web").encode()


def test_git_daemon_serves_branches_tags_and_commits(
    daemon: str, served: Repo, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = served.git("rev-parse", "HEAD")
    served.write({"deploy/web.yaml": webapp("web", replicas=5)})
    second = served.commit("second")
    assert fetch(daemon, cache).revision == second
    assert fetch(daemon, cache, ref="main").revision == second
    assert fetch(daemon, cache, ref="v1").revision == first
    assert image_of(fetch(daemon, cache, ref=first)) == webapp("web").encode()


def test_the_cache_is_reused_and_updated_on_the_next_run(
    daemon: str, served: Repo, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    fetch(daemon, cache, ref="main")
    clones = list(cache.iterdir())
    served.write({"deploy/web.yaml": webapp("web", replicas=7)})
    newer = served.commit("newer")
    assert fetch(daemon, cache, ref="main").revision == newer
    assert list(cache.iterdir()) == clones
    assert (clones[0] / "shallow").exists(), "fetches are shallow"


@pytest.mark.parametrize(
    ("repo", "ref", "message"),
    [
        pytest.param(
            "{daemon}", "no-such-branch", "ref 'no-such-branch' not found", id="missing-ref"
        ),
        pytest.param("{base}/missing.git", None, "cannot fetch", id="missing-repository"),
        pytest.param("git://127.0.0.1:1/r.git", None, "cannot fetch", id="unreachable"),
    ],
)
def test_missing_or_unreachable_remotes_are_source_errors(
    daemon: str, tmp_path: Path, repo: str, ref: str | None, message: str
) -> None:
    url = repo.format(daemon=daemon, base=daemon.rsplit("/", 1)[0])
    with pytest.raises(SourceError, match=message):
        fetch(url, tmp_path / "cache", ref=ref)


def test_a_token_from_the_environment_authenticates_and_never_leaks(
    served: Repo,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "cache"
    with http_git_server(served.path.parent, "x-access-token", TOKEN) as (base, seen):
        monkeypatch.setenv("DRIFTCTL_GIT_TOKEN", TOKEN)
        args = [
            "validate",
            "--repo",
            f"{base}/apps.git",
            "--path",
            "deploy",
            "--cache-dir",
            str(cache),
        ]
        ran = run_driftctl([*args, "-o", "json"], capsys, monkeypatch)
    assert ran.code == 0, ran.err
    assert any(header.startswith("Basic ") for header in seen), "the server saw the credential"
    assert_no_leak(TOKEN, ran.out + ran.err, cache)


def test_a_token_in_the_url_is_moved_out_of_it_and_never_leaks(
    served: Repo,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.delenv("DRIFTCTL_GIT_TOKEN", raising=False)
    with http_git_server(served.path.parent, "bot", TOKEN) as (base, _seen):
        url = base.replace("http://", f"http://bot:{TOKEN}@") + "/apps.git"
        ran = run_driftctl(
            ["validate", "--repo", url, "--cache-dir", str(cache)], capsys, monkeypatch
        )
    assert ran.code == 0, ran.err
    assert f"{base}/apps.git#" in ran.out
    assert_no_leak(TOKEN, ran.out + ran.err, cache)


def test_a_wrong_token_is_refused_with_exit_4_and_no_leak(
    served: Repo,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "cache"
    wrong = "wrong-9d8e7f6a5b"
    with http_git_server(served.path.parent, "x-access-token", TOKEN) as (base, _seen):
        monkeypatch.setenv("DRIFTCTL_GIT_TOKEN", wrong)
        ran = run_driftctl(
            ["validate", "--repo", f"{base}/apps.git", "--cache-dir", str(cache)],
            capsys,
            monkeypatch,
        )
    assert ran.code == 4
    assert ran.err.startswith("error: cannot fetch")
    assert "Traceback" not in ran.err
    assert_no_leak(wrong, ran.out + ran.err, cache)


def assert_no_leak(secret: str, output: str, cache: Path) -> None:
    assert secret not in output
    for path in cache.rglob("*"):
        if path.is_file() and path.name in {"config", "FETCH_HEAD", "packed-refs"}:
            assert secret not in path.read_text(errors="replace"), path
