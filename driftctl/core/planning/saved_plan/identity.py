"""What a saved plan was made for, and why it is refused anywhere else.

Pure. A plan records who and what it was made for (`PlanIdentity`: instance, field manager,
source, commit, default namespace, the WebApp CRD, the shard); `refusal` compares that with
where it is applied, before any request. `unsavable` says why a desired state cannot be
saved at all (it is not one commit).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from driftctl import conventions as c
from driftctl.core.source.crd import webapp_crd
from driftctl.errors import DriftctlError, ExitCode


class SavedPlanError(DriftctlError):
    """A saved plan that cannot be applied: malformed, or made for something else."""

    exit_code = ExitCode.INVALID_INPUT

    def __init__(self, file: str, reason: str, *, hint: str | None = None) -> None:
        super().__init__(f"{file}: {reason}", hint=hint)
        self.file = file
        self.reason = reason


@dataclass(frozen=True)
class CrdIdentity:
    """The WebApp CRD a plan was made with: name, version and a digest of its schema."""

    name: str
    version: str
    digest: str

    @classmethod
    def current(cls) -> CrdIdentity:
        """The CRD this driftctl generates from its model."""
        canonical = json.dumps(webapp_crd(), sort_keys=True, separators=(",", ":"))
        digest = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
        return cls(c.CRD_NAME, c.VERSION, digest)


@dataclass(frozen=True)
class PlanIdentity:
    """What a saved plan was made for; applying it anywhere else is refused."""

    instance: str
    field_manager: str
    source: str  # "<url without credentials>#<path>"
    commit: str
    namespace: str  # of WebApps that name none
    crd: CrdIdentity
    shard: str = "shard 0 of 1"  # a sharded run's plan is its shard's alone


def source_of(identity: PlanIdentity) -> tuple[str, str]:
    """(repository, folder) of the source a plan records as `<repository>#<folder>`: where
    `apply --plan` reads Git when it is not told."""
    repository, _hash, folder = identity.source.rpartition("#")
    return repository, folder


def unsavable(label: str, commit: str | None) -> str | None:
    """Why a desired state cannot be saved in a plan: it is not one commit."""
    if commit is None or label != commit:
        return (
            f"a saved plan records one commit, and this desired state is {label}: "
            "commit the change or pass --ref"
        )
    return None


def refusal(saved: PlanIdentity, expected: PlanIdentity) -> str | None:
    """Why a plan made for `saved` must not be applied where `expected` holds, or None."""
    checks = (
        ("instance", saved.instance, expected.instance),
        ("field manager", saved.field_manager, expected.field_manager),
        ("source", saved.source, expected.source),
        ("commit", saved.commit, expected.commit),
        ("default namespace", saved.namespace, expected.namespace),
        ("CRD", _crd_text(saved.crd), _crd_text(expected.crd)),
        ("shard", saved.shard, expected.shard),
    )
    for what, planned, here in checks:
        if planned != here:
            return f"the plan was made for {what} {planned!r}, not {here!r}; nothing was applied"
    return None


def _crd_text(crd: CrdIdentity) -> str:
    return f"{crd.name}/{crd.version} ({crd.digest[:19]})"
