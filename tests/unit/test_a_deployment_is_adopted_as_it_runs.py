"""A Deployment its WebApp controls, with a selector driftctl would not build, is adopted as
it runs: its selector and Pod template are kept, so no ReplicaSet is replaced and no Pod
restarts; `--recreate` still moves it to driftctl's selector. The plan says `adopt`, and
shows a selector and an ownerReference as people read them."""

from __future__ import annotations

import copy

import pytest

from driftctl import conventions as c
from driftctl.core.planning.actions import (
    Adopt,
    Replace,
    Unchanged,
    Update,
    changes_of,
    patch_of,
)
from driftctl.core.planning.changes import field_changes, patch_between
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import (
    Stamp,
    build_deployment,
    keeping_selector,
    selector_text,
)
from driftctl.core.planning.objects import Obj, ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.planning.saved_plan import (
    CrdIdentity,
    PlanIdentity,
    parse_saved_plan,
    saved_plan_json,
)
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import WebApp, WebAppSpec
from driftctl.render.plan import action_lines, change_text
from driftctl.render.style import Style
from driftctl.settings import Drift, Policy
from tests.support.builders import captured_webapp
from tests.support.seed_operator import operator_deployment

STAMP = Stamp("default", "1" * 40, "https://git.example.org/team/apps.git#apps")
SHOP = WebApp("shop", "web", WebAppSpec("nginx:1.27", 2))
WEBAPP = ObjectKey(c.KIND, "web", "shop")
DEPLOYMENT = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")
UID = "uid-shop"


def operator_webapp() -> Obj:
    """The WebApp as the seed operator's user made it: no instance label, its finalizer."""
    webapp = captured_webapp(labels={})
    webapp["metadata"]["uid"] = UID
    webapp["spec"] = {"image": "nginx:1.27", "replicas": 2}
    return webapp


def operator_made(**changed: object) -> Obj:
    deployment = operator_deployment("web", "shop", "nginx:1.27", 2, UID)
    deployment["metadata"] |= {"uid": "uid-deployment", "generation": 1, **changed}
    return deployment


def as_stored(deployment: Obj) -> Obj:
    """The operator's Deployment as the API server stores it (its defaults trimmed to two),
    with the fields `webapp-operator` owns, as captured from a real one."""
    deployment = copy.deepcopy(deployment)
    deployment["spec"]["revisionHistoryLimit"] = 10
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["imagePullPolicy"] = "IfNotPresent"
    deployment["metadata"]["managedFields"] = [
        {
            "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1",
            "manager": "webapp-operator",
            "operation": "Apply",
            "fieldsV1": {
                "f:metadata": {
                    "f:labels": {"f:app": {}},
                    "f:ownerReferences": {f'k:{{"uid":"{UID}"}}': {}},
                },
                "f:spec": {
                    "f:replicas": {},
                    "f:selector": {},
                    "f:template": {
                        "f:metadata": {"f:labels": {"f:app": {}}},
                        "f:spec": {
                            "f:containers": {
                                'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}}
                            }
                        },
                    },
                },
            },
        }
    ]
    return deployment


def found(deployment: Obj) -> LiveState:
    """Neither is this instance's yet: both are found by the extra reads."""
    return LiveState.of([], []).with_found([operator_webapp()], [deployment], [])


def dry_run_of(manifest: Obj, live: Obj) -> Obj:
    """What the API server answers a dry-run apply of `manifest` over `live` with, here:
    the live object with the manifest's labels and ownerReference (nothing else differs)."""
    answer = copy.deepcopy(live)
    answer["metadata"]["labels"] = dict(manifest["metadata"]["labels"])
    answer["metadata"]["ownerReferences"] = copy.deepcopy(manifest["metadata"]["ownerReferences"])
    return answer


def test_the_operator_s_deployment_is_adopted_with_its_selector_and_template_kept() -> None:
    live = operator_made()

    preparation = prepare([SHOP], found(live), STAMP)

    [candidate] = [each for each in preparation.candidates if each.key == DEPLOYMENT]
    assert candidate.adopting
    assert candidate.manifest["spec"]["selector"] == {"matchLabels": {"app": "shop"}}
    assert candidate.manifest["spec"]["template"] == live["spec"]["template"]
    assert candidate.manifest["metadata"]["labels"][c.INSTANCE_LABEL] == "default"


