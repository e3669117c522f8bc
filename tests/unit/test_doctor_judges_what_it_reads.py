"""`driftctl doctor`'s pure half: the permissions a run needs, derived from the rules the
installation grants, the reviews that ask them and the verdicts with the rule that grants
each; the CRD, the run lock, the stuck WebApps and what may release them; the keys; the
exit code and the text a person reads."""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any

import pytest
import yaml

from driftctl import conventions as c
from driftctl.core.api.lease import LeaseRef
from driftctl.core.doctor import cluster, local, permissions, stuck
from driftctl.core.doctor.findings import Verdict, exit_code, fail, ok, warn
from driftctl.core.installation import manifests
from driftctl.core.source.crd import webapp_crd
from driftctl.errors import ExitCode
from driftctl.render.doctor import doctor_text
from driftctl.settings.install import Form
from tests.support.builders import live_webapp
from tests.support.paths import ROOT

NOW = datetime.datetime(2026, 12, 2, 10, 0, tzinfo=datetime.UTC)
SA = permissions.Subject(("driftctl-system", "driftctl"))


def granted(form: Form, scope: tuple[str, ...]) -> set[tuple[str, str, str, str | None]]:
    """(verb, group, resource, namespace) of every rule the installation's roles hold."""
    install = permissions.installed("default", form, scope)
    out = set()
    for obj in manifests(install, webapp_crd()):
        if obj["kind"] in ("Role", "ClusterRole"):
            for rule in obj["rules"]:
                for verb in rule["verbs"]:
                    namespace = obj["metadata"].get("namespace")
                    out.add((verb, rule["apiGroups"][0], rule["resources"][0], namespace))
    return out


@pytest.mark.parametrize(
    ("form", "scope"),
    [
        pytest.param(Form.CRONJOB, (), id="cronjob-cluster"),
        pytest.param(Form.OPERATOR, (), id="operator-cluster"),
        pytest.param(Form.CRONJOB, ("web", "shop"), id="cronjob-namespaced"),
    ],
)
def test_a_run_needs_exactly_what_its_installation_grants(
    form: Form, scope: tuple[str, ...]
) -> None:
    needs = permissions.run_needs(permissions.installed("default", form, scope), "driftctl-system")

    asked = {
        (n.verb, n.group, n.resource + (f"/{n.subresource}" if n.subresource else ""), n.namespace)
        for n in needs
    }
    assert asked == granted(form, scope)
    watched = {n.resource for n in needs if n.verb == "watch"}
    streamed = {"webapps", "deployments"}  # both forms read them as streamed lists
    assert watched == (
        streamed | {"horizontalpodautoscalers"} if form is Form.OPERATOR else streamed
    )
    assert all(need.grant is not None for need in needs)


def test_the_lock_roles_needs_move_to_the_run_locks_namespace() -> None:
    needs = permissions.run_needs(permissions.installed("blue", Form.CRONJOB, ()), "locks")

    leases = [n for n in needs if n.resource == "leases"]
    assert {(n.verb, n.namespace) for n in leases} == {
        ("get", "locks"),
        ("create", "locks"),
        ("update", "locks"),
    }
    assert {n.grant.role for n in leases if n.grant} == {"Role locks/driftctl-blue-lock"}


def test_a_service_account_is_asked_with_a_subject_review_and_the_caller_with_a_self_review() -> (
    None
):
    need = permissions.Need("delete", "apps", "deployments", namespace="web")

    assert permissions.review(need, SA) == {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "resourceAttributes": {
                "verb": "delete", "group": "apps", "resource": "deployments", "namespace": "web",
            },
            "user": "system:serviceaccount:driftctl-system:driftctl",
            "groups": [
                "system:serviceaccounts", "system:serviceaccounts:driftctl-system",
                "system:authenticated",
            ],
        },
    }  # fmt: skip
    mine = permissions.review(need, permissions.Subject(None))
    assert mine["kind"] == "SelfSubjectAccessReview"
    assert set(mine["spec"]) == {"resourceAttributes"}


