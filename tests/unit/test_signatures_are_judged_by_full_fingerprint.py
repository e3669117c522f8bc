"""What a signature says, judged in the core: gpg's status lines and ssh-keygen's answers
become a verdict naming the signer by its full fingerprint; only a good signature by a
trusted key (a primary key of --trusted-keys or one of its subkeys, an SSH key of
--allowed-signers) that is neither expired nor revoked is trusted. The status lines are
gpg 2.2's, captured from real runs."""

from __future__ import annotations

import pytest

from driftctl.core.source.signatures import (
    Failure,
    OpenPgpKey,
    Scheme,
    SignedObject,
    SshAnswers,
    commit_object,
    keyring,
    openpgp_verdict,
    refusal,
    ssh_verdict,
    tag_object,
    unjudged,
    unsigned,
)

PRIMARY = "8F648C437907FB5C359E16D0A58E1E1A40B7A2F6"
SUBKEY = "64780B3EBBF8A2677F9FA26A77333FF8A6419936"
OTHER = "BB5286F29D020510EC531E8100A2971DF804FFDB"
TRUSTED = (OpenPgpKey(PRIMARY, (SUBKEY,)),)
SHA = "1a2b3c4d5e6f" + "0" * 28
SIGNATURE = b"-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"
SUBJECT = SignedObject(SHA, "commit", b"tree x\n\nmessage\n", SIGNATURE)


def good(signing: str, primary: str, extra: str = "") -> str:
    return (
        "[GNUPG:] NEWSIG\n"
        f"[GNUPG:] KEY_CONSIDERED {primary} 0\n{extra}"
        f"[GNUPG:] GOODSIG {signing[-16:]} Alice <alice@example.invalid>\n"
        f"[GNUPG:] VALIDSIG {signing} 2026-12-01 1796151908 0 4 0 22 8 00 {primary}\n"
    )


@pytest.mark.parametrize(
    ("status", "keys", "failure", "fingerprint"),
    [
        pytest.param(good(PRIMARY, PRIMARY), TRUSTED, None, PRIMARY, id="primary"),
        pytest.param(good(SUBKEY, PRIMARY), TRUSTED, None, PRIMARY, id="subkey-of-a-trusted-key"),
        pytest.param(
            good(SUBKEY, PRIMARY),
            (OpenPgpKey(PRIMARY),),
            Failure.UNKNOWN_KEY,
            PRIMARY,
            id="a-subkey-the-keyring-does-not-list-under-it",
        ),
        pytest.param(good(OTHER, OTHER), TRUSTED, Failure.UNKNOWN_KEY, OTHER, id="another-primary"),
        pytest.param(
            good(OTHER, OTHER),
            (OpenPgpKey(OTHER[:-1] + "0"),),
            Failure.UNKNOWN_KEY,
            OTHER,
            id="fingerprints-match-in-full-only",
        ),
        pytest.param(
            good(PRIMARY, PRIMARY).replace("GOODSIG", "EXPKEYSIG"),
            TRUSTED,
            Failure.EXPIRED,
            PRIMARY,
            id="expired-key",
        ),
        pytest.param(
            good(PRIMARY, PRIMARY),
            (OpenPgpKey(PRIMARY, (SUBKEY,), expired=True),),
            Failure.EXPIRED,
            PRIMARY,
            id="listed-as-expired",
        ),
        pytest.param(
            good(SUBKEY, PRIMARY).replace("GOODSIG", "REVKEYSIG"),
            TRUSTED,
            Failure.REVOKED,
            PRIMARY,
            id="revoked-key",
        ),
        pytest.param(
            good(PRIMARY, PRIMARY),
            (OpenPgpKey(PRIMARY, revoked=True),),
            Failure.REVOKED,
            PRIMARY,
            id="listed-as-revoked",
        ),
        pytest.param(
            good(PRIMARY, PRIMARY, "[GNUPG:] EXPSIG x\n"),
            TRUSTED,
            Failure.EXPIRED,
            PRIMARY,
            id="expired-signature",
        ),
        pytest.param(
            "[GNUPG:] NEWSIG\n[GNUPG:] BADSIG 77333FF8A6419936 Alice\n",
            TRUSTED,
            Failure.BAD,
            None,
            id="bad-signature",
        ),
        pytest.param(
            "[GNUPG:] NEWSIG\n"
            f"[GNUPG:] ERRSIG 77333FF8A6419936 22 8 00 1796151908 9 {SUBKEY}\n"
            "[GNUPG:] NO_PUBKEY 77333FF8A6419936\n",
            (),
            Failure.UNKNOWN_KEY,
            SUBKEY,
            id="key-not-in-the-keyring",
        ),
        pytest.param(
            "[GNUPG:] NEWSIG\n[GNUPG:] ERRSIG 77333FF8A6419936 22 8 00 1796151908 4\n",
            TRUSTED,
            Failure.BAD,
            None,
            id="gpg-cannot-check-it",
        ),
        pytest.param("", TRUSTED, Failure.BAD, None, id="gpg-said-nothing"),
    ],
)
def test_an_openpgp_signature_is_trusted_only_from_a_trusted_key_in_full(
    status: str, keys: tuple[OpenPgpKey, ...], failure: Failure | None, fingerprint: str | None
) -> None:
    verdict = openpgp_verdict(SUBJECT, status, keys)

    assert verdict.failure is failure
    assert verdict.fingerprint == fingerprint
    assert verdict.trusted is (failure is None)


