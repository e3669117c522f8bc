"""Signed commits, checked before anything is planned: the sequence of `--verify`.

A run reads the last revision verified and applied (its anchor) from its run lock's Lease,
where the run that applied it recorded it; it then asks Git whether the new commit
descends from it (fetching more history only when the cache is too shallow to know), which
commits to check (core.source.lineage: the head, or every commit since the anchor), reads
them and has their signatures checked by gpg (shell.gpg, a keyring of its own made from
--trusted-keys) or ssh-keygen (shell.ssh_keygen, --allowed-signers). The core judges each
(core.source.signatures). One object not trusted, or a head that does not descend from
the anchor without --allow-rewind, refuses the revision with one line (UntrustedRevision,
exit 3) before any plan is made. `apply` records the revision it verified in the same write
that takes the lock, provided no other run moved the record meanwhile (else it verifies
again against the new one). Decides nothing itself.

Why the Lease: it is one object per run scope (an instance, or a shard of one) that every
`apply` already reads and writes to take the lock and `watch` holds as its leader election,
so the record costs no request of its own and survives the Pod; it covers commits that
changed nothing or only pruned, which the WebApps' revision annotations cannot show; and an
empty cluster has none, so the first run checks its head only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from driftctl.core.api.lease import LeaseRef, Verified, verified_of
from driftctl.core.source import lineage
from driftctl.core.source.desired_state import DesiredState, Revision
from driftctl.core.source.lineage import CommitGraph
from driftctl.core.source.signatures import (
    Scheme,
    SignedObject,
    Verdict,
    commit_object,
    keyring,
    openpgp_verdict,
    refusal,
    ssh_verdict,
    tag_object,
    unjudged,
    unsigned,
)
from driftctl.errors import ClusterError, SourceError, UntrustedRevision, UsageError
from driftctl.settings import Source, Verify
from driftctl.shell.git_history import commit_graph, fetch_history, read_objects
from driftctl.shell.git_source import where
from driftctl.shell.gpg import Keyring
from driftctl.shell.kube import Kube
from driftctl.shell.lock import AnchorMoved, RunLock, read_lease
from driftctl.shell.ssh_keygen import AllowedSigners

T = TypeVar("T")
MOVES = 10  # records moved by other runs while this one took the lock, before giving up


def anchor_in(kube: Kube, ref: LeaseRef) -> str | None:
    """The last revision verified and applied, as the run lock's Lease records it."""
    recorded = verified_of(read_lease(kube, ref))
    return recorded.revision if recorded else None


@dataclass(frozen=True)
class Checking:
    """What verifying a revision needs: the source it is read from, the --verify settings,
    and the environment (Git's credentials)."""

    source: Source
    settings: Verify
    environ: Mapping[str, str]


def verify(desired: DesiredState, checking: Checking, anchor: str | None) -> DesiredState:
    """`desired` with its revision marked verified (by the key that signed it), or
    UntrustedRevision: a commit not trusted, or a rewind without --allow-rewind."""
    source, settings, environ = checking.source, checking.settings, checking.environ
    if not settings.enabled:
        return desired
    revision = desired.revision
    head = commit_of(revision, "--verify")
    descends = anchor is None or _descends(source, environ, head, anchor)
    # An allowed rewind is checked as a first run is: its head alone.
    since_anchor = anchor if descends else None
    since = None
    if settings.every_commit and since_anchor is not None and since_anchor != head:
        bottom = since_anchor
        since = _answer(source, environ, (head, bottom), lambda g: lineage.between(g, head, bottom))
    commits = lineage.to_check(head, since_anchor, settings.every_commit, since)
    verdicts = judge(source, settings, environ, commits, revision.tag)
    why = refusal(verdicts)
    if why is not None:
        raise UntrustedRevision(f"{why}; {lineage.kept(anchor)}")
    signed = next(verdict for verdict in verdicts if verdict.subject.sha == head)
    if anchor is not None and not descends and not settings.allow_rewind:
        subject = f"{signed.subject.display} ({signed.shown_signer})"
        raise UntrustedRevision(f"{subject}: {lineage.rewind(anchor)}; {lineage.kept(anchor)}")
    return replace(desired, revision=replace(revision, verified_by=signed.fingerprint))


def verified_against(
    kube: Kube, ref: LeaseRef, desired: DesiredState, checking: Checking
) -> tuple[DesiredState, str | None]:
    """`verify` against the anchor the Lease records now; the anchor with it."""
    if not checking.settings.enabled:
        return desired, None
    anchor = anchor_in(kube, ref)
    return verify(desired, checking, anchor), anchor


