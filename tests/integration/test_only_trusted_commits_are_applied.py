"""`--verify`: only commits signed by a trusted key are applied, and never a rewind.

Real keys made by the tests (tests/support/signing.py), commits signed by the real git,
signatures checked by the real gpg and ssh-keygen, driftctl run as the CronJob's
ServiceAccount against the real control plane:

- a commit signed by a trusted key (its primary key, a subkey of it, an SSH key of the
  allowed-signers file) is applied; the WebApp's status and the Lease say which commit was
  verified and by which key's fingerprint;
- refused, each with exit 3, one line naming the commit, its signer or "unsigned" and the
  reason, and nothing written (the resourceVersions of the WebApps, Deployments and the
  Lease are unchanged), by `apply` and by `plan` alike: an unsigned commit, one signed by
  an unknown key, by an expired key, by an SSH key outside the file, a signed tag over an
  unsigned commit, an unsigned commit below a signed head with `--verify all`;
- a force-push back to an older signed commit is refused, then applied with
  --allow-rewind; a saved plan's commit is verified when the plan is applied;
- `watch` applies a signed commit it polls, and keeps the last verified one when an
  unsigned one comes.
No output holds key material, and no keyring is left behind.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from driftctl import conventions as c
from tests.support.builders import webapps_yaml
from tests.support.harness import LOCK_NAMESPACE, Harness, Ran, eventually
from tests.support.signing import Keys, Signer, commit, made_keys, tag
from tests.support.watching import Watching, replicas, start

WATCH_ACCOUNT = "driftctl-watch-verify"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Keys]:
    with made_keys(tmp_path_factory.mktemp("keys")) as made:
        yield made


def verifying(keys: Keys, mode: str = "head") -> list[str]:
    return [
        *("--verify", mode, "--trusted-keys", str(keys.trusted_keys)),
        *("--allowed-signers", str(keys.allowed_signers)),
    ]


def declare(harness: Harness, replicas: int, signer: Signer | None, message: str) -> str:
    """Git declares shop with `replicas`, committed and signed by `signer`."""
    harness.repo.write({"apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", replicas)})})
    return commit(harness.repo, signer, message)


def lease(harness: Harness) -> dict[str, str]:
    found = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE) or {}
    return dict((found.get("metadata") or {}).get("annotations") or {})


def written(harness: Harness) -> dict[str, str]:
    """The resourceVersion of every WebApp and Deployment, and of the run lock's Lease."""
    found = harness.get("lease", c.lease_name(harness.instance), LOCK_NAMESPACE)
    return {**harness.versions(), "Lease": found["metadata"]["resourceVersion"] if found else ""}


def no_key_material(ran: Ran) -> None:
    for marker in ("BEGIN PGP", "PRIVATE KEY", "BEGIN SSH SIGNATURE"):
        assert marker not in ran.out + ran.err, ran.out + ran.err


def test_commits_signed_by_trusted_keys_are_applied_and_recorded(
    harness: Harness, keys: Keys, tmp_path: Path
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch)}
    for replicas_wanted, signer in ((1, keys.alice), (2, keys.alice_subkey), (3, keys.bob)):
        sha = declare(harness, replicas_wanted, signer, f"{signer.name} signs")

        ran = harness.driftctl("apply", *verifying(keys), env=env)

        assert ran.code == 0, ran.out + ran.err
        no_key_material(ran)
        status = (harness.get("webapp", "shop") or {})["status"]
        assert (status["lastVerifiedRevision"], status["lastVerifiedKey"]) == (
            sha,
            signer.fingerprint,
        )
        assert lease(harness) == {
            c.VERIFIED_REVISION_ANNOTATION: sha,
            c.VERIFIED_KEY_ANNOTATION: signer.fingerprint,
        }
    # A subkey signs for its primary key: the status names alice's primary fingerprint.
    assert keys.alice_subkey.fingerprint == keys.alice.fingerprint
    assert list(scratch.iterdir()) == [], "the keyring's temporary home is removed"

    planned = harness.driftctl("plan", *verifying(keys), "--lock-namespace", LOCK_NAMESPACE)
    assert planned.code == 0, planned.out + planned.err


@dataclass(frozen=True)
class Bad:
    """A change that --verify refuses, made on top of a trusted commit already applied."""

    make: Callable[[Harness, Keys], str]  # makes it; returns the ref to apply
    says: Callable[[Keys, str], str]  # what the one line says, given the refused commit
    mode: str = "head"


def _signed_by(who: str) -> Callable[[Harness, Keys], str]:
    def make(harness: Harness, keys: Keys) -> str:
        declare(harness, 5, getattr(keys, who), f"{who} signs")
        return "main"

    return make


def _tag_over_unsigned(harness: Harness, keys: Keys) -> str:
    declare(harness, 5, None, "unsigned")
    tag(harness.repo, keys.alice, "v2")
    return "v2"


def _unsigned_below_signed(harness: Harness, keys: Keys) -> str:
    declare(harness, 5, None, "unsigned, below")
    declare(harness, 6, keys.alice, "signed, on top")
    return "main"


def _head(harness: Harness) -> str:
    return harness.repo.git("rev-parse", "HEAD")


def _below(harness: Harness) -> str:
    return harness.repo.git("rev-parse", "HEAD~1")