def test_a_trusted_verdict_names_the_primary_key_a_subkey_signed_for() -> None:
    verdict = openpgp_verdict(SUBJECT, good(SUBKEY, PRIMARY), TRUSTED)

    assert verdict.signer == f"OpenPGP key {PRIMARY}"
    assert verdict.counts_as is None


GOOD_SSH = 'Good "git" signature for bob@example.invalid with ED25519 key SHA256:HKRJlwTCqk5b'
ANY_SSH = 'Good "git" signature with ED25519 key SHA256:HKRJlwTCqk5b'


@pytest.mark.parametrize(
    ("answers", "failure", "signer"),
    [
        pytest.param(
            SshAnswers(("bob@example.invalid",), GOOD_SSH),
            None,
            "SSH key SHA256:HKRJlwTCqk5b (bob@example.invalid)",
            id="allowed-signer",
        ),
        pytest.param(
            SshAnswers((), None, ANY_SSH),
            Failure.UNKNOWN_KEY,
            "SSH key SHA256:HKRJlwTCqk5b",
            id="signer-outside-the-file",
        ),
        pytest.param(
            SshAnswers((), None, ANY_SSH, "allowed:1: key has expired: verify time ..."),
            Failure.EXPIRED,
            "SSH key SHA256:HKRJlwTCqk5b",
            id="valid-before-passed",
        ),
        pytest.param(
            SshAnswers(("bob@example.invalid",), None, ANY_SSH, 'not permitted for "git"'),
            Failure.BAD,
            "SSH key SHA256:HKRJlwTCqk5b (bob@example.invalid)",
            id="restricted-to-another-namespace",
        ),
        pytest.param(
            SshAnswers((), None, None, "Signature verification failed: incorrect signature"),
            Failure.BAD,
            "SSH key ?",
            id="bad-signature",
        ),
    ],
)
def test_an_ssh_signature_is_trusted_only_for_a_principal_of_the_file(
    answers: SshAnswers, failure: Failure | None, signer: str
) -> None:
    ssh = SignedObject(SHA, "commit", b"x", b"-----BEGIN SSH SIGNATURE-----\nx\n")

    verdict = ssh_verdict(ssh, answers)

    assert (verdict.failure, verdict.signer) == (failure, signer)


def test_a_signature_without_keys_for_its_kind_is_never_trusted() -> None:
    ssh = SignedObject(SHA, "commit", b"x", b"-----BEGIN SSH SIGNATURE-----\nx\n")
    x509 = SignedObject(SHA, "commit", b"x", b"-----BEGIN SIGNED MESSAGE-----\nx\n")

    assert unjudged(ssh).reason == "no --allowed-signers was given to check SSH signatures with"
    assert unjudged(x509).failure is Failure.UNKNOWN_KEY


