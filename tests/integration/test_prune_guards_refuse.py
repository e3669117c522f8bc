"""Every prune guard refuses on the real cluster, with a message naming why."""

from __future__ import annotations

import json

from driftctl import conventions as c
from tests.support.harness import Harness

FOUR = dict.fromkeys(("a", "b", "c", "d"), ("nginx:1.27", 1))


def converged(harness: Harness, apps: dict[str, tuple[str, int]] = FOUR) -> Harness:
    harness.declare(apps)
    first = harness.driftctl("apply")
    assert first.code == 0, first.err
    return harness


def test_an_object_without_this_instance_label_is_never_seen_or_deleted(harness: Harness) -> None:
    foreign = {
        "apiVersion": c.API_VERSION,
        "kind": c.KIND,
        "metadata": {
            "name": "foreign",
            "namespace": harness.namespace,
            "labels": {c.INSTANCE_LABEL: "someone-else"},
        },
        "spec": {"image": "nginx:1.27", "replicas": 1},
    }
    harness.apply_as_admin(foreign)
    converged(harness)

    applied = harness.driftctl("apply")

    assert applied.code == 0, applied.err
    assert "foreign" not in applied.out
    assert "foreign" in harness.names("webapps")


def test_the_prune_opt_out_annotation_protects_a_live_object(harness: Harness) -> None:
    converged(harness).kubectl(
        "annotate", "webapp/d", f"{c.PRUNE_ANNOTATION}={c.PRUNE_DISABLED}", "-n", harness.namespace
    )
    harness.declare({k: v for k, v in FOUR.items() if k != "d"}, "drop d")

    applied = harness.driftctl("apply")

    assert applied.code == 0, applied.err
    assert f"skipped WebApp/{harness.namespace}/d: protected by the annotation" in applied.out
    assert harness.names("webapps") == ["a", "b", "c", "d"]


def test_an_empty_desired_set_prunes_nothing_unless_allowed(harness: Harness) -> None:
    converged(harness, {"a": ("nginx:1.27", 1)}).declare({}, "empty")

    refused = harness.driftctl("apply")
    assert refused.code == 5, refused.out + refused.err
    assert "the desired set is empty (pass --allow-empty if that is intended)" in refused.err
    assert harness.names("webapps") == ["a"]

    allowed = harness.driftctl("apply", "--allow-empty")
    assert allowed.code == 0, allowed.err
    assert harness.names("webapps") == []


def test_more_deletions_than_max_prune_are_refused_naming_count_and_flag(harness: Harness) -> None:
    converged(harness).declare({"a": ("nginx:1.27", 1)}, "drop three")

    by_default = harness.driftctl("apply")
    by_count = harness.driftctl("apply", "--max-prune", "2")
    as_json = harness.driftctl("apply", "-o", "json")
    planned = harness.driftctl("plan", "-o", "json")
    plan = json.loads(planned.out)

    assert by_default.code == 5
    assert (
        "refusing to prune 3 objects: more than the default --max-prune (half of 4 managed = 2)"
        in by_default.err
    )
    assert by_count.code == 5
    assert "refusing to prune 3 objects: more than --max-prune 2 allows" in by_count.err
    message = "refusing to prune 3 objects: more than the default --max-prune"
    assert planned.code == 5  # a plan as a document says why on stderr too, as apply does
    assert [refusal.startswith(message) for refusal in plan["refusals"]] == [True]
    assert f"refused: {message}" in planned.err
    assert as_json.code == 5  # the document and stderr both say why
    document = json.loads(as_json.out)
    assert [refusal.startswith(message) for refusal in document["refusals"]] == [True]
    assert document["summary"]["skipped"] == 3
    assert f"refused: {message}" in as_json.err
    assert harness.names("webapps") == ["a", "b", "c", "d"]

    allowed = harness.driftctl("apply", "--max-prune", "75%")
    assert allowed.code == 0, allowed.err
    assert harness.names("webapps") == ["a"]


def test_no_prune_leaves_removed_webapps_alone(harness: Harness) -> None:
    converged(harness).declare({k: v for k, v in FOUR.items() if k != "b"}, "drop b")

    applied = harness.driftctl("apply", "--no-prune")

    assert applied.code == 0, applied.err
    assert harness.names("webapps") == ["a", "b", "c", "d"]


def test_a_bad_max_prune_is_a_usage_error_before_any_request(harness: Harness) -> None:
    converged(harness).declare({"a": ("nginx:1.27", 1)}, "drop three")

    ran = harness.driftctl("apply", "--max-prune", "lots")

    assert ran.code == 2
    assert "--max-prune must be a count N or a percentage P%, not 'lots'" in ran.err
    assert harness.names("webapps") == ["a", "b", "c", "d"]
