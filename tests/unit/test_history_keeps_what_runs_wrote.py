"""The instance's history, decided by the pure core: what one run's record says of each
WebApp it wrote, the ring that keeps the records bounded, and what `history` reads back."""

from __future__ import annotations

import pytest

from driftctl import conventions as c
from driftctl.core.history.query import entries, last_entries, records, runs
from driftctl.core.history.record import PART_BYTES, Change, RunOf, RunRecord, lines_of, record_of
from driftctl.core.history.ring import SEGMENT_BYTES, SLOTS, Segment, appended, in_order
from driftctl.core.planning.actions import Cleanup, Create, Plan, Prune, Unchanged, Update
from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.outcomes import ApplyReport, ObjectOutcome, Outcome
from driftctl.core.source.model import Place
from driftctl.kube_formats import parse_api_time
from driftctl.label_selectors import parse_selector
from driftctl.settings import Selection
from tests.support.builders import live_webapp

WEBAPP = ObjectKey(c.KIND, "web", "shop")
DEPLOYMENT = ObjectKey(c.DEPLOYMENT_KIND, "web", "shop")
BLOG = ObjectKey(c.KIND, "web", "blog")
AT = "2026-12-02T10:00:00Z"
REVISION = "2" * 40


def manifest(labels: dict[str, str]) -> dict[str, object]:
    return {"metadata": {"name": "shop", "labels": {c.INSTANCE_LABEL: "default", **labels}}}


def ran(*outcomes: tuple[ObjectKey, Outcome]) -> ApplyReport:
    return ApplyReport(tuple(ObjectOutcome(key, outcome) for key, outcome in outcomes))


def one_record(plan: Plan, report: ApplyReport) -> RunRecord | None:
    webapps = {Place("web", "shop"): live_webapp("shop")}
    return record_of(plan, report, RunOf(AT, "driftctl-29400000-abcde", webapps))


def test_a_change_from_git_records_its_fields_and_the_revision_before() -> None:
    image = FieldChange.of("spec.image", "nginx:1.27", "nginx:1.28")
    revision = FieldChange.of(f"metadata.annotations.{c.REVISION_ANNOTATION}", "1" * 40, REVISION)
    plan = Plan(
        (
            Update(WEBAPP, "differs", manifest({"team": "web"}), (), (image, revision)),
            Update(DEPLOYMENT, "differs", {}, (), (FieldChange.of("spec.replicas", 2, 3),)),
        ),
        revision=REVISION,
    )

    record = one_record(plan, ran((WEBAPP, Outcome.CONFIGURED), (DEPLOYMENT, Outcome.CONFIGURED)))

    assert record == RunRecord(
        AT,
        "driftctl-29400000-abcde",
        REVISION,
        (
            Change(
                "web/shop", "configured", "git", ("spec.image", "Deployment spec.replicas"),
                "1" * 40, "", {"team": "web"},
            ),
        ),
    )  # fmt: skip


def test_drift_put_back_is_drift_and_a_failure_keeps_its_reason() -> None:
    scaled = FieldChange("spec.replicas", "replace", 5, 2, managers=("kubectl-scale",))
    plan = Plan((Update(DEPLOYMENT, "differs", {}, (), (scaled,)),), revision=REVISION)
    failed = ApplyReport((ObjectOutcome(DEPLOYMENT, Outcome.FAILED, "409 Conflict"),))

    record = one_record(plan, failed)

    assert record is not None
    [change] = record.changes
    assert (change.outcome, change.cause, change.fields, change.reason) == (
        "failed", "drift", ("Deployment spec.replicas",), "409 Conflict",
    )  # fmt: skip


def test_a_cleanup_then_a_create_of_one_webapp_records_the_gravest_outcome() -> None:
    plan = Plan(
        (
            Cleanup(WEBAPP, "deleted in the cluster", (), ()),
            Create(WEBAPP, "declared", manifest({}), ()),
        ),
        revision=REVISION,
    )
    report = ApplyReport(
        (
            ObjectOutcome(WEBAPP, Outcome.FAILED, "cleanup: 403 Forbidden"),
            ObjectOutcome(WEBAPP, Outcome.CREATED),
        )
    )

    record = one_record(plan, report)

    assert record is not None
    assert [(c.outcome, c.cause, c.reason) for c in record.changes] == [
        ("failed", "cleanup", "cleanup: 403 Forbidden")
    ]


