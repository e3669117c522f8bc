"""Notifications, the pure half: which items a run makes, which are new, the bodies.

What a run did or found becomes items of the categories `--notify-on` names; a receiver is
told an item once, again when it changes or a reminder is due, and a condition once more
when it is gone; digests stay within their bytes; the commit's state is posted once per
state. The sender's retries are checked against a loopback server.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
from pathlib import Path

import pytest

from driftctl.core.notify import forge
from driftctl.core.notify.facts import (
    CATEGORIES,
    RUN,
    Category,
    Item,
    RolloutFailure,
    RunFacts,
    items_of,
)
from driftctl.core.notify.outbox import Heading, digest_of
from driftctl.core.notify.record import (
    Told,
    decoded,
    encoded,
    merged,
    recorded,
    tidings,
)
from driftctl.core.planning.actions import (
    Conflict,
    Create,
    Held,
    Orphan,
    Plan,
    Prune,
    Quarantine,
    Refused,
    Skip,
    Update,
)
from driftctl.core.planning.changes import FieldChange, Kept
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome, RolloutState
from driftctl.core.planning.verbs import Verb
from driftctl.core.source.model import Place
from driftctl.errors import ClusterError, InvalidDesiredState, Problem, UsageError
from driftctl.pipeline.notify import Gatherer, Teller
from driftctl.render import digest, sinks
from driftctl.render.plan import change_text
from driftctl.settings import NOTIFY_ON, WHOLE, Cluster, Lock, Notify
from driftctl.settings.declare import build
from driftctl.shell.notify_http import Failed, Sent, send
from tests.support.receivers import accepting, answering, serving

SHOP = ObjectKey("Deployment", "web", "shop")
BLOG = ObjectKey("WebApp", "web", "blog")
SHA = "a" * 40
SCALED = FieldChange("spec.replicas", "replace", 5, 2, ("kubectl",))
GIT = FieldChange("spec.template.spec.containers[name=app].image", "replace", "a:1", "a:2")


def test_the_flag_names_every_category_of_the_core() -> None:
    assert tuple(str(category) for category in CATEGORIES) == NOTIFY_ON


def facts_of(*pairs: tuple[object, Outcome, str], refusals: tuple[str, ...] = ()) -> RunFacts:
    actions = tuple(action for action, _, _ in pairs)
    outcomes = tuple(
        ObjectOutcome(action.key, outcome, reason)  # type: ignore[attr-defined]
        for action, outcome, reason in pairs
    )
    plan = Plan(actions, revision=SHA)  # type: ignore[arg-type]
    return RunFacts(SHA, plan, ApplyReport(outcomes, SHA, refusals))


@pytest.mark.parametrize(
    ("action", "outcome", "reason", "expected"),
    [
        pytest.param(Update(SHOP, "", {}, (), (SCALED,)), Outcome.CONFIGURED, "",
                     [("drift", "drift corrected")], id="a field another manager set: drift"),
        pytest.param(Update(SHOP, "", {}, (), (SCALED, GIT)), Outcome.CONFIGURED, "",
                     [("drift", "drift corrected"), ("applied", "updated")],
                     id="drift and a Git change on one object: both"),
        pytest.param(Create(SHOP, "", {}, ()), Outcome.CREATED, "", [("applied", "created")],
                     id="created"),
        pytest.param(Prune(BLOG, "not in Git", {}), Outcome.DELETED, "",
                     [("prune", "pruned: not in Git")], id="pruned"),
        pytest.param(Conflict(BLOG, "another instance's"), Outcome.FAILED, "another instance's",
                     [("conflict", "another instance's")], id="conflict"),
        pytest.param(Refused(BLOG, "refused", "422"), Outcome.FAILED, "the server refused it",
                     [("invalid", "the server refused it")], id="refused by the API server"),
        pytest.param(Update(SHOP, "", {}, (), (GIT,)), Outcome.FAILED, "timed out",
                     [("error", "timed out")], id="failed"),
        pytest.param(Skip(SHOP, "selector differs (run with --recreate)", (GIT,)), Outcome.SKIPPED,
                     "", [("held", "selector differs (run with --recreate)")],
                     id="drift that stays: held"),
        pytest.param(Skip(SHOP, "its WebApp is being deleted"), Outcome.SKIPPED, "", [],
                     id="a skip that changes nothing: nothing"),
        pytest.param(Held(SHOP, "suspended by ops: incident 4711", Verb.UPDATE, "suspend",
                          (SCALED,)), Outcome.HELD, "",
                     [("held", "update held: suspended by ops: incident 4711")],
                     id="what a control holds: held"),
        pytest.param(Orphan(BLOG, "not in Git; deleted, keeping its Deployment"),
                     Outcome.ORPHANED, "",
                     [("prune", "orphaned: not in Git; deleted, keeping its Deployment")],
                     id="orphaned: a prune"),
        pytest.param(Quarantine(BLOG, "scaled to zero", {}, ()), Outcome.CONFIGURED, "",
                     [("prune", "quarantined: scaled to zero")], id="quarantined: a prune"),
    ],
)  # fmt: skip
def test_each_outcome_is_an_item_of_one_category(
    action: object, outcome: Outcome, reason: str, expected: list[tuple[str, str]]
) -> None:
    found = items_of(facts_of((action, outcome, reason)))
    assert [(str(item.category), item.what) for item in found] == sorted(
        expected, key=lambda pair: CATEGORIES.index(Category(pair[0]))
    )


def test_run_level_facts_are_items_of_the_run() -> None:
    invalid = InvalidDesiredState([Problem("apps/a.yaml", 3, 1, "spec.image: required")])
    assert [(i.category, i.subject, i.lines) for i in items_of(RunFacts(error=invalid))] == [
        (Category.INVALID, RUN, ("apps/a.yaml:3:1: spec.image: required",))
    ]
    assert items_of(RunFacts(error=ClusterError("unreachable")))[0].category is Category.ERROR
    guarded = items_of(facts_of(refusals=("refusing to prune 6 of 10",)))
    assert [(i.category, i.lines) for i in guarded] == [
        (Category.GUARD, ("refusing to prune 6 of 10",))
    ]
    rolled = items_of(RunFacts(rollouts=(RolloutFailure(SHOP, "ImagePullBackOff"),)))
    assert [(i.category, i.subject) for i in rolled] == [(Category.ROLLOUT, SHOP.display)]


def test_a_run_s_rollouts_come_from_its_report_failed_with_why_or_in_progress() -> None:
    cart = ObjectKey("WebApp", "web", "cart")
    report = ApplyReport(
        (),
        SHA,
        rollouts=(
            (SHOP, RolloutState.STALLED),
            (BLOG, RolloutState.TIMED_OUT),
            (cart, RolloutState.PROGRESSING),
        ),
        stalls=((SHOP, "ImagePullBackOff: Pod web/shop-1 cannot pull localhost/nope:1"),),
    )

    facts = RunFacts.of_report(SHA, Plan(()), report)

    assert [(i.category, i.subject, i.lines) for i in items_of(facts)] == [
        (Category.ROLLOUT, SHOP.display, ()),
        (Category.ROLLOUT, BLOG.display, ()),
    ]
    assert [f.reason for f in facts.rollouts] == [
        "ImagePullBackOff: Pod web/shop-1 cannot pull localhost/nope:1",
        "still rolling out when --wait-timeout ran out",
    ]
    assert facts.rolling == (cart,)
    assert forge.commit_state(facts) is forge.CommitState.FAILURE


WARN = "drift is reported and left as it is (drift-policy: warn)"


def warned(replicas: int) -> Kept:
    return Kept("spec.replicas", WARN, replicas, 2, held="drift")


def test_held_drift_carries_its_fields_so_a_new_value_is_news_and_the_same_is_not() -> None:
    def held_item(replicas: int, *, written: bool = False) -> Item:
        if written:  # the run that applied Git's image keeps the drifted replicas
            action: object = Update(SHOP, "", {}, (), (GIT,), kept=(warned(replicas),))
            outcome = Outcome.CONFIGURED
        else:  # the next runs write nothing: the whole object is held
            action = Held(SHOP, WARN, Verb.UPDATE, "drift", kept=(warned(replicas),))
            outcome = Outcome.HELD
        [found] = [i for i in items_of(facts_of((action, outcome, ""))) if i.category == "held"]
        return found

    four, six = held_item(4), held_item(6)

    assert four.what == f"update held: {WARN}"
    assert [change_text(change) for change in four.changes] == ["spec.replicas: 4 -> 2 (held)"]
    assert held_item(4, written=True) == four  # the same drift, however the run wrote around it
    assert held_item(4).fingerprint == four.fingerprint
    assert six.key == four.key
    assert six.fingerprint != four.fingerprint
    record = recorded(tidings([four], {}, 10.0, 0), {}, 10.0)
    assert not tidings([held_item(4)], record, 20.0, 0).worth_sending
    assert tidings([six], record, 20.0, 0).new == (six,)


def test_only_the_categories_asked_for_are_told() -> None:
    found = facts_of((Update(SHOP, "", {}, (), (SCALED, GIT)), Outcome.CONFIGURED, ""))
    assert [i.category for i in items_of(found, {Category.DRIFT})] == [Category.DRIFT]


def test_secret_like_values_are_masked_before_they_are_kept() -> None:
    token = FieldChange(
        "metadata.annotations.api-token", "replace", "a", "ghp_" + "x" * 30, ("kubectl",)
    )
    item = items_of(facts_of((Update(SHOP, "", {}, (), (token,)), Outcome.CONFIGURED, "")))[0]
    assert item.changes[0].after == "(masked)"


def item(what: str = "drift corrected", category: Category = Category.DRIFT) -> Item:
    return Item(category, SHOP.display, what, place=SHOP.place)


def test_an_item_is_told_once_again_when_it_changes_and_when_a_reminder_is_due() -> None:
    first = tidings([item()], {}, 1000.0, 3600)
    assert first.new == (item(),)
    record = recorded(first, {}, 1000.0)
    assert not tidings([item()], record, 2000.0, 3600).worth_sending
    assert tidings([item("another value")], record, 2000.0, 3600).new == (item("another value"),)
    assert tidings([item()], record, 4600.0, 3600).reminded == (item(),)
    assert not tidings([item()], record, 99_999.0, 0).worth_sending  # 0: never reminded


def test_a_condition_gone_is_resolved_once_and_a_happening_gone_is_forgotten() -> None:
    conflict = item("another instance's", Category.CONFLICT)
    record = recorded(tidings([conflict, item()], {}, 10.0, 0), {}, 10.0)
    gone = tidings([], record, 20.0, 0)
    assert [(r.category, r.subject) for r in gone.resolved] == [(Category.CONFLICT, SHOP.display)]
    assert recorded(gone, record, 20.0) == {}
    assert not tidings([], {}, 30.0, 0).worth_sending


def test_a_record_survives_its_json_and_a_damaged_one_is_empty() -> None:
    record = {"drift Deployment/web/shop": Told("0123456789abcdef", 12.5)}
    assert decoded(encoded(record)) == record
    assert decoded("{not json") == {}
    assert decoded('{"format": 99, "told": {}}') == {}


def test_watch_replaces_the_conditions_of_the_webapps_it_reconciled_and_keeps_what_happened() -> (
    None
):
    """A reconcile replaces its WebApps' conditions; what happened (a correction) waits to
    be told, whatever the reconciles after it find; a newer one of the same key replaces it."""
    other = Item(
        Category.DRIFT, "Deployment/web/blog", "drift corrected", place=Place("web", "blog")
    )
    failed = Item(Category.ERROR, RUN, "Git unreachable")
    conflict = Item(Category.CONFLICT, SHOP.display, "another instance's", place=SHOP.place)
    standing = (item(), other, failed, conflict)
    assert merged(standing, (), frozenset({SHOP.place})) == (item(), other, failed)
    assert merged(standing, (), None) == (item(), other)
    again = item("drift corrected again")
    assert merged(standing, (again,), frozenset({SHOP.place})) == (other, failed, again)


def heading(exit_code: int = 0) -> Heading:
    return Heading("default", SHA, exit_code, 1_800_000_000.0)


def test_a_digest_names_each_object_and_stays_within_its_bytes() -> None:
    many = [
        Item(Category.DRIFT, f"Deployment/web/app-{n:04}", "drift corrected", (SCALED,))
        for n in range(2000)
    ]
    told = tidings(many, {}, 1.0, 0)
    text = digest.text(digest_of(heading(), told), 4096)
    assert len(text.encode()) <= 4096
    assert text.startswith("**driftctl** `default` at `aaaaaaaaaaaa`: 2000 new (exit 0)")
    assert "`Deployment/web/app-0000`: drift corrected" in text
    assert "spec.replicas: 5 -> 2 (changed by kubectl)" in text
    assert "more lines of this digest were cut" in text
    body = digest.json_body(digest_of(heading(), told), 8192)
    document = json.loads(body)
    assert len(body) <= 8192
    assert document["summary"]["new"] == 2000
    assert document["truncated"] == 2000 - len(document["items"]) > 0


def test_the_webhook_body_is_signed_with_hmac_sha256_of_its_bytes() -> None:
    post = sinks.webhook_post("http://127.0.0.1:1/hook?token=x", b'{"a":1}', b"secret")
    expected = hmac.new(b"secret", b'{"a":1}', hashlib.sha256).hexdigest()
    assert post.headers[sinks.SIGNATURE_HEADER] == f"sha256={expected}"
    assert post.what == "the webhook at http://127.0.0.1:1/hook"  # never the query


def test_an_alert_resolved_ends_now_and_a_firing_one_after_its_ttl() -> None:
    conflict = Item(Category.CONFLICT, SHOP.display, "another instance's")
    record = recorded(tidings([conflict], {}, 1_799_999_000.0, 0), {}, 1_799_999_000.0)
    gone = tidings([], record, heading().at, 0)
    post = sinks.alertmanager_post("http://am:9093", heading(), [conflict], gone.resolved, 3600)
    alerts = json.loads(post.body)
    assert post.url == "http://am:9093/api/v2/alerts"
    assert [(a["labels"]["alertname"], a["endsAt"]) for a in alerts] == [
        ("DriftctlConflict", "2027-01-15T09:00:00.000000Z"),
        ("DriftctlConflict", "2027-01-15T08:00:00.000000Z"),
    ]


@pytest.mark.parametrize(
    ("facts", "state"),
    [
        pytest.param(RunFacts(SHA, report=ApplyReport(())), forge.CommitState.SUCCESS,
                     id="success"),
        pytest.param(RunFacts(SHA, report=ApplyReport((), refusals=("no",))),
                     forge.CommitState.FAILURE, id="a guard refused"),
        pytest.param(RunFacts(SHA, error=ClusterError("gone")), forge.CommitState.ERROR,
                     id="stopped"),
        pytest.param(RunFacts(SHA, report=ApplyReport(()), rolling=(SHOP,)),
                     forge.CommitState.PENDING, id="rollouts in progress"),
        pytest.param(RunFacts(SHA + "-dirty", report=ApplyReport(())), None, id="no commit"),
    ],
)  # fmt: skip
def test_the_commit_applied_gets_one_state(
    facts: RunFacts, state: forge.CommitState | None
) -> None:
    assert forge.commit_state(facts) == state


def test_a_state_is_posted_once_per_commit_and_the_record_stays_short() -> None:
    record = forge.posted({}, SHA, forge.CommitState.SUCCESS, 1.0, deployment=7)
    assert not forge.needs_post(record, SHA, forge.CommitState.SUCCESS)
    assert forge.needs_post(record, SHA, forge.CommitState.FAILURE)
    assert forge.deployment_of(record, SHA) == 7
    for n in range(20):
        record = forge.posted(record, f"{n:040x}", forge.CommitState.SUCCESS, 2.0 + n)
    assert len({key.split()[1] for key in record}) == forge.MAX_COMMITS


@pytest.mark.parametrize(
    "flags",
    [
        pytest.param({"notify_on": "drift,typo"}, id="an unknown category"),
        pytest.param({"github_repo": "platform/webapps"}, id="GitHub without a token file"),
        pytest.param({"github_repo": "not a repo", "github_token_file": Path("t")}, id="bad repo"),
        pytest.param({"gitlab_project": "p", "gitlab_token_file": Path("t")},
                     id="GitLab without its API"),
        pytest.param({"webhook_url": "http://user:pw@hook"}, id="credentials in a URL"),
        pytest.param({"webhook_secret_file": Path("s")}, id="a secret without a webhook"),
    ],
)  # fmt: skip
def test_settings_that_cannot_work_are_refused(flags: dict[str, object]) -> None:
    given: dict[str, object] = {
        "notify_on": ",".join(NOTIFY_ON), "notify_repeat": 0.0, "notify_timeout": 10.0,
        "notify_max_bytes": 16384, "webhook_url": None, "webhook_secret_file": None,
        "slack_webhook_file": None, "alertmanager_url": None, "alertmanager_ttl": 3600.0,
        "github_repo": None, "github_token_file": None, "github_api": "https://api.github.com",
        "github_environment": None, "gitlab_project": None, "gitlab_token_file": None,
        "gitlab_api": None,
    }  # fmt: skip
    with pytest.raises(UsageError):
        build(Notify, {**given, **flags}, "apply")


@pytest.mark.parametrize(
    ("script", "answered", "sent"),
    [
        pytest.param([503, 429], [503, 429, 200], True, id="transient answers are tried again"),
        pytest.param([400], [400], False, id="a refusal is not"),
        pytest.param([302], [302], False, id="a redirect is not followed"),
    ],
)
def test_the_sender_tries_again_only_what_may_pass(
    script: list[int], answered: list[int], sent: bool
) -> None:
    elsewhere = {"Location": "http://127.0.0.1:9/elsewhere"}  # where a 302 points; others ignore it
    with answering(script, elsewhere) as (url, seen):
        outcome = send(sinks.slack_post(url, b"{}"), 10.0, sleep=lambda seconds: None)
    assert seen == answered
    assert isinstance(outcome, Sent if sent else Failed)


def test_watch_gathers_the_reconciles_of_a_window_into_one_digest(tmp_path: Path) -> None:
    """Two reconciles heard, one digest sent; a later reconcile of the same WebApp that finds
    nothing (a status refresh) loses nothing; heard nothing more, nothing more sent. With no
    cluster to keep the record in, the digest still goes out and the log says so."""
    warnings: list[str] = []
    cluster = Cluster(kubeconfig=str(tmp_path / "missing"))
    with serving(accepting) as receiver:
        notify = Notify(webhook_url=receiver.url)
        gatherer = Gatherer(Teller(notify, cluster, Lock(namespace="ops"), WHOLE, warnings.append))
        for key in (SHOP, ObjectKey("Deployment", "web", "blog")):
            update = Update(key, "", {}, (), (SCALED,))
            facts = facts_of((update, Outcome.CONFIGURED, ""))
            gatherer.heard(RunFacts(SHA, facts.plan, facts.report, scope=frozenset({key.place})))
        refreshed = facts_of((Update(SHOP, "", {}, (), ()), Outcome.UNCHANGED, ""))  # a status
        gatherer.heard(dataclasses.replace(refreshed, scope=frozenset({SHOP.place})))
        gatherer.flush()
        gatherer.flush()

    assert len(receiver.received) == 1
    told = [(i["category"], i["object"]) for i in receiver.received[0].json["items"]]
    assert told == [("drift", "Deployment/web/shop"), ("drift", "Deployment/web/blog")]
    assert any("what was last told cannot be read" in w for w in warnings), warnings
