"""The commit status of the revision a run applied, on GitHub and GitLab.

Pure. A run that applied a commit (a full SHA: not a dirty working tree) gives it one
state: `success` when every object succeeded, `failure` when some failed, a guard refused
a prune or a rollout failed, `error` when the run stopped after planning it, and
`pending` while its rollouts are in progress (`RunFacts.rolling`). Each forge spells the
states its own way. A receiver's record (as in core.notify.record) keeps, per commit, the
state it was last given (`status <sha>`) and, for GitHub deployments, the deployment made
for it (`deployment <sha>`), so a state is posted once, when it changes; only the last
MAX_COMMITS commits are kept.
"""

from __future__ import annotations

import enum
import re

from driftctl.core.notify.facts import RunFacts
from driftctl.core.notify.record import Record, Told
from driftctl.core.planning.outcomes import Outcome

MAX_COMMITS = 10
MAX_DESCRIPTION = 140  # GitHub refuses a longer status description
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class CommitState(enum.StrEnum):
    PENDING = "pending"
    SUCCESS = "success"
    FAILURE = "failure"
    ERROR = "error"


GITHUB_STATUS = {state: str(state) for state in CommitState}
GITHUB_DEPLOYMENT = {
    CommitState.PENDING: "in_progress",
    CommitState.SUCCESS: "success",
    CommitState.FAILURE: "failure",
    CommitState.ERROR: "error",
}
GITLAB_STATUS = {
    CommitState.PENDING: "running",
    CommitState.SUCCESS: "success",
    CommitState.FAILURE: "failed",
    CommitState.ERROR: "failed",
}


def is_commit(revision: str) -> bool:
    """Whether `revision` is a commit a forge knows (not `<sha>-dirty`, not uncommitted)."""
    return bool(_SHA.fullmatch(revision))


def commit_state(facts: RunFacts) -> CommitState | None:
    """The state of the commit the run applied; None when it applied no commit."""
    if not is_commit(facts.revision):
        return None
    if facts.error is not None:
        return CommitState.ERROR
    if facts.report is None:
        return None
    if facts.report.exit_code != 0 or facts.rollouts:
        return CommitState.FAILURE
    if facts.rolling:
        return CommitState.PENDING
    return CommitState.SUCCESS


def description(facts: RunFacts, state: CommitState) -> str:
    """One short line for the forge: what the run did with the commit."""
    if facts.error is not None:
        text = f"stopped: {facts.error.message}"
    elif state is CommitState.PENDING:
        text = f"applied; {len(facts.rolling)} rollouts in progress"
    else:
        report = facts.report
        counts = [] if report is None else [(o, report.count(o)) for o in _TOLD]
        done = ", ".join(f"{count} {outcome}" for outcome, count in counts if count)
        refused = " (a prune guard refused)" if report is not None and report.refusals else ""
        rollouts = f", {len(facts.rollouts)} rollouts failed" if facts.rollouts else ""
        text = f"applied: {done or 'nothing to change'}{rollouts}{refused}"
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 3] + "..."


_TOLD = (Outcome.CREATED, Outcome.CONFIGURED, Outcome.DELETED, Outcome.FAILED)


def status_key(sha: str) -> str:
    return f"status {sha}"


def deployment_key(sha: str) -> str:
    return f"deployment {sha}"


def needs_post(record: Record, sha: str, state: CommitState) -> bool:
    """Whether the forge is to be given `state` for `sha`: not given it last."""
    told = record.get(status_key(sha))
    return told is None or told.fingerprint != state


def deployment_of(record: Record, sha: str) -> int | None:
    """The GitHub deployment made for `sha` by an earlier run, if any."""
    told = record.get(deployment_key(sha))
    return int(told.fingerprint) if told is not None and told.fingerprint.isdigit() else None


def posted(
    record: Record, sha: str, state: CommitState, now: float, deployment: int | None = None
) -> dict[str, Told]:
    """The record once `state` was posted for `sha`: the last MAX_COMMITS commits."""
    after = dict(record)
    after[status_key(sha)] = Told(str(state), now)
    if deployment is not None:
        after[deployment_key(sha)] = Told(str(deployment), now)
    commits = sorted(
        {key.partition(" ")[2]: told.at for key, told in after.items()}.items(),
        key=lambda pair: pair[1],
        reverse=True,
    )
    kept = {commit for commit, _ in commits[:MAX_COMMITS]}
    return {key: told for key, told in after.items() if key.partition(" ")[2] in kept}