def test_a_run_that_wrote_nothing_has_no_record() -> None:
    plan = Plan((Unchanged(WEBAPP), Unchanged(DEPLOYMENT)), revision=REVISION)

    assert one_record(plan, ran((WEBAPP, Outcome.UNCHANGED))) is None


def test_a_prune_keeps_the_labels_the_webapp_had() -> None:
    live = live_webapp("blog")
    live["metadata"]["labels"]["team"] = "docs"
    plan = Plan((Prune(BLOG, "not declared in Git", {}),), revision=REVISION)

    record = record_of(plan, ran((BLOG, Outcome.DELETED)), RunOf(AT, "x", {BLOG.place: live}))

    assert record is not None
    assert record.changes[0].labels == {c.NAME_LABEL: "shop", "team": "docs"}


def fleet(count: int, run: int = 0) -> RunRecord:
    changes = tuple(
        Change(f"web/app-{i:05d}", "created", "git", ("spec.image",)) for i in range(count)
    )
    return RunRecord(
        f"2026-12-02T10:{run // 60:02d}:{run % 60:02d}Z", f"run-{run}", REVISION, changes
    )


def test_a_large_record_is_cut_into_parts_that_read_back_as_one() -> None:
    record = fleet(10_000)

    lines = lines_of(record)

    assert len(lines) > 1
    assert all(len(line.encode()) <= PART_BYTES for line in lines)
    assert records(lines) == [record]


def test_two_runs_of_one_host_in_one_second_at_one_revision_stay_two_records() -> None:
    # A commit applied, then a drift put back by the next run on the same laptop, within a
    # second: they were read back as one run, the later change listed first.
    applied = RunRecord(fleet(1).at, "laptop", REVISION, (Change("web/shop", "configured", "git"),))
    put_back = RunRecord(
        fleet(1).at, "laptop", REVISION, (Change("web/shop", "configured", "drift"),)
    )

    assert records([*lines_of(applied), *lines_of(put_back)]) == [applied, put_back]


def test_a_thousand_runs_stay_within_the_ring_and_the_oldest_go_first() -> None:
    head, slots = Segment(), [Segment() for _ in range(SLOTS)]
    for run in range(1000):
        head, sealed = appended(head, lines_of(fleet(30, run)))
        for each in sealed:
            slots[each.slot] = each.segment
        assert head.size <= SEGMENT_BYTES
        assert all(slot.size <= SEGMENT_BYTES for slot in slots)

    kept = [int(record.run.removeprefix("run-")) for record in records(in_order(head, slots))]

    assert kept == list(range(1000 - len(kept), 1000))
    assert 300 < len(kept) < 1000


def test_history_picks_by_name_by_label_and_by_age() -> None:
    old = RunRecord(
        "2026-12-01T10:00:00Z",
        "a",
        "1" * 40,
        (Change("web/shop", "created", "git", labels={"team": "web"}),),
    )
    new = RunRecord(
        AT,
        "b",
        REVISION,
        (
            Change("web/shop", "configured", "drift", labels={"team": "web"}),
            Change("web/blog", "deleted", "git"),
        ),
    )
    found = [old, new]
    cutoff = parse_api_time("2026-12-02T00:00:00Z")

    assert [r.run for r in runs(found, None)] == ["b", "a"]
    assert [r.run for r in runs(found, cutoff)] == ["b"]
    assert [
        (e.run, e.change.outcome) for e in entries(found, Selection(names=("shop",)), None)
    ] == [
        ("b", "configured"),
        ("a", "created"),
    ]
    by_label = Selection(requirements=parse_selector("team=web"))
    assert [e.change.webapp for e in entries(found, by_label, cutoff)] == ["web/shop"]
    assert {place: e.change.outcome for place, e in last_entries(found).items()} == {
        Place("web", "shop"): "configured",
        Place("web", "blog"): "deleted",
    }


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("not json", id="damaged"),
        pytest.param('{"no": "at"}', id="another-shape"),
        pytest.param("[1, 2]", id="not-an-object"),
    ],
)
def test_a_line_that_is_not_a_record_is_passed_over(line: str) -> None:
    good = lines_of(fleet(1))

    assert records([line, *good]) == [fleet(1)]