def take_lock(
    run_lock: RunLock,
    desired: DesiredState,
    checking: Checking,
    *,
    timeout: float,
    anchor: str | None,
    reload: Callable[[], DesiredState] | None = None,
    waiting: Callable[[str], None] = lambda line: None,
) -> DesiredState:
    """Take the run lock, recording `desired`'s revision as the last verified in the same
    write; when another run recorded another one since `anchor` was read, verify again
    against it first (and refuse, if the revision is no longer acceptable): `desired`
    itself, or what `reload` reads afresh (watch: Git may have moved on too). `waiting`
    hears whom the run waits for, when it does."""
    unverified = desired
    for _ in range(MOVES):
        try:
            run_lock.acquire(
                timeout, verified=recorded(desired.revision), anchor=anchor, waiting=waiting
            )
        except AnchorMoved as moved:
            anchor = moved.anchor
            fresh = reload() if reload is not None else unverified
            desired = verify(fresh, checking, anchor)
            continue
        return desired
    raise ClusterError(
        "the record of the last revision verified kept moving while this run took the lock; "
        "the next run goes on"
    )


def recorded(revision: Revision) -> Verified | None:
    """What the Lease records for a verified revision (None: it was not verified)."""
    if revision.verified_by is None or revision.revision is None:
        return None
    return Verified(revision.revision, revision.verified_by)


def pull_request(
    head: Source,
    base_revision: Revision,
    head_revision: Revision,
    settings: Verify,
    *,
    base_ref: str | None,
    environ: Mapping[str, str],
) -> tuple[Verdict, ...]:
    """`check`: each commit of the pull request (base..head; `head` mode: its head) with
    the verdict on its signature, and on the tag the head names, if it names one."""
    tip = commit_of(head_revision, "--verify")
    bottom = commit_of(base_revision, "--verify")
    commits: tuple[str, ...] = (tip,)
    if settings.every_commit:
        commits = _answer(
            head, environ, (tip, bottom), lambda g: lineage.between(g, tip, bottom), base_ref
        )
    return judge(head, settings, environ, commits, head_revision.tag)


def commit_of(revision: Revision, flag: str) -> str:
    """The commit a revision was read at; a working tree with changes has none to check."""
    if revision.revision is None or revision.dirty:
        raise UsageError(
            f"{flag} checks commits: {revision.label} of {revision.source} is not one",
            hint="commit the changes, or pass --ref (--head for check) with a branch, tag "
            "or commit",
        )
    return revision.revision


def judge(
    source: Source,
    settings: Verify,
    environ: Mapping[str, str],
    commits: Sequence[str],
    tag: str | None,
) -> tuple[Verdict, ...]:
    """The verdict on each commit's signature (and the tag's), in the order given."""
    raw = read_objects(source, environ, [*commits, *([tag] if tag else [])])
    subjects = [commit_object(sha, raw[sha]) for sha in commits]
    if tag is not None:
        subjects.append(tag_object(tag, raw[tag]))
    with _checker(settings, environ) as check:
        return tuple(check(subject) for subject in subjects)


@contextlib.contextmanager
def _checker(
    settings: Verify, environ: Mapping[str, str]
) -> Iterator[Callable[[SignedObject], Verdict]]:
    """What judges one object: its signature checked by the tool of its scheme."""
    with contextlib.ExitStack() as stack:
        pgp = (
            stack.enter_context(Keyring(settings.trusted_keys, environ))
            if settings.trusted_keys
            else None
        )
        ssh = (
            AllowedSigners(settings.allowed_signers, environ) if settings.allowed_signers else None
        )
        keys = keyring(pgp.listing) if pgp is not None else ()

        def check(subject: SignedObject) -> Verdict:
            if subject.signature is None:
                return unsigned(subject)
            if subject.scheme is Scheme.OPENPGP and pgp is not None:
                return openpgp_verdict(subject, pgp.check(subject.payload, subject.signature), keys)
            if subject.scheme is Scheme.SSH and ssh is not None:
                return ssh_verdict(subject, ssh.check(subject.payload, subject.signature))
            return unjudged(subject)

        yield check


def _descends(source: Source, environ: Mapping[str, str], head: str, anchor: str) -> bool:
    if head == anchor:
        return True
    return _answer(source, environ, (head, anchor), lambda g: lineage.descends(g, head, anchor))


def _answer(
    source: Source,
    environ: Mapping[str, str],
    tips: tuple[str, ...],
    ask: Callable[[CommitGraph], T | None],
    *more_refs: str | None,
) -> T:
    """The core's answer from the history Git holds, fetching the whole history once when
    the cache is too shallow to give one."""
    fetched = False
    while True:
        answer = ask(commit_graph(source, environ, *tips))
        if answer is not None:
            return answer
        if fetched or not fetch_history(source, environ, source.ref, *more_refs):
            raise SourceError(
                f"the history between {tips[-1][:12]} and {tips[0][:12]} is not in {where(source)}",
                hint="a shallow clone: fetch its whole history (git fetch --unshallow)",
            )
        fetched = True
