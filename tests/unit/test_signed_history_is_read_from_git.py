"""What --verify reads from Git, with real repositories and real keys: a shallow cache of a
URL fetches the history it needs (once) to tell descent and to list the commits between;
a shallow local clone that cannot is a clear error; a working tree with changes has no
commit to verify; the keys come only from the files named, and a long TMPDIR (where gpg's
keyring lives) changes nothing."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from driftctl.core.source.desired_state import DesiredState
from driftctl.errors import SourceError, UntrustedRevision, UsageError
from driftctl.pipeline import trust
from driftctl.pipeline.offline import load_desired
from driftctl.settings import Source, Verify
from tests.support.builders import webapps_yaml
from tests.support.gitrepos import Repo, git_env
from tests.support.signing import Keys, commit, made_keys


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Keys]:
    with made_keys(tmp_path_factory.mktemp("keys")) as made:
        yield made


def history(repo: Repo, keys: Keys, unsigned_at: int | None = None) -> list[str]:
    """Ten commits on main, signed by alice except the one at `unsigned_at`; their SHAs."""
    shas = []
    for index in range(10):
        repo.write({"apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", index)})})
        shas.append(commit(repo, None if index == unsigned_at else keys.alice, f"{index}"))
    return shas


def verified(source: Source, keys: Keys, anchor: str | None, mode: str = "all") -> DesiredState:
    settings = Verify(mode=mode, trusted_keys=keys.trusted_keys)
    environ = dict(os.environ)
    return trust.verify(
        load_desired(source, environ), trust.Checking(source, settings, environ), anchor
    )


def test_a_shallow_cache_fetches_the_history_between_once(tmp_path: Path, keys: Keys) -> None:
    repo = Repo(tmp_path / "served")
    shas = history(repo, keys, unsigned_at=4)
    source = Source(
        repo=f"file://{repo.path}", ref="main", path="apps", cache_dir=tmp_path / "cache"
    )

    assert verified(source, keys, anchor=shas[4]).revision.verified_by == keys.alice.fingerprint
    with pytest.raises(UntrustedRevision, match=rf"commit {shas[4][:12]} \(unsigned\)"):
        verified(source, keys, anchor=shas[2])
    with pytest.raises(UntrustedRevision, match=r"does not descend from"):
        verified(
            Source(repo=source.repo, ref=shas[7], path="apps", cache_dir=source.cache_dir),
            keys,
            shas[9],
        )


def test_a_shallow_local_clone_cannot_tell_and_says_so(tmp_path: Path, keys: Keys) -> None:
    served = Repo(tmp_path / "served")
    shas = history(served, keys)
    clone = tmp_path / "clone"  # as a CI checkout makes it
    subprocess.run(
        ["git", "clone", "--quiet", "--depth=2", f"file://{served.path}", str(clone)],
        env=git_env(),
        check=True,
    )
    source = Source(repo=str(clone), ref="main", path="apps")

    with pytest.raises(SourceError, match="is not in") as failed:
        verified(source, keys, anchor=shas[1])
    assert failed.value.hint == "a shallow clone: fetch its whole history (git fetch --unshallow)"


def test_a_working_tree_with_changes_has_no_commit_to_verify(tmp_path: Path, keys: Keys) -> None:
    repo = Repo(tmp_path / "repo")
    history(repo, keys)
    repo.write({"apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", 99)})})

    with pytest.raises(UsageError, match="--verify checks commits"):
        verified(Source(repo=str(repo.path), ref=None, path="apps"), keys, anchor=None)
    clean = Source(repo=str(repo.path), ref=None, path="apps")
    repo.git("checkout", "--", ".")
    assert verified(clean, keys, anchor=None, mode="head").revision.verified_by


def test_keys_come_only_from_the_folder_named(tmp_path: Path, keys: Keys) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write({"keys/alice.asc": (keys.trusted_keys / "alice.asc").read_text()})
    history(repo, keys)
    source = Source(repo=str(repo.path), ref="main", path="apps")
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "junk.asc").write_text("not a key\n")
    environ = dict(os.environ)
    desired = load_desired(source, environ)

    with pytest.raises(SourceError, match=r"holds no \*\.asc file"):
        trust.verify(
            desired, trust.Checking(source, Verify(mode="head", trusted_keys=empty), environ), None
        )
    with pytest.raises(SourceError, match="holds no OpenPGP public key gpg can import"):
        trust.verify(
            desired, trust.Checking(source, Verify(mode="head", trusted_keys=bad), environ), None
        )
    with pytest.raises(UntrustedRevision, match="no --trusted-keys was given"):
        trust.verify(
            desired,
            trust.Checking(
                source, Verify(mode="head", allowed_signers=keys.allowed_signers), environ
            ),
            None,
        )


def test_a_long_tmpdir_verifies_as_a_short_one_does(tmp_path: Path, keys: Keys) -> None:
    """gpg cannot reach an agent in a home whose socket path is longer than a unix socket's
    name may be (108 bytes) and exits 2 after importing: the key is imported all the same."""
    repo = Repo(tmp_path / "repo")
    shas = history(repo, keys)
    source = Source(repo=str(repo.path), ref="main", path="apps")
    long_tmpdir = tmp_path / ("t" * max(8, 120 - len(str(tmp_path))))  # 120 bytes or more
    long_tmpdir.mkdir()
    environ = {**os.environ, "TMPDIR": str(long_tmpdir)}
    checking = trust.Checking(source, Verify(mode="all", trusted_keys=keys.trusted_keys), environ)

    desired = trust.verify(load_desired(source, environ), checking, shas[0])

    assert desired.revision.verified_by == keys.alice.fingerprint
    assert list(long_tmpdir.iterdir()) == []  # the keyring's home is removed after its use
