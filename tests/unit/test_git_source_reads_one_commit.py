"""A local repository is read from its working tree, or from the objects of one commit with
--ref; symlinks, submodules and escaping paths are refused with the path named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from driftctl.core.source.documents import load_documents
from driftctl.core.source.tree import Snapshot, TreeEntryKind
from driftctl.errors import SourceError, UsageError
from driftctl.settings import Source
from driftctl.shell.git_source import read_snapshot
from tests.support.builders import webapp
from tests.support.gitrepos import Repo, git_env


def read(repo: Path | str, ref: str | None = None, path: str = "") -> Snapshot:
    return read_snapshot(Source(repo=str(repo), ref=ref, path=path), os.environ)


def files(snapshot: Snapshot) -> dict[str, bytes | None]:
    return {
        entry.path: entry.data for entry in snapshot.entries if entry.kind is TreeEntryKind.FILE
    }


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    made = Repo(tmp_path / "repo").write(
        {"deploy/web.yaml": webapp("web"), "deploy/api.yml": webapp("api"), "README.md": "hi"}
    )
    made.commit("first")
    return made


def test_the_working_tree_is_read_with_the_head_sha(repo: Repo) -> None:
    snapshot = read(repo.path)
    assert set(files(snapshot)) == {"deploy/web.yaml", "deploy/api.yml"}
    assert snapshot.revision == repo.git("rev-parse", "HEAD")
    assert (snapshot.dirty, snapshot.label) == (False, snapshot.revision)
    assert snapshot.source == f"{repo.path}#"


def test_an_edited_working_tree_is_read_as_it_is_and_marked_dirty(repo: Repo) -> None:
    repo.write({"deploy/new.yaml": webapp("new")}).remove("deploy/api.yml")
    snapshot = read(repo.path, path="deploy")
    assert set(files(snapshot)) == {"deploy/web.yaml", "deploy/new.yaml"}
    assert snapshot.dirty
    assert snapshot.label == f"{repo.git('rev-parse', 'HEAD')}-dirty"


def test_changes_outside_the_path_do_not_make_it_dirty(repo: Repo) -> None:
    repo.write({"README.md": "changed"})
    assert not read(repo.path, path="deploy").dirty


def test_with_a_ref_the_commit_is_read_not_the_working_tree(repo: Repo) -> None:
    first = repo.git("rev-parse", "HEAD")
    repo.write({"deploy/web.yaml": webapp("web", replicas=9)}).commit("second")
    repo.write({"deploy/web.yaml": "not committed"})
    for ref in ("main~1", first, first[:10]):
        snapshot = read(repo.path, ref=ref)
        assert snapshot.revision == first
        assert files(snapshot)["deploy/web.yaml"] == webapp("web").encode()
    assert (
        files(read(repo.path, ref="main"))["deploy/web.yaml"] == webapp("web", replicas=9).encode()
    )


def test_an_annotated_tag_resolves_to_its_commit(repo: Repo) -> None:
    repo.tag("v1")
    assert read(repo.path, ref="v1").revision == repo.git("rev-parse", "HEAD")


def test_a_subfolder_of_a_repository_reads_that_folder(repo: Repo) -> None:
    snapshot = read(repo.path / "deploy")
    assert set(files(snapshot)) == {"deploy/web.yaml", "deploy/api.yml"}
    assert snapshot.source.endswith("#deploy")


def test_hidden_folders_are_not_desired_state(repo: Repo) -> None:
    repo.write({".github/workflows/ci.yml": "on: push\n"}).commit()
    assert ".github/workflows/ci.yml" not in files(read(repo.path, ref="main"))


def test_a_repository_without_commits_reads_as_uncommitted(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "new").write({"w.yaml": webapp("w")})
    snapshot = read(repo.path)
    assert (snapshot.revision, snapshot.label) == (None, "uncommitted")
    assert set(files(snapshot)) == {"w.yaml"}


@pytest.mark.parametrize("ref", [None, "main"], ids=["working-tree", "ref"])
def test_symlinks_are_refused_with_the_path_named(repo: Repo, ref: str | None) -> None:
    repo.symlink("deploy/secret.yaml", "/etc/passwd").symlink("deploy/more", "../elsewhere")
    repo.commit()
    problems = [str(p) for p in load_documents(read(repo.path, ref=ref).entries).problems]
    reason = "symlinks are refused: they can point outside the folder; commit the file itself"
    assert problems == [f"deploy/more:1:1: {reason}", f"deploy/secret.yaml:1:1: {reason}"]


@pytest.mark.parametrize("ref", [None, "main"], ids=["working-tree", "ref"])
def test_submodules_are_refused_with_the_path_named(
    tmp_path: Path, repo: Repo, ref: str | None
) -> None:
    other = Repo(tmp_path / "other").write({"x.yaml": webapp("x")})
    other.commit()
    repo.git(
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "--quiet",
        str(other.path),
        "deploy/sub",
    )
    repo.commit("submodule")
    problems = [str(p) for p in load_documents(read(repo.path, ref=ref).entries).problems]
    assert problems == [
        "deploy/sub:1:1: submodules are refused: their content is another repository's;"
        " use --path or --repo"
    ]


@pytest.mark.parametrize("path", ["../repo", "/etc", "deploy/../../x"])
def test_a_path_escaping_the_repository_is_refused(repo: Repo, path: str) -> None:
    with pytest.raises(UsageError, match="must be a folder inside the repository"):
        read(repo.path, path=path)


@pytest.mark.parametrize("ref", [None, "main"], ids=["working-tree", "ref"])
def test_a_missing_path_is_an_error_not_an_empty_state(repo: Repo, ref: str | None) -> None:
    with pytest.raises(SourceError, match="--path 'deplyo' does not exist"):
        read(repo.path, ref=ref, path="deplyo")


@pytest.mark.parametrize(
    ("where", "ref", "message"),
    [
        pytest.param("missing", None, "does not exist", id="missing-folder"),
        pytest.param("plain", None, "is not a Git repository", id="not-a-repository"),
        pytest.param("repo", "no-such-branch", "ref 'no-such-branch' not found", id="missing-ref"),
    ],
)
def test_unreadable_sources_are_source_errors(
    tmp_path: Path, repo: Repo, where: str, ref: str | None, message: str
) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(SourceError, match=message):
        read(tmp_path / where, ref=ref)


@pytest.mark.parametrize("ref", ["-c", "--upload-pack=x", "a b", ""])
def test_option_like_refs_are_refused(repo: Repo, ref: str) -> None:
    with pytest.raises(UsageError, match="is not a branch, tag or commit name"):
        read(repo.path, ref=ref)


def test_inherited_git_variables_cannot_redirect_the_read(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoy = Repo(tmp_path / "decoy").write({"evil.yaml": webapp("evil")})
    decoy.commit()
    monkeypatch.setenv("GIT_DIR", str(decoy.path / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(decoy.path))
    assert "evil.yaml" not in files(read(repo.path, ref="main"))
    assert "evil.yaml" not in files(read(repo.path))


def test_a_bare_repository_reads_its_head(repo: Repo, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    repo.git("clone", "--quiet", "--bare", str(repo.path), str(bare))
    assert set(files(read(bare))) == {"deploy/web.yaml", "deploy/api.yml"}
    assert git_env()["GIT_AUTHOR_NAME"] == "Test"
