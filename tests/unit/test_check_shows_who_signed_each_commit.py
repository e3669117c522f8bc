"""`check --verify`: each commit of the pull request with its signer or "unsigned", so a
reviewer sees it before merging, and `--fail-on unsigned|untrusted` fails on it. Real keys,
real signed commits, the command line as CI runs it (without a cluster)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.builders import webapps_yaml
from tests.support.clirun import run_driftctl
from tests.support.gitrepos import Repo
from tests.support.signing import Keys, commit, made_keys


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Keys]:
    with made_keys(tmp_path_factory.mktemp("keys")) as made:
        yield made


@pytest.fixture
def pull_request(tmp_path: Path, keys: Keys) -> tuple[Repo, list[str]]:
    """main: one signed commit; feature: signed by alice, unsigned, signed by mallory, then
    signed by bob (SSH). The commits, newest first."""
    repo = Repo(tmp_path / "repo")
    repo.write({"apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", 1)})})
    commit(repo, keys.alice, "base")
    repo.git("checkout", "--quiet", "-b", "feature")
    shas = []
    for replicas, signer in ((2, keys.alice), (3, None), (4, keys.mallory), (5, keys.bob)):
        repo.write({"apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", replicas)})})
        shas.append(commit(repo, signer, f"to {replicas}"))
    return repo, shas[::-1]


def check(repo: Repo, keys: Keys, *extra: str) -> list[str]:
    return [
        *("check", "--repo", str(repo.path), "--path", "apps", "--base", "main"),
        *("--head", "feature", "--verify", "all", "--trusted-keys", str(keys.trusted_keys)),
        *("--allowed-signers", str(keys.allowed_signers), *extra),
    ]


def test_each_commit_is_listed_with_its_signer_and_unsigned_fails_the_check(
    pull_request: tuple[Repo, list[str]],
    keys: Keys,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, (bob, mallory, unsigned, alice) = pull_request

    ran = run_driftctl(check(repo, keys, "--fail-on", "unsigned"), capsys, monkeypatch)

    assert ran.code == 1, ran.out + ran.err
    lines = ran.out.splitlines()
    assert [line for line in lines if line.startswith("[")] == [
        f"[trusted] commit {bob[:12]}: signed by SSH key {keys.bob.fingerprint} "
        "(bob@example.invalid)",
        f"[untrusted] commit {mallory[:12]}: signed by OpenPGP key {keys.mallory.fingerprint}: "
        "the key is not one of --trusted-keys",
        f"[unsigned] commit {unsigned[:12]}: it carries no signature",
        f"[trusted] commit {alice[:12]}: signed by OpenPGP key {keys.alice.fingerprint}",
    ]
    assert "Commits: 4 signatures checked: 2 trusted, 1 unsigned, 1 untrusted" in lines
    assert lines[-1] == "Fails on: unsigned (--fail-on unsigned)"


def test_the_json_and_the_comment_show_the_commits_too(
    pull_request: tuple[Repo, list[str]],
    keys: Keys,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, (_bob, mallory, unsigned, _alice) = pull_request

    as_json = run_driftctl(
        check(repo, keys, "-o", "json", "--fail-on", "untrusted"), capsys, monkeypatch
    )
    comment = run_driftctl(
        check(repo, keys, "-o", "markdown", "--fail-on", ""), capsys, monkeypatch
    )

    assert as_json.code == 1
    report = json.loads(as_json.out)
    assert [(each["sha"], each["countsAs"]) for each in report["commits"]][1:3] == [
        (mallory, "untrusted"),
        (unsigned, "unsigned"),
    ]
    assert report["commits"][1]["fingerprint"] == keys.mallory.fingerprint
    assert report["failedOn"] == ["untrusted"]
    assert comment.code == 0
    assert "> **2 commits not signed by a trusted key**" in comment.out
    assert f"> - [unsigned] commit {unsigned[:12]}: it carries no signature" in comment.out


def test_in_head_mode_the_head_and_the_tag_it_names_are_checked(
    pull_request: tuple[Repo, list[str]],
    keys: Keys,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, (bob, *_) = pull_request
    repo.git("tag", "-a", "-m", "v1", "v1", "feature")  # an unsigned annotated tag
    args = check(repo, keys, "--fail-on", "unsigned")
    args[args.index("feature")] = "v1"
    args[args.index("all")] = "head"

    ran = run_driftctl(args, capsys, monkeypatch)

    assert ran.code == 1
    assert f"[trusted] commit {bob[:12]}" in ran.out
    assert "[unsigned] tag v1 (" in ran.out


def test_fail_on_unsigned_without_verify_is_a_usage_error(
    pull_request: tuple[Repo, list[str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _ = pull_request
    args = ["check", "--repo", str(repo.path), "--base", "main", "--head", "feature"]

    ran = run_driftctl([*args, "--fail-on", "unsigned"], capsys, monkeypatch)

    assert ran.code == 2
    assert "--fail-on unsigned needs --verify head or --verify all" in ran.err
