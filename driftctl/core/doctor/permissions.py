"""The permissions a configured run needs, each asked of the API server alone, and the
rule of driftctl's installation that grants it.

Pure. What a run needs is what driftctl's installation grants the account it runs as
(core.installation: the rules of cronjob/ and operator/, the least that works, which the
integration tests run under): for the form it runs in (a CronJob's `apply`; the operator's
`watch` also watches), in the namespaces it may touch (with --target-namespaces its Roles
there, else its ClusterRole's rules in every namespace), its run lock's Role in
--lock-namespace (the Lease, the Event about it, the notifications' and history's
ConfigMaps), and the read of the WebApp CRD. So each rule is written once, there, and a
permission missing is named with the rule that grants it and a `kubectl patch` that adds
its verb (`hint`): a failure, but a warning for a CronJob's `watch` of WebApps and
Deployments, without which its runs still read them, page by page (shell.kube).

Each need is one review: a SubjectAccessReview for a ServiceAccount (the caller must be
allowed to create those), or a SelfSubjectAccessReview for the caller (every
authenticated user may). `install_needs` is what `driftctl install` itself needs of its
caller (`doctor --pre`): to read, create and patch each object it applies, and to hold
every permission it grants (the API server refuses a Role granting more than its creator
holds, unless it may `escalate`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from driftctl import conventions as c
from driftctl.core.api.requests import INSTALLED_KINDS
from driftctl.core.doctor.findings import Finding, fail, ok, warn
from driftctl.core.installation import NAMESPACE, Installation, manifests
from driftctl.core.source.crd import webapp_crd
from driftctl.settings.install import Form, Rbac

CHECK = "permissions"
# The rules do not depend on the repository; an Installation needs one a Pod can reach.
_ANY_REPOSITORY = "https://git.invalid/webapps.git"
INSTALL_VERBS = ("get", "create", "patch")  # install reads, then server-side applies


@dataclass(frozen=True)
class Grant:
    """A rule of the installation, and the role that holds it."""

    kind: str  # Role or ClusterRole
    name: str
    namespace: str | None
    rule: str  # the rule as JSON (a value: hashable)

    @property
    def role(self) -> str:
        return (
            f"{self.kind} {self.namespace}/{self.name}"
            if self.namespace
            else f"{self.kind} {self.name}"
        )

    def rule_text(self) -> str:
        rule = json.loads(self.rule)
        group = rule["apiGroups"][0] or "core"
        names = f" {', '.join(rule['resourceNames'])}" if rule.get("resourceNames") else ""
        return f"{group} {rule['resources'][0]}{names}: {', '.join(rule['verbs'])}"


@dataclass(frozen=True)
class Need:
    """One permission, as a review asks it."""

    verb: str
    group: str
    resource: str
    subresource: str = ""
    namespace: str | None = None  # None: in every namespace, or a cluster-scoped object
    name: str | None = None
    grant: Grant | None = field(default=None, compare=False)
    # Without it a run still works, only slower: a CronJob's `watch` of WebApps and
    # Deployments, which it reads as streamed lists and otherwise page by page.
    speeds: bool = field(default=False, compare=False)

    @property
    def what(self) -> str:
        """`delete deployments.apps in every namespace`, as a line says it."""
        return f"{self.verb} {self.target}"

    @property
    def target(self) -> str:
        """`deployments.apps in every namespace`: what the verb is done to, and where."""
        resource = self.resource + (f".{self.group}" if self.group else "")
        resource += f"/{self.subresource}" if self.subresource else ""
        where = f" {self.name}" if self.name else ""
        if self.namespace is not None:
            where += f" in namespace {self.namespace}"
        elif self.group != "apiextensions.k8s.io" and not self.name:
            where += " in every namespace"
        return f"{resource}{where}"

    def attributes(self) -> dict[str, str]:
        """The review's resourceAttributes."""
        found = {
            "verb": self.verb,
            "group": self.group,
            "resource": self.resource,
            "subresource": self.subresource,
            "namespace": self.namespace or "",
            "name": self.name or "",
        }
        return {key: value for key, value in found.items() if value}


@dataclass(frozen=True)
class Subject:
    """Whose permissions are asked: a ServiceAccount, or (None) the caller."""

    account: tuple[str, str] | None

    @property
    def display(self) -> str:
        if self.account is None:
            return "you (the caller)"
        return f"ServiceAccount {self.account[0]}/{self.account[1]}"


def installed(instance: str, form: Form, scope: tuple[str, ...]) -> Installation:
    """The installation whose rules a run of this instance, form and scope runs under."""
    rbac = Rbac.NAMESPACED if scope else Rbac.CLUSTER
    return Installation(
        _ANY_REPOSITORY, form=form, rbac=rbac, target_namespaces=scope, instance=instance
    )