# A real signed commit (gpgsig with its continuation lines) and a real signed tag.
SIGNED_COMMIT = (
    b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
    b"parent 1d069cfa0c091c34208276ab856bb1a56506cb57\n"
    b"author T <t@x> 1796151907 +0000\n"
    b"committer T <t@x> 1796151907 +0000\n"
    b"gpgsig -----BEGIN PGP SIGNATURE-----\n"
    b" \n"
    b" iHUEABYIAB0WIQRkeAs+u/iiZ3+fomp3Mz/4pkGZNgUCaw8aYwAKCRB3Mz/4pkGZ\n"
    b" =Iacf\n"
    b" -----END PGP SIGNATURE-----\n"
    b"\n"
    b"one\n"
    b"gpgsig in the message is the message\n"
)
SIGNED_TAG = (
    b"object 1d069cfa0c091c34208276ab856bb1a56506cb57\n"
    b"type commit\n"
    b"tag v1.2\n"
    b"tagger T <t@x> 1796151907 +0000\n"
    b"\n"
    b"v1.2\n"
    b"-----BEGIN SSH SIGNATURE-----\n"
    b"U1NIU0lH\n"
    b"-----END SSH SIGNATURE-----\n"
)


def test_a_commit_is_split_into_what_was_signed_and_its_signature() -> None:
    split = commit_object(SHA, SIGNED_COMMIT)

    assert split.payload == (
        b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
        b"parent 1d069cfa0c091c34208276ab856bb1a56506cb57\n"
        b"author T <t@x> 1796151907 +0000\n"
        b"committer T <t@x> 1796151907 +0000\n"
        b"\n"
        b"one\n"
        b"gpgsig in the message is the message\n"
    )
    assert split.signature == (
        b"-----BEGIN PGP SIGNATURE-----\n\n"
        b"iHUEABYIAB0WIQRkeAs+u/iiZ3+fomp3Mz/4pkGZNgUCaw8aYwAKCRB3Mz/4pkGZ\n"
        b"=Iacf\n-----END PGP SIGNATURE-----\n"
    )
    assert split.scheme is Scheme.OPENPGP
    assert split.display == "commit 1a2b3c4d5e6f"


def test_a_tag_is_split_at_its_signature_and_named() -> None:
    split = tag_object(SHA, SIGNED_TAG)

    assert split.payload.endswith(b"\n\nv1.2\n")
    assert (
        split.signature == b"-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"
    )
    assert split.scheme is Scheme.SSH
    assert split.display == "tag v1.2 (1a2b3c4d5e6f)"


def test_an_unsigned_commit_or_tag_has_no_signature() -> None:
    commit = commit_object(SHA, b"tree x\nauthor T\n\nmessage\n")
    tagged = tag_object(SHA, b"object x\ntype commit\ntag v1\n\nv1\n")

    assert (commit.signature, commit.payload) == (None, b"tree x\nauthor T\n\nmessage\n")
    assert (tagged.signature, tagged.payload) == (None, b"object x\ntype commit\ntag v1\n\nv1\n")
    assert unsigned(commit).counts_as == "unsigned"


def test_the_keyring_listing_gives_primary_keys_with_their_subkeys_and_validity() -> None:
    listing = (
        "tru::1:1796151917:0:3:1:5\n"
        "pub:e:255:22:00A2971DF804FFDB:1735689600:1735776000::-:::sc:::::ed25519:::0:\n"
        f"fpr:::::::::{OTHER}:\n"
        "uid:e::::1735689600::8646D0::Old <old@example.invalid>::::::::::0:\n"
        "pub:-:255:22:A58E1E1A40B7A2F6:1796151902:1827687902::-:::scSC:::::ed25519:::0:\n"
        f"fpr:::::::::{PRIMARY.lower()}:\n"
        "sub:-:255:22:77333FF8A6419936:1796151902:1827687902:::::s:::::ed25519::\n"
        f"fpr:::::::::{SUBKEY}:\n"
        "pub:r:255:22:0000000000000001:1796151902:::-:::sc:::::ed25519:::0:\n"
        "fpr:::::::::" + "1" * 40 + ":\n"
    )

    assert keyring(listing) == (
        OpenPgpKey(OTHER, (), expired=True),
        OpenPgpKey(PRIMARY, (SUBKEY,)),
        OpenPgpKey("1" * 40, (), revoked=True),
    )


def test_a_refusal_names_the_first_object_not_trusted_and_counts_the_others() -> None:
    others = [unsigned(SignedObject(f"{n}" * 40, "commit", b"", None)) for n in (2, 3)]
    trusted = openpgp_verdict(SUBJECT, good(PRIMARY, PRIMARY), TRUSTED)

    assert refusal([trusted]) is None
    assert refusal([trusted, *others]) == (
        "commit 222222222222 (unsigned): it carries no signature (1 more not trusted)"
    )