def test_the_verbs_refused_of_one_rule_are_one_failure_with_the_patch_that_adds_them() -> None:
    needs = permissions.run_needs(
        permissions.installed("default", Form.CRONJOB, ()), "driftctl-system"
    )
    refused = {("delete", "deployments"), ("patch", "deployments"), ("list", "pods")}
    answered = [(n, (n.verb, n.resource) not in refused) for n in needs]

    found = permissions.verdicts(SA, answered)

    assert [f.verdict for f in found] == [Verdict.FAIL, Verdict.FAIL]
    assert found[0].line == (
        "ServiceAccount driftctl-system/driftctl may not patch, delete deployments.apps in every "
        "namespace (ClusterRole driftctl grants them: apps deployments: get, list, watch, "
        "create, patch, delete)"
    )
    patch = found[0].hint or ""
    operation = json.loads(patch.split(" -p '", 1)[1].split("'", 1)[0])
    assert operation == [
        {
            "op": "add",
            "path": "/rules/-",
            "value": {
                "apiGroups": ["apps"],
                "resources": ["deployments"],
                "verbs": ["patch", "delete"],
            },
        }
    ]
    assert permissions.verdicts(SA, [(n, True) for n in needs]) == [
        ok(
            "permissions",
            f"ServiceAccount driftctl-system/driftctl may do all {len(needs)} things the run needs",
        )
    ]


def test_a_cronjob_that_may_not_watch_what_it_lists_is_warned_it_goes_slower() -> None:
    """Its runs read WebApps and Deployments page by page: slower, not stopped. The
    operator's informers cannot do without `watch`."""
    cronjob = permissions.run_needs(
        permissions.installed("default", Form.CRONJOB, ()), "driftctl-system"
    )
    operator = permissions.run_needs(
        permissions.installed("default", Form.OPERATOR, ()), "driftctl-system"
    )
    refused = {("watch", "webapps")}

    [warned] = permissions.verdicts(SA, [(n, (n.verb, n.resource) not in refused) for n in cronjob])
    [failed] = permissions.verdicts(
        SA, [(n, (n.verb, n.resource) not in refused) for n in operator]
    )
    [both] = permissions.verdicts(
        SA, [(n, (n.verb, n.resource) not in refused | {("delete", "webapps")}) for n in cronjob]
    )

    assert warned.verdict is Verdict.WARN
    assert warned.line == (
        "ServiceAccount driftctl-system/driftctl may not watch webapps.example.com in every "
        "namespace (ClusterRole driftctl grants it: example.com webapps: get, list, watch, "
        "create, patch, delete): a run reads them page by page, which costs the API server more"
    )
    assert (warned.hint or "").startswith("kubectl patch clusterrole driftctl --type=json")
    assert failed.verdict is Verdict.FAIL
    assert both.verdict is Verdict.FAIL  # one rule: whatever else it lacks decides


def crd_with(**status: Any) -> dict[str, Any]:
    crd = webapp_crd()
    return {**crd, "status": {"conditions": [{"type": "Established", "status": "True", **status}]}}


def test_the_crd_is_judged_installed_established_and_of_this_schema() -> None:
    seed = yaml.safe_load((ROOT / "tests" / "seedoperator" / "crd.yaml").read_text())
    seed["status"] = crd_with()["status"]

    assert cluster.crd(None, webapp_crd(), 0).verdict is Verdict.FAIL
    assert cluster.crd(
        crd_with(status="False", reason="NotAccepted", message="x"), webapp_crd(), 0
    ).line == ("webapps.example.com is not established (NotAccepted: x)")
    assert cluster.crd(crd_with(), webapp_crd(), 0) == ok(
        "crd", "webapps.example.com is established, the schema of this driftctl"
    )
    older = cluster.crd(seed, webapp_crd(), 12)
    assert older.verdict is Verdict.WARN
    assert older.line.startswith(
        "webapps.example.com is older than this driftctl: its status lacks "
    )
    assert older.hint == "driftctl crd | kubectl apply --server-side -f -"


def lease(holder: str | None, renewed: datetime.datetime) -> dict[str, Any]:
    stamp = renewed.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    spec: dict[str, Any] = {"leaseDurationSeconds": 30, "acquireTime": stamp, "renewTime": stamp}
    if holder:
        spec["holderIdentity"] = holder
    return {"metadata": {"name": "driftctl-default"}, "spec": spec}


@pytest.mark.parametrize(
    ("there", "found", "verdict", "says"),
    [
        pytest.param(False, None, Verdict.FAIL, "does not exist", id="no-namespace"),
        pytest.param(True, None, Verdict.OK, "no run has taken it yet", id="never-taken"),
        pytest.param(True, lease(None, NOW), Verdict.OK, "is free", id="free"),
        pytest.param(
            True,
            lease("pod/1", NOW - datetime.timedelta(seconds=5)),
            Verdict.OK,
            "a run is going on",
            id="held",
        ),
        pytest.param(
            True,
            lease("pod/1", NOW - datetime.timedelta(minutes=5)),
            Verdict.WARN,
            "expired 4m30s ago",
            id="holder-gone",
        ),
    ],
)
def test_the_run_lock_is_there_free_held_or_held_by_a_run_that_is_gone(
    there: bool, found: dict[str, Any] | None, verdict: Verdict, says: str
) -> None:
    finding = cluster.lock(LeaseRef("driftctl-system", "default"), there, found, NOW)

    assert finding.verdict is verdict
    assert says in finding.line


