"""A receiver's outbox, the pure half: what waits is kept whole and in order, within its
bounds (the oldest counted exactly), claimed by one run at a time, and gone once delivered;
its digests keep their ids through the record's JSON and go out marked late.
"""

from __future__ import annotations

import dataclasses
import json

from driftctl.core.notify import outbox as box
from driftctl.core.notify.facts import Category, Item
from driftctl.core.notify.outbox import MAX_ENTRIES, MAX_OUTBOX_BYTES, Digest, Heading, Missed
from driftctl.core.notify.record import Resolved, Told, tidings
from driftctl.core.planning.changes import FieldChange
from driftctl.render import digest as render

AT = 1_800_000_000.0


def digest(run: int, items: int = 1, what: str = "drift corrected") -> Digest:
    found = [
        Item(
            Category.DRIFT,
            f"Deployment/web/app-{run}-{n}",
            what,
            (FieldChange("spec.replicas", "replace", 5, 2, ("kubectl",)),),
        )
        for n in range(items)
    ]
    heading = Heading("default", f"{run:040x}", 0, AT + 60 * run)
    return box.digest_of(heading, tidings(found, {}, heading.at, 0))


def test_a_digest_survives_the_record_s_json_with_its_id() -> None:
    resolved = Resolved(Category.CONFLICT, "Deployment/web/shop", AT - 5)
    made = dataclasses.replace(digest(1, items=3), resolved=(resolved,))
    kept, _ = box.claimed(box.kept(box.Outbox(), made, 16_384), "run-a", AT, AT + 40)
    text = box.document_text({"drift x": Told("f", AT)}, kept)

    told, back = box.document_of(text)

    assert told == {"drift x": Told("f", AT)}
    assert back == kept
    assert box.document_of(json.dumps({"format": 1, "told": {}, "outbox": "junk"})) == (
        {},
        box.Outbox(),
    )


def test_the_same_digest_has_the_same_id_and_another_run_s_another() -> None:
    assert digest(1).id == digest(1).id
    assert digest(1).id != digest(2).id


def test_the_oldest_digests_are_folded_and_counted_exactly_past_max_entries() -> None:
    outbox = box.Outbox()
    for run in range(50):
        outbox = box.kept(outbox, digest(run, items=2), 16_384)

    first, *rest = [entry.letter for entry in outbox.entries]
    assert isinstance(first, Missed)
    assert len(rest) == MAX_ENTRIES
    assert [each.heading.revision for each in rest] == [f"{run:040x}" for run in range(30, 50)]
    assert (first.digests, first.items) == (30, (("drift", 60),))
    assert (first.first_revision, first.heading.revision) == (f"{0:040x}", f"{29:040x}")
    assert box.weight(outbox) <= MAX_OUTBOX_BYTES


def test_big_digests_are_cut_to_their_bytes_and_fold_by_weight() -> None:
    outbox = box.Outbox()
    for run in range(12):
        outbox = box.kept(outbox, digest(run, items=400, what="x" * 100), 10**6)

    letters = [entry.letter for entry in outbox.entries]
    assert box.weight(outbox) <= MAX_OUTBOX_BYTES
    assert isinstance(letters[0], Missed)
    kept = [each for each in letters if isinstance(each, Digest)]
    assert all(each.cut > 0 and len(each.told) + each.cut == 400 for each in kept)
    assert letters[0].digests + len(kept) == 12
    assert sum(n for _, n in letters[0].items) + letters[0].cut == 400 * letters[0].digests


def test_one_run_claims_what_it_sends_and_another_leaves_it_until_the_claim_lapses() -> None:
    outbox = box.kept(box.kept(box.Outbox(), digest(1), 16_384), digest(2), 16_384)

    mine, letters = box.claimed(outbox, "run-a", AT, AT + 40)
    theirs, none = box.claimed(mine, "run-b", AT + 1, AT + 41)
    later, lapsed = box.claimed(mine, "run-b", AT + 40, AT + 80)

    assert [each.id for each in letters] == list(outbox.ids)
    assert (theirs, none) == (mine, ())
    assert [each.id for each in lapsed] == list(outbox.ids)
    assert all(entry.claim == box.Claim("run-b", AT + 80) for entry in later.entries)


def test_what_was_delivered_leaves_and_the_rest_is_released_for_the_next_run() -> None:
    outbox = box.kept(box.kept(box.Outbox(), digest(1), 16_384), digest(2), 16_384)
    mine, _ = box.claimed(outbox, "run-a", AT, AT + 40)
    grown = box.kept(mine, digest(3), 16_384)  # another run's digest, kept meanwhile

    after = box.settled(grown, "run-a", [digest(1).id])

    assert after.ids == (digest(2).id, digest(3).id)
    assert all(entry.claim is None for entry in after.entries)


def test_a_late_digest_says_so_with_its_run_s_time_and_revision() -> None:
    late = dataclasses.replace(digest(1), late=True)

    body = json.loads(render.json_body(late, 16_384))

    assert (body["id"], body["late"], body["revision"]) == (late.id, True, f"{1:040x}")
    assert body["time"] == "2027-01-15T08:01:00Z"
    assert "late: from the run at 2027-01-15T08:01:00Z" in body["text"].splitlines()[0]
    assert json.loads(render.json_body(digest(1), 16_384))["late"] is False


def test_the_summary_of_folded_digests_is_a_digest_that_counts_them() -> None:
    missed = box.folded(box.folded(None, digest(1, items=2)), digest(2, items=3))

    body = json.loads(render.json_body(missed, 16_384))

    assert (body["late"], body["items"]) == (True, [])
    assert body["missed"]["digests"] == 2
    assert body["missed"]["items"] == {"drift": 5}
    assert body["missed"]["from"]["revision"] == f"{1:040x}"
    assert "2 earlier digests were not delivered" in body["text"]
    assert "Drift corrected: 5" in render.text(missed, 4096)
