"""Fields set outside Git by the kubectl family are drift: planned, with the server's
dry-run showing the removal, and removed by apply. Other managers' fields are theirs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import drift_cases as cases
from tests.support.harness import Harness

ENV = "spec.template.spec.containers[name=app].env"


def test_an_env_var_added_by_kubectl_patch_is_planned_and_removed(
    harness: Harness, tmp_path: Path
) -> None:
    cases.env_added_by_kubectl_patch(harness, tmp_path)

    planned = harness.driftctl("plan")
    as_json = json.loads(harness.driftctl("plan", "-o", "json").out)
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert (
        f'    {ENV}: [{{"name": "DEBUG", "value": "1"}}] -> (none) '
        "(added by kubectl-patch, not in Git)"
    ) in planned.out.splitlines()
    [entry] = [o for o in as_json["objects"] if o["action"] == "update"]
    assert entry["patch"] == [{"op": "remove", "path": "/spec/template/spec/containers/0/env"}]
    assert applied.code == 0, applied.err
    container = (harness.get("deployment", "shop") or {})["spec"]["template"]["spec"]
    assert "env" not in container["containers"][0]
    assert "kubectl-patch" not in [m for m, _, _ in harness.managers("deployment", "shop")]
    assert harness.driftctl("plan").code == 0


def test_fields_added_with_kubectl_edit_are_removed_and_a_default_comes_back(
    harness: Harness, tmp_path: Path
) -> None:
    cases.fields_added_by_kubectl_edit(harness, tmp_path)

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    lines = planned.out.splitlines()
    assert "    spec.minReadySeconds: 7 -> (none) (added by kubectl-edit, not in Git)" in lines
    # The server's dry-run of the removal shows the default it puts back.
    assert "    spec.revisionHistoryLimit: 3 -> 10 (set by kubectl-edit, not in Git)" in lines
    assert applied.code == 0, applied.err
    spec = (harness.get("deployment", "shop") or {})["spec"]
    assert ("minReadySeconds" in spec, spec["revisionHistoryLimit"]) == (False, 10)
    assert harness.driftctl("plan").code == 0


def test_a_label_added_with_kubectl_label_is_removed_from_the_webapp_and_deployment(
    harness: Harness, tmp_path: Path
) -> None:
    cases.labels_added_by_kubectl_label(harness, tmp_path)

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    for kind in ("WebApp", "Deployment"):
        assert f"~ {kind}/{harness.namespace}/shop: update (fields set outside Git by " in (
            planned.out
        )
    assert (
        planned.out.count(
            '    metadata.labels.team: "payments" -> (none) (added by kubectl-label, not in Git)'
        )
        == 2
    )
    assert applied.code == 0, applied.err
    for kind in ("webapp", "deployment"):
        assert "team" not in (harness.get(kind, "shop") or {})["metadata"]["labels"]


def test_a_field_of_another_manager_is_kept_and_listed_with_show_foreign(
    harness: Harness, tmp_path: Path
) -> None:
    cases.annotation_of_a_controller(harness, tmp_path)
    before = harness.raw("deployment", "shop")

    planned = harness.driftctl("plan")
    shown = harness.driftctl("plan", "--show-foreign")
    applied = harness.driftctl("apply")

    assert (planned.code, planned.out.strip()) == (
        0,
        "Plan: 0 to create, 0 to update, 0 to prune, 2 unchanged",
    )
    assert shown.code == 0
    assert (
        '    metadata.annotations.owner: "ops" (set by ops-controller, not in Git; left alone)'
        in shown.out.splitlines()
    )
    assert applied.code == 0, applied.err
    assert harness.raw("deployment", "shop") == before


def test_the_override_managers_can_be_changed(harness: Harness, tmp_path: Path) -> None:
    cases.annotation_of_a_controller(harness, tmp_path)
    harness.kubectl("annotate", "deployment/shop", "note=hi", "-n", harness.namespace)

    planned = harness.driftctl("plan", "--override-manager", "ops-controller")
    applied = harness.driftctl("apply", "--override-manager", "ops-controller")

    assert planned.code == 1
    assert "(added by ops-controller, not in Git)" in planned.out
    assert "kubectl-annotate" not in planned.out
    assert applied.code == 0, applied.err
    annotations = (harness.get("deployment", "shop") or {})["metadata"]["annotations"]
    assert ("owner" in annotations, annotations.get("note")) == (False, "hi")