def answers(live: Obj) -> dict[ObjectKey, Obj]:
    """The dry-run answers of a plan of SHOP: the WebApp as applied, the Deployment's."""
    preparation = prepare([SHOP], found(live), STAMP)
    applied = {each.key: each.manifest for each in preparation.candidates}
    webapp = copy.deepcopy(applied[WEBAPP])
    webapp["metadata"]["uid"] = UID
    return {WEBAPP: webapp, DEPLOYMENT: dry_run_of(applied[DEPLOYMENT], live)}


def test_the_plan_says_adopt_and_why() -> None:
    live = operator_made()
    preparation = prepare([SHOP], found(live), STAMP)

    plan = finish(preparation, answers(live))

    adopted = {action.key: action for action in plan.actions}
    assert adopted[DEPLOYMENT].verb is Verb.ADOPT
    assert isinstance(adopted[DEPLOYMENT], Adopt)
    assert adopted[DEPLOYMENT].reason == (
        "its WebApp controls it; its selector app=shop and Pod template are kept, so no Pod "
        "restarts (--recreate moves it to driftctl's selector); taken over"
    )
    assert adopted[WEBAPP].verb is Verb.ADOPT  # the WebApp made without an instance label
    assert not any(change.path.startswith("spec.") for change in changes_of(adopted[DEPLOYMENT]))


def test_with_recreate_it_is_replaced_with_driftctl_s_selector() -> None:
    plan = finish(prepare([SHOP], found(operator_made()), STAMP, Policy(recreate=True)), {})

    [replace] = [action for action in plan.actions if action.key == DEPLOYMENT]
    assert isinstance(replace, Replace)
    assert (
        replace.manifest["spec"]["selector"]
        == build_deployment(SHOP, "default", UID)["spec"]["selector"]
    )


def test_a_replace_shows_the_operator_s_labels_going_and_the_server_s_defaults_staying() -> None:
    """The Deployment made again holds driftctl's manifest and the server's defaults: the
    operator's `app` labels go, its container stays the same container."""
    stored = as_stored(operator_made())
    plan = finish(prepare([SHOP], found(stored), STAMP, Policy(recreate=True)), {})

    [replace] = [action for action in plan.actions if action.key == DEPLOYMENT]
    assert [change_text(change) for change in changes_of(replace)] == [
        'metadata.labels.app: "shop" -> (none) (changed by webapp-operator)',
        'metadata.labels.app.kubernetes.io/name: (none) -> "shop"',
        'metadata.labels.app.kubernetes.io/managed-by: (none) -> "driftctl"',
        'metadata.labels.driftctl.example.com/instance: (none) -> "default"',
        f"metadata.ownerReferences[uid={UID}]: WebApp/shop controller -> "
        "WebApp/shop controller blockOwnerDeletion (changed by webapp-operator)",
        "spec.selector: app=shop -> "
        "app.kubernetes.io/instance=shop,app.kubernetes.io/name=shop (changed by webapp-operator)",
        'metadata.labels.app.kubernetes.io/instance: (none) -> "shop"',
        'spec.template.metadata.labels.app: "shop" -> (none) (changed by webapp-operator)',
        'spec.template.metadata.labels.app.kubernetes.io/name: (none) -> "shop"',
        'spec.template.metadata.labels.app.kubernetes.io/instance: (none) -> "shop"',
    ]
    # The container keeps its server default: it is the same container still.
    assert not [op for op in patch_of(replace) if "/containers" in op["path"]]


