"""Two desired states compare by namespace/name, field by field; where a WebApp is declared
does not count."""

from __future__ import annotations

from driftctl.core.planning.changes import FieldChange
from driftctl.core.planning.commit_diff import diff_commits
from driftctl.core.source.model import Origin, WebApp, WebAppSpec
from tests.support.builders import app


def test_equal_sets_are_equal_even_when_files_moved() -> None:
    before = WebApp("w", "ns", WebAppSpec("a", 1), origin=Origin("a.yaml", 1))
    after = WebApp("w", "ns", WebAppSpec("a", 1), origin=Origin("b/c.yaml", 9))
    diff = diff_commits([before], [after])
    assert diff.equal
    assert diff.unchanged == 1


def test_added_removed_and_changed_are_sorted_by_namespace_and_name() -> None:
    diff = diff_commits([app("b"), app("z"), app("m")], [app("m", replicas=2), app("c"), app("a")])
    assert [a.name for a in diff.added] == ["a", "c"]
    assert [a.name for a in diff.removed] == ["b", "z"]
    assert [c.after.name for c in diff.changed] == ["m"]
    assert not diff.equal


def test_labels_and_annotations_change_by_key_with_absent_as_none() -> None:
    before = WebApp("w", "ns", WebAppSpec("a", 1), labels={"team": "x", "old": "1"})
    after = WebApp("w", "ns", WebAppSpec("b", 1), labels={"team": "y"}, annotations={"n": "v"})
    (changed,) = diff_commits([before], [after]).changed
    assert changed.fields == (
        FieldChange("spec.image", "replace", "a", "b"),
        FieldChange("metadata.labels[old]", "remove", "1", None),
        FieldChange("metadata.labels[team]", "replace", "x", "y"),
        FieldChange("metadata.annotations[n]", "add", None, "v"),
    )