def deleting(webapp: dict[str, Any], ago: datetime.timedelta) -> dict[str, Any]:
    webapp["metadata"]["deletionTimestamp"] = (NOW - ago).strftime("%Y-%m-%dT%H:%M:%SZ")
    return webapp


def test_a_webapp_is_stuck_once_deleted_longer_than_the_bound() -> None:
    fresh = deleting(live_webapp("fresh"), datetime.timedelta(seconds=30))
    old = deleting(live_webapp("old"), datetime.timedelta(minutes=20))
    released = deleting(live_webapp("released"), datetime.timedelta(minutes=20))
    released["metadata"]["finalizers"] = []

    found = stuck.stuck([fresh, old, released, live_webapp("alive")], NOW, 600)

    assert [each.display for each in found] == ["WebApp/web/old"]


def deleted(*marks: tuple[str, str, object]) -> dict[str, Any]:
    """A WebApp deleted an hour ago, with each (metadata field, key, value) set (None: the
    key removed; an empty key: the field replaced)."""
    webapp = deleting(live_webapp(), datetime.timedelta(hours=1))
    for name, key, value in marks:
        where = webapp["metadata"].setdefault(name, {})
        if not key:
            webapp["metadata"][name] = value
        elif value is None:
            del where[key]
        else:
            where[key] = value
    return webapp


HANDMADE = ("managedFields", "", [{"manager": "kubectl-create", "operation": "Update"}])


@pytest.mark.parametrize(
    ("webapp", "refusal"),
    [
        pytest.param(deleted(), None, id="ours"),
        pytest.param(
            deleted(("labels", c.INSTANCE_LABEL, "blue")),
            "belongs to instance blue",
            id="another-instance",
        ),
        pytest.param(
            deleted(("labels", c.INSTANCE_LABEL, None)), "lacks the label", id="no-instance-label"
        ),
        pytest.param(
            deleted(("annotations", c.PRUNE_ANNOTATION, c.PRUNE_DISABLED)),
            "protected by the annotation",
            id="prune-opt-out",
        ),
        pytest.param(deleted(HANDMADE), "driftctl cannot prove it applied it", id="made-by-hand"),
        pytest.param(live_webapp(), "is not being deleted", id="not-deleting"),
    ],
)
def test_a_release_needs_the_proofs_a_prune_needs(
    webapp: dict[str, Any], refusal: str | None
) -> None:
    decided = stuck.release(webapp, "default")

    if refusal is None:
        assert decided.refusal is None
        assert decided.patch == [
            {"op": "test", "path": "/metadata/finalizers/0", "value": c.FINALIZER},
            {"op": "remove", "path": "/metadata/finalizers/0"},
        ]
    else:
        assert decided.patch is None
        assert refusal in (decided.refusal or "")


KEY = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + bytes(32)).decode()


def test_allowed_signers_are_read_as_ssh_keygen_reads_them() -> None:
    text = (
        "# the team\n\n"
        f"alice@example.invalid ssh-ed25519 {KEY}\n"
        f'bob@example.invalid namespaces="git" ssh-ed25519 {KEY} bob\n'
        "carol@example.invalid ssh-ed25519 not*base64\n"
        "just-a-name\n"
    )

    assert local.allowed_signer_problems(text) == (
        2,
        [
            "line 5: its ssh-ed25519 key is not base64",
            "line 6: not `PRINCIPALS [OPTIONS] KEYTYPE BASE64`",
        ],
    )


def test_doctor_exits_0_when_all_pass_1_with_warnings_4_when_one_fails() -> None:
    good = ok("cluster", "answers")

    assert exit_code([good]) is ExitCode.OK
    assert exit_code([good, warn("lock", "stale", "unlock")]) is ExitCode.CHANGES
    assert (
        exit_code([good, warn("lock", "stale", None), fail("git", "no", None)])
        is ExitCode.ENVIRONMENT
    )


def test_the_text_is_one_line_per_check_with_its_hint_under_it() -> None:
    text = doctor_text(
        [ok("cluster", "answers"), fail("permissions", "may not delete", "kubectl patch")]
    )

    assert text.splitlines() == [
        "ok    cluster      answers",
        "fail  permissions  may not delete",
        "                   hint: kubectl patch",
        "",
        "doctor: 1 failed, 0 warnings, 1 ok",
    ]