def run_needs(installation: Installation, lock_namespace: str) -> list[Need]:
    """Every permission a run under `installation` needs, its Roles in driftctl's namespace
    moved to the run lock's (module docstring)."""
    needs: list[Need] = []
    for obj in manifests(installation, webapp_crd()):
        if obj["kind"] not in ("Role", "ClusterRole"):
            continue
        namespace = obj["metadata"].get("namespace")
        if namespace == NAMESPACE:
            namespace = lock_namespace
        for rule in obj["rules"]:
            grant = Grant(obj["kind"], obj["metadata"]["name"], namespace, json.dumps(rule))
            needs += _expanded(rule, namespace, grant)
    if installation.form is not Form.OPERATOR:  # the operator's informers watch on
        needs = [replace(need, speeds=(need.verb, need.resource) in STREAMED) for need in needs]
    return list(dict.fromkeys(needs))


STREAMED = frozenset({("watch", c.PLURAL), ("watch", "deployments")})


def _expanded(rule: Mapping[str, Any], namespace: str | None, grant: Grant) -> list[Need]:
    return [
        Need(verb, group, *_split(resource), namespace=namespace, name=name, grant=grant)
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for name in rule.get("resourceNames") or [None]
        for verb in rule["verbs"]
    ]


def _split(resource: str) -> tuple[str, str]:
    plural, _, subresource = resource.partition("/")
    return plural, subresource


def install_needs(installation: Installation) -> list[Need]:
    """What `driftctl install` needs of its caller (module docstring)."""
    needs: list[Need] = []
    for obj in manifests(installation, webapp_crd()):
        kind = INSTALLED_KINDS[obj["kind"]]
        group = kind.prefix.removeprefix("/apis/").removeprefix("/api/").rpartition("/")[0]
        meta = obj["metadata"]
        needs += [
            Need(verb, group, kind.plural, namespace=meta.get("namespace"), name=meta["name"])
            for verb in INSTALL_VERBS
        ]
    return list(dict.fromkeys([*needs, *run_needs(installation, NAMESPACE)]))


def review(need: Need, subject: Subject) -> dict[str, Any]:
    """The review asking `need` of `subject`: a SubjectAccessReview for a ServiceAccount,
    a SelfSubjectAccessReview for the caller."""
    spec: dict[str, Any] = {"resourceAttributes": need.attributes()}
    if subject.account is None:
        kind = "SelfSubjectAccessReview"
    else:
        kind = "SubjectAccessReview"
        namespace, name = subject.account
        spec["user"] = f"system:serviceaccount:{namespace}:{name}"
        spec["groups"] = [
            "system:serviceaccounts",
            f"system:serviceaccounts:{namespace}",
            "system:authenticated",
        ]
    return {"apiVersion": "authorization.k8s.io/v1", "kind": kind, "spec": spec}


def allowed(answer: Mapping[str, Any]) -> bool:
    """Whether a review's answer allows it."""
    return bool((answer.get("status") or {}).get("allowed"))


def verdicts(
    subject: Subject, answered: Sequence[tuple[Need, bool]], *, for_install: bool = False
) -> list[Finding]:
    """One failure per rule with a verb refused (the verbs refused listed, the rule that
    grants them named); else one ok."""
    refused: dict[Need, list[Need]] = {}
    for need, yes in answered:
        if not yes:
            refused.setdefault(replace(need, verb=""), []).append(need)
    if not refused:
        what = "`driftctl install` needs" if for_install else "the run needs"
        return [ok(CHECK, f"{subject.display} may do all {len(answered)} things {what}")]
    return [_refused(subject, need, needs, for_install) for need, needs in refused.items()]


def _refused(subject: Subject, need: Need, needs: list[Need], for_install: bool) -> Finding:
    """A failure; a warning where the run only goes slower without what is refused."""
    verbs = [each.verb for each in needs]
    line = f"{subject.display} may not {', '.join(verbs)} {need.target}"
    if for_install:
        return fail(
            CHECK,
            line + ": `driftctl install` needs it",
            "run the install as someone who may (`kubectl auth can-i "
            f"{verbs[0]} {need.resource}` says what you may)",
        )
    grant = need.grant
    if grant is None:
        return fail(CHECK, line, None)
    said = (
        f"{line} ({grant.role} grants {'it' if len(verbs) == 1 else 'them'}: {grant.rule_text()})"
    )
    if all(each.speeds for each in needs) and not for_install:
        slower = "a run reads them page by page, which costs the API server more"
        return warn(CHECK, f"{said}: {slower}", _patch(verbs, grant))
    return fail(CHECK, said, _patch(verbs, grant))


def _patch(verbs: list[str], grant: Grant) -> str:
    """The command that adds the verbs missing to a role (`driftctl install` applies the
    whole role again)."""
    rule = json.loads(grant.rule)
    rule["verbs"] = verbs
    operation = [{"op": "add", "path": "/rules/-", "value": rule}]
    where = f" -n {grant.namespace}" if grant.namespace else ""
    return (
        f"kubectl patch {grant.kind.lower()} {grant.name}{where} --type=json "
        f"-p '{json.dumps(operation, separators=(',', ':'))}' "
        "(or `driftctl install` again, which applies the whole role)"
    )
