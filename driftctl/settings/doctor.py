"""What `driftctl doctor` does besides the settings of the run it checks (`Doctor`): whose
permissions it asks about, what it runs (`--pre`: only what needs no installation), how
long a deletion may take before its WebApp is stuck, and its actions (`--send-test`,
`--release-finalizers`).

The ServiceAccount is named as `kubectl create rolebinding --serviceaccount` names one,
NAMESPACE:NAME; None is the instance's installed one (core.installation.Names). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftctl.errors import UsageError
from driftctl.kube_formats import label_problem, subdomain_problem
from driftctl.settings.declare import Group, setting
from driftctl.settings.kinds import Switch, Text
from driftctl.settings.spans import Seconds

STUCK_AFTER = 600.0  # a deletion older than this is stuck: runs come every 5 minutes


def service_account_problem(text: str) -> str | None:
    """Why `text` is not NAMESPACE:NAME of a ServiceAccount, or None."""
    namespace, colon, name = text.partition(":")
    if not colon:
        return f"must be NAMESPACE:NAME, not {text!r}"
    return label_problem(namespace) or subdomain_problem(name)


@dataclass(frozen=True, kw_only=True)
class Doctor:
    """What `driftctl doctor` checks and does (module docstring)."""

    GROUP: ClassVar = Group(None, frozenset({"doctor"}))

    service_account: str | None = setting(
        "as-serviceaccount",
        Text(service_account_problem),
        metavar="NAMESPACE:NAME",
        help="Check the permissions of this ServiceAccount, with SubjectAccessReviews "
        "(default: the one the instance's CronJob or operator runs as).",
    )
    as_caller: bool = setting(
        "as-caller",
        Switch(),
        False,
        help="Check the permissions of whoever runs doctor instead, with "
        "SelfSubjectAccessReviews (the default inside a Pod: the Pod's own account).",
    )
    pre: bool = setting(
        "pre",
        Switch(),
        False,
        help="Only what needs no installation: the cluster, and the permissions `driftctl "
        "install` needs (the caller's).",
    )
    stuck_after: float = setting(
        "stuck-after",
        Seconds(),
        STUCK_AFTER,
        help="A WebApp deleting longer than this with driftctl's finalizer is stuck.",
    )
    send_test: bool = setting(
        "send-test",
        Switch(),
        False,
        in_file=False,
        help="Also send a test message to each receiver configured (nothing is sent without).",
    )
    release_finalizers: bool = setting(
        "release-finalizers",
        Switch(),
        False,
        in_file=False,
        help="Release driftctl's finalizer from the instance's stuck WebApps it can prove it "
        "applied, one line each (asks first on a terminal; --yes elsewhere), instead of the "
        "checks.",
    )

    def __post_init__(self) -> None:
        if self.service_account is not None and self.as_caller:
            raise UsageError(
                "--as-serviceaccount and --as-caller cannot be used together",
                hint="one account's permissions are checked: a ServiceAccount's, or yours",
            )
        if self.release_finalizers and (self.pre or self.send_test):
            raise UsageError(
                "--release-finalizers runs instead of the checks: drop --pre and --send-test"
            )

    @property
    def account(self) -> tuple[str, str] | None:
        """The ServiceAccount named (namespace, name), or None."""
        if self.service_account is None:
            return None
        namespace, _, name = self.service_account.partition(":")
        return namespace, name


PLAIN_DOCTOR = Doctor()