BAD = {
    "unsigned": Bad(
        lambda harness, keys: _unsigned(harness),
        lambda k, sha: f"commit {sha[:12]} (unsigned): it carries no signature",
    ),
    "unknown key": Bad(
        _signed_by("mallory"),
        lambda k, sha: (
            f"commit {sha[:12]} (OpenPGP key {k.mallory.fingerprint}): the key is "
            "not one of --trusted-keys"
        ),
    ),
    "expired key": Bad(
        _signed_by("old"),
        lambda k, sha: f"commit {sha[:12]} (OpenPGP key {k.old.fingerprint}): the key has expired",
    ),
    "SSH signer outside the file": Bad(
        _signed_by("eve"),
        lambda k, sha: (
            f"commit {sha[:12]} (SSH key {k.eve.fingerprint}): the key is not in --allowed-signers"
        ),
    ),
    "signed tag over an unsigned commit": Bad(
        _tag_over_unsigned,
        lambda k, sha: f"commit {sha[:12]} (unsigned): it carries no signature",
    ),
    "unsigned commit below a signed head": Bad(
        _unsigned_below_signed,
        lambda k, sha: f"commit {sha[:12]} (unsigned): it carries no signature",
        mode="all",
    ),
}


def _unsigned(harness: Harness) -> str:
    declare(harness, 5, None, "unsigned")
    return "main"


@pytest.mark.parametrize("case", BAD.values(), ids=BAD.keys())
def test_a_refused_commit_writes_nothing_and_says_why_in_one_line(
    harness: Harness, keys: Keys, case: Bad
) -> None:
    trusted = declare(harness, 1, keys.alice, "trusted")
    assert harness.driftctl("apply", *verifying(keys, case.mode)).code == 0
    ref = case.make(harness, keys)
    refused = _below(harness) if case.mode == "all" else _head(harness)
    before = written(harness)

    ran = harness.driftctl("apply", "--ref", ref, *verifying(keys, case.mode))
    planned = harness.driftctl(
        "plan", "--ref", ref, *verifying(keys, case.mode), "--lock-namespace", LOCK_NAMESPACE
    )

    line = f"error: {case.says(keys, refused)}; not applied; the cluster stays at {trusted[:12]}"
    for each in (ran, planned):
        assert each.code == 3, each.out + each.err
        assert each.err.splitlines() == [line], each.err
        assert each.out == ""
        no_key_material(each)
    assert written(harness) == before
    assert replicas(harness, "shop") == 1
    assert lease(harness)[c.VERIFIED_REVISION_ANNOTATION] == trusted


def test_a_force_push_back_is_refused_then_applied_with_allow_rewind(
    harness: Harness, keys: Keys
) -> None:
    older = declare(harness, 1, keys.alice, "older")
    assert harness.driftctl("apply", *verifying(keys)).code == 0
    newer = declare(harness, 2, keys.alice, "newer")
    assert harness.driftctl("apply", *verifying(keys)).code == 0
    harness.repo.git("reset", "--quiet", "--hard", older)  # main forced back
    before = written(harness)

    ran = harness.driftctl("apply", *verifying(keys))

    assert ran.code == 3, ran.out + ran.err
    assert ran.err.splitlines() == [
        f"error: commit {older[:12]} (OpenPGP key {keys.alice.fingerprint}): it does not "
        f"descend from {newer[:12]}, the last revision applied (a force-push back, or another "
        f"branch; --allow-rewind applies it); not applied; the cluster stays at {newer[:12]}"
    ]
    assert written(harness) == before

    allowed = harness.driftctl("apply", *verifying(keys), "--allow-rewind")

    assert allowed.code == 0, allowed.out + allowed.err
    assert replicas(harness, "shop") == 1
    assert lease(harness)[c.VERIFIED_REVISION_ANNOTATION] == older


def test_a_saved_plan_is_verified_when_it_is_applied(
    harness: Harness, keys: Keys, tmp_path: Path
) -> None:
    trusted = declare(harness, 1, keys.alice, "trusted")
    assert harness.driftctl("apply", *verifying(keys)).code == 0
    unsigned = declare(harness, 2, None, "unsigned")
    saved = tmp_path / "plan.json"
    assert harness.driftctl("plan", "--out", str(saved)).code == 1  # made without --verify
    before = written(harness)

    ran = harness.driftctl("apply", "--plan", str(saved), *verifying(keys))

    assert ran.code == 3, ran.out + ran.err
    assert ran.err.splitlines() == [
        f"error: commit {unsigned[:12]} (unsigned): it carries no signature; not applied; "
        f"the cluster stays at {trusted[:12]}"
    ]
    assert written(harness) == before


def test_watch_applies_verified_commits_and_keeps_the_last_one_when_a_commit_is_refused(
    harness: Harness, keys: Keys, watch_kubeconfig: Path
) -> None:
    first = declare(harness, 1, keys.alice, "first")
    started: list[Watching] = []
    try:
        process = start(harness, watch_kubeconfig, started, *verifying(keys))
        assert eventually(lambda: replicas(harness, "shop") == 1, 60), process.log()
        unsigned = declare(harness, 4, None, "unsigned")
        assert eventually(lambda: process.said(f"commit {unsigned[:12]} (unsigned)"), 60)
        assert replicas(harness, "shop") == 1
        assert lease(harness)[c.VERIFIED_REVISION_ANNOTATION] == first

        signed = declare(harness, 2, keys.bob, "signed again")

        assert eventually(lambda: replicas(harness, "shop") == 2, 60), process.log()
        assert lease(harness)[c.VERIFIED_REVISION_ANNOTATION] == signed
        page = process._get("/metrics")[1]
        labels = f'key="{keys.bob.fingerprint}",revision="{signed}"'
        assert f"driftctl_verified_revision_info{{{labels}}} 1.0" in page, page
        assert process.stop() == 0, process.log()
    finally:
        for each in started:
            each.kill()
    refusal = [line for line in process.log().splitlines() if unsigned[:12] in line]
    assert refusal == [
        f"note: refused: commit {unsigned[:12]} (unsigned): it carries no signature; not applied; "
        f"the cluster stays at {first[:12]}"
    ], json.dumps(refusal)
