"""The Git shell on GitPython keeps what the hand-run git gave: a repository with SHA-256
object names refused by name, a --path read as a path (never a pattern), a manifest over
the size bound skipped without losing the files after it, GitPython's refusals of unsafe
URLs and options, inherited GIT_* variables dropped at start-up, and every repository it
opens closed again (no cat-file process, no pipe left behind)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from driftctl.core.source.tree import MAX_FILE_BYTES, Snapshot, TreeEntryKind
from driftctl.errors import SourceError
from driftctl.settings import Source
from driftctl.shell import git_repo
from driftctl.shell.git_source import head_of, read_snapshot
from tests.support.builders import webapp
from tests.support.gitrepos import Repo, git_env
from tests.support.paths import ROOT
from tests.support.processes import children, open_files


def read(
    repo: Path | str, ref: str | None = None, path: str = "", cache_dir: Path | None = None
) -> Snapshot:
    source = Source(repo=str(repo), ref=ref, path=path, cache_dir=cache_dir)
    return read_snapshot(source, os.environ)


def files(snapshot: Snapshot) -> dict[str, bytes | None]:
    return {e.path: e.data for e in snapshot.entries if e.kind is TreeEntryKind.FILE}


@pytest.fixture
def sha256(tmp_path: Path) -> Path:
    folder = tmp_path / "sha256"
    folder.mkdir()
    env = git_env()
    for args in (
        ["init", "--quiet", "--object-format=sha256", "--initial-branch=main"],
        ["add", "."],
        ["commit", "--quiet", "-m", "first"],
    ):
        (folder / "web.yaml").write_text(webapp("web"))
        subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)
    return folder


@pytest.mark.parametrize("ref", [None, "main"], ids=["working-tree", "ref"])
def test_a_sha256_repository_is_refused_by_name(sha256: Path, ref: str | None) -> None:
    with pytest.raises(SourceError, match="uses SHA256 object names") as refused:
        read(sha256, ref=ref)
    assert refused.value.hint is not None
    assert "SHA-1" in refused.value.hint


def test_a_sha256_repository_behind_a_url_is_refused_saying_why(
    sha256: Path, tmp_path: Path
) -> None:
    with pytest.raises(SourceError, match="mismatched algorithms") as refused:
        read(f"file://{sha256}", cache_dir=tmp_path / "cache")
    assert refused.value.hint is not None
    assert "SHA-256" in refused.value.hint


@pytest.mark.parametrize("ref", [None, "main"], ids=["working-tree", "ref"])
def test_a_path_is_read_as_a_path_never_as_a_pattern(tmp_path: Path, ref: str | None) -> None:
    repo = Repo(tmp_path / "repo").write({"a*/x.yaml": webapp("x"), "ab/y.yaml": webapp("y")})
    repo.commit()

    assert set(files(read(repo.path, ref=ref, path="a*"))) == {"a*/x.yaml"}


def test_a_manifest_over_the_bound_is_skipped_and_the_files_after_it_are_read(
    tmp_path: Path,
) -> None:
    big = b"# padding\n" * (MAX_FILE_BYTES // 10 + 1)
    repo = Repo(tmp_path / "repo").write(
        {"a.yaml": webapp("a"), "b-big.yaml": big, "c.yaml": webapp("c")}
    )
    repo.commit()

    read_back = files(read(repo.path, ref="main"))

    assert read_back == {
        "a.yaml": webapp("a").encode(),
        "b-big.yaml": None,
        "c.yaml": webapp("c").encode(),
    }


@pytest.mark.parametrize(
    ("url", "refs", "options", "refused"),
    [
        pytest.param("ext::sh -c id", (), (), "ext", id="ext-url"),
        pytest.param("https://host/r", ("ext::sh -c id",), (), "ext", id="ext-ref"),
        pytest.param("https://host/r", (), ("--upload-pack=touch x",), "upload-pack", id="upl"),
    ],
)
def test_gitpython_refuses_unsafe_protocols_and_options_for_fetch_and_ls_remote(
    url: str, refs: tuple[str, ...], options: tuple[str, ...], refused: str
) -> None:
    with pytest.raises(SourceError, match=f"refused by GitPython: .*{refused}"):
        git_repo.refuse_unsafe(url, *refs, options=options)


def test_git_variables_inherited_at_start_up_cannot_redirect_the_run(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo").write({"deploy/web.yaml": webapp("web")})
    repo.commit()
    decoy = Repo(tmp_path / "decoy").write({"deploy/evil.yaml": webapp("evil")})
    decoy.commit()
    inherited = {
        "GIT_DIR": str(decoy.path / ".git"),
        "GIT_WORK_TREE": str(decoy.path),
        "GIT_INDEX_FILE": str(decoy.path / ".git" / "index"),
        "GIT_OBJECT_DIRECTORY": str(decoy.path / ".git" / "objects"),
    }
    for ref in ([], ["--ref", "main"]):
        ran = subprocess.run(
            [sys.executable, "-m", "driftctl", "validate", "--repo", str(repo.path), *ref],
            cwd=ROOT,
            env={**os.environ, **inherited},
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.startswith("valid: 1 WebApp in 1 file"), ran.stdout


def test_every_repository_opened_is_closed_again(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo").write({"deploy/web.yaml": webapp("web")})
    repo.commit()
    source = Source(repo=str(repo.path), ref="main", path="deploy")
    read_snapshot(source, os.environ)
    me = os.getpid()
    before = (open_files(me), children(me))

    for round_ in range(30):
        repo.write({"deploy/web.yaml": webapp("web", replicas=round_ + 1)}).commit()
        assert head_of(source, os.environ) == repo.git("rev-parse", "HEAD")
        assert files(read_snapshot(source, os.environ))

    # Equal, not zero: in the whole suite this process may hold other tests' servers.
    assert (open_files(me), children(me)) == before
