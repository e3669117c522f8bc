"""What a run applies is a commit of a whole folder, unless a person says otherwise.

- A working tree with changes not committed under --path (or no commit at all) is refused
  by `apply` (exit 2, as cargo's `publish` refuses one), unless `--allow-dirty`; `plan`
  shows it, with a warning.
- A --path that names a file is refused by the commands that prune (`plan`, `apply`):
  from one file, every WebApp the other files declare would be pruned (kubectl's `-f FILE`
  habit). `validate` reads a single file gladly.

Each refusal comes before the cluster is touched: the kubeconfig named does not exist,
so reaching it would exit 4.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import webapp
from tests.support.clirun import Ran, run_driftctl
from tests.support.gitrepos import Repo

NOWHERE = ["--kubeconfig", "/nonexistent/kubeconfig"]


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    made = Repo(tmp_path / "repo").write(
        {"apps/shop.yaml": webapp("shop"), "apps/blog.yaml": webapp("blog")}
    )
    made.commit("two webapps")
    return made


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> Ran:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    return run_driftctl(args, capsys, monkeypatch)


def test_a_dirty_working_tree_is_refused_by_apply_unless_allowed(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write({"apps/shop.yaml": webapp("shop", replicas=5)})
    head = repo.git("rev-parse", "HEAD")
    where = ["--repo", str(repo.path), "--path", "apps", *NOWHERE]

    refused = run(capsys, monkeypatch, "apply", *where)
    allowed = run(capsys, monkeypatch, "apply", *where, "--allow-dirty")

    assert refused.code == 2
    assert refused.err.splitlines() == [
        f"error: the working tree of {repo.path} has changes under apps that are not "
        f"committed ({head[:12]}-dirty); apply applies commits",
        "hint: commit them (or pass --ref to apply a commit), or pass --allow-dirty to apply "
        "the working tree as it is",
    ]
    assert allowed.code == 4  # on to the cluster, which it cannot reach
    assert "kubeconfig /nonexistent/kubeconfig does not exist" in allowed.err


def test_plan_shows_a_dirty_working_tree_with_a_warning(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write({"apps/shop.yaml": webapp("shop", replicas=5)})
    head = repo.git("rev-parse", "HEAD")

    planned = run(capsys, monkeypatch, "plan", "--repo", str(repo.path), "--path", "apps", *NOWHERE)

    assert planned.code == 4  # not refused: on to the cluster
    assert planned.err.splitlines()[0] == (
        f"warning: the working tree of {repo.path} has changes under apps that are not "
        f"committed ({head[:12]}-dirty): apply needs --allow-dirty for it"
    )


@pytest.mark.parametrize("command", ["plan", "apply"])
@pytest.mark.parametrize("ref", [[], ["--ref", "main"]], ids=["working-tree", "commit"])
def test_a_file_as_path_is_refused_so_that_it_never_prunes_the_other_files(
    repo: Repo,
    command: str,
    ref: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran = run(
        capsys, monkeypatch, command, "--repo", str(repo.path), "--path", "apps/shop.yaml",
        *ref, *NOWHERE,
    )  # fmt: skip

    assert ran.code == 2
    assert ran.err.splitlines() == [
        "error: --path apps/shop.yaml is a file: a run makes the cluster equal to a whole "
        "folder, and would prune every WebApp the other files declare",
        "hint: give its folder, and name the WebApps to act on: --path apps shop",
    ]


def test_validate_reads_a_single_file(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run(capsys, monkeypatch, "validate", "--repo", str(repo.path), "--path", "apps/shop.yaml")

    assert ran.code == 0, ran.err
    assert ran.out.startswith("valid: 1 WebApp in 1 file")
