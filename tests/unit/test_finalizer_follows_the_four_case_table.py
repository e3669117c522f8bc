"""The finalizer table of DESIGN.md section 7 and the guarded patches that move it."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest

from driftctl import conventions as c
from driftctl.core.planning.finalizers import FinalizerStep, finalizer_step, remove_patch

OTHER = "example.org/other"


def webapp(finalizers: list[str] | None, deleting: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "shop", "namespace": "web"}
    if finalizers is not None:
        meta["finalizers"] = finalizers
    if deleting:
        meta["deletionTimestamp"] = "2026-11-21T09:00:00Z"
    return {"apiVersion": c.API_VERSION, "kind": c.KIND, "metadata": meta}


@pytest.mark.parametrize(
    ("finalizers", "deleting", "step"),
    [
        pytest.param([c.FINALIZER], False, FinalizerStep.APPLY, id="present-not-deleted-applies"),
        pytest.param([c.FINALIZER], True, FinalizerStep.CLEANUP, id="present-deleted-cleans-up"),
        pytest.param(None, False, FinalizerStep.ADD, id="absent-not-deleted-adds"),
        pytest.param([OTHER], True, FinalizerStep.NOTHING, id="absent-deleted-does-nothing"),
        pytest.param([OTHER, c.FINALIZER], True, FinalizerStep.CLEANUP, id="among-others"),
    ],
)
def test_step_follows_the_table(
    finalizers: list[str] | None, deleting: bool, step: FinalizerStep
) -> None:
    assert finalizer_step(webapp(finalizers, deleting)) is step


def test_remove_patch_tests_the_index_it_removes() -> None:
    live = webapp([OTHER, c.FINALIZER], True)

    patch = remove_patch(live)

    assert patch == [
        {"op": "test", "path": "/metadata/finalizers/1", "value": c.FINALIZER},
        {"op": "remove", "path": "/metadata/finalizers/1"},
    ]
    assert jsonpatch.apply_patch(live, patch)["metadata"]["finalizers"] == [OTHER]


def test_remove_patch_fails_when_the_list_changed_since_it_was_read() -> None:
    patch = remove_patch(webapp([OTHER, c.FINALIZER], True))
    assert patch is not None

    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(webapp([c.FINALIZER, OTHER], True), patch)


def test_remove_patch_is_none_without_our_finalizer() -> None:
    assert remove_patch(webapp([OTHER], True)) is None