def test_once_this_instance_s_it_is_updated_or_unchanged_with_its_selector_kept() -> None:
    """After the adoption the Deployment carries the instance label: a later change of Git
    is an update that keeps the selector; nothing is adopted twice."""
    adopted = keeping_selector(build_deployment(SHOP, "default", UID), operator_made())
    live = copy.deepcopy(adopted) | {"status": {}}
    live["metadata"] |= {"uid": "uid-deployment", "generation": 1}
    state = LiveState.of([operator_webapp()], [live])
    newer = WebApp("shop", "web", WebAppSpec("nginx:1.28", 2))

    same = finish(prepare([SHOP], state, STAMP), {WEBAPP: operator_webapp(), DEPLOYMENT: live})
    preparation = prepare([newer], state, STAMP)
    [candidate] = [each for each in preparation.candidates if each.key == DEPLOYMENT]

    assert {a.key: type(a) for a in same.actions}[DEPLOYMENT] is Unchanged
    assert not candidate.adopting
    assert candidate.manifest["spec"]["selector"] == {"matchLabels": {"app": "shop"}}
    answer = copy.deepcopy(live)
    answer["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    [update] = [a for a in finish(preparation, {DEPLOYMENT: answer}).actions if a.key == DEPLOYMENT]
    assert type(update) is Update


@pytest.mark.parametrize(
    ("selector", "template", "kept"),
    [
        pytest.param(
            {"matchLabels": {"app": "shop"}},
            {"app": "shop", "team": "a"},
            {"app": "shop"},
            id="match-labels",
        ),
        pytest.param(
            {
                "matchLabels": {"app": "shop"},
                "matchExpressions": [
                    {"key": "tier", "operator": "In", "values": ["web", "api"]},
                    {"key": "canary", "operator": "DoesNotExist"},
                ],
            },
            {"app": "shop", "tier": "web", "team": "a"},
            {"app": "shop", "tier": "web"},
            id="match-expressions",
        ),
    ],
)
def test_the_template_is_labelled_as_the_live_one_for_its_selector_and_nothing_more(
    selector: Obj, template: Obj, kept: Obj
) -> None:
    live = operator_made()
    live["spec"]["selector"] = selector
    live["spec"]["template"]["metadata"]["labels"] = template

    manifest = keeping_selector(build_deployment(SHOP, "default", UID), live)

    assert manifest["spec"]["selector"] == selector
    assert manifest["spec"]["template"]["metadata"]["labels"] == kept


@pytest.mark.parametrize(
    ("selector", "text"),
    [
        pytest.param({"matchLabels": {"app": "shop"}}, "app=shop", id="one-label"),
        pytest.param(
            {
                "matchLabels": {"b": "2", "a": "1"},
                "matchExpressions": [
                    {"key": "tier", "operator": "NotIn", "values": ["db"]},
                    {"key": "canary", "operator": "DoesNotExist"},
                    {"key": "track", "operator": "Exists"},
                ],
            },
            "a=1,b=2,tier notin (db),!canary,track",
            id="expressions",
        ),
        pytest.param({}, "(empty)", id="empty"),
    ],
)
def test_a_selector_reads_as_kubectl_writes_it(selector: Obj, text: str) -> None:
    assert selector_text(selector) == text


def test_a_replaced_selector_and_ownerreference_read_as_one_change_each() -> None:
    live = operator_made()
    after = build_deployment(SHOP, "default", UID)
    after["metadata"]["labels"] = dict(live["metadata"]["labels"])
    after["spec"]["template"] = copy.deepcopy(live["spec"]["template"])
    patch = patch_between(live, after)

    changes = field_changes(live, after, patch, "driftctl")

    shown = [change_text(change) for change in changes]
    assert shown == [
        f"metadata.ownerReferences[uid={UID}]: WebApp/shop controller -> "
        "WebApp/shop controller blockOwnerDeletion",
        "spec.selector: app=shop -> app.kubernetes.io/instance=shop,app.kubernetes.io/name=shop",
    ]


def test_an_adoption_prints_as_adopt() -> None:
    live = operator_made()
    preparation = prepare([SHOP], found(live), STAMP)
    plan = finish(preparation, answers(live))
    [adopt] = [action for action in plan.actions if action.key == DEPLOYMENT]

    lines = action_lines(adopt, Style())

    assert lines[0].startswith("~ Deployment/web/shop: adopt (its WebApp controls it;")
    assert (
        f"    metadata.ownerReferences[uid={UID}]: WebApp/shop controller -> "
        "WebApp/shop controller blockOwnerDeletion" in lines
    )


def test_a_saved_plan_keeps_an_adoption() -> None:
    """`plan --out` then `apply --plan`: an adopt reads back as the Adopt it was."""
    live = operator_made()
    plan = finish(prepare([SHOP], found(live), STAMP), answers(live))
    who = PlanIdentity(
        "default", "driftctl", STAMP.source, STAMP.revision, "web", CrdIdentity.current()
    )

    text = saved_plan_json(plan, found(live), who, Policy(), Drift())

    assert parse_saved_plan(text, "plan.json").plan == plan
    assert [type(action) for action in plan.actions] == [Adopt, Adopt]


def test_labels_added_whole_read_member_by_member() -> None:
    """A WebApp made without labels gets driftctl's: one line each, never a cut-off map."""
    live = operator_webapp()
    del live["metadata"]["labels"]
    after = copy.deepcopy(live)
    after["metadata"]["labels"] = {c.MANAGED_BY_LABEL: "driftctl", c.INSTANCE_LABEL: "default"}

    changes = field_changes(live, after, patch_between(live, after), "driftctl")

    assert [change_text(change) for change in changes] == [
        'metadata.labels.app.kubernetes.io/managed-by: (none) -> "driftctl"',
        'metadata.labels.driftctl.example.com/instance: (none) -> "default"',
    ]
