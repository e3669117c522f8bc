"""Ignore rules by pointer (flag, variable, the WebApp's annotation in Git) and by manager:
an ignored field is neither reported as drift nor reset, and the plan says why; a change
of it in Git is still applied."""

from __future__ import annotations

import json
from pathlib import Path

from driftctl import conventions as c
from tests.support import drift_cases as cases
from tests.support.builders import webapp
from tests.support.harness import Harness

KEPT_REPLICAS = (
    "    spec.replicas kept: ignored by --ignore Deployment:/spec/replicas (5 here, 2 in Git)"
)


def replicas(harness: Harness) -> int:
    return int((harness.get("deployment", "shop") or {})["spec"]["replicas"])


def test_an_ignored_field_is_kept_and_the_plan_says_why(harness: Harness, tmp_path: Path) -> None:
    flags = cases.replicas_scaled_under_an_ignore_rule(harness, tmp_path)

    planned = harness.driftctl("plan", *flags)
    applied = harness.driftctl("apply", *flags)

    assert planned.code == 0, planned.out
    assert planned.out.splitlines()[:2] == [
        f"= Deployment/{harness.namespace}/shop: unchanged",
        KEPT_REPLICAS,
    ]
    assert applied.code == 0, applied.err
    assert replicas(harness) == 5
    status = (harness.get("webapp", "shop") or {})["status"]
    assert status["ignoredFields"] == [
        {
            "kind": "Deployment",
            "field": "spec.replicas",
            "reason": "ignored by --ignore Deployment:/spec/replicas",
        }
    ]


def test_a_git_change_of_an_ignored_field_is_still_applied(
    harness: Harness, tmp_path: Path
) -> None:
    flags = cases.git_change_of_an_ignored_field(harness, tmp_path)

    planned = harness.driftctl("plan", *flags)
    applied = harness.driftctl("apply", *flags)
    applied_replicas = replicas(harness)
    harness.kubectl("scale", "deployment/shop", "--replicas=6", "-n", harness.namespace)
    later = harness.driftctl("plan", *flags)

    assert planned.code == 1
    assert (
        "    spec.replicas: 5 -> 3 (ignored by --ignore Deployment:/spec/replicas; applied "
        "because Git changed it)"
    ) in planned.out.splitlines()
    assert (applied.code, applied_replicas) == (0, 3), applied.err
    assert later.code == 0
    assert (
        "spec.replicas kept: ignored by --ignore Deployment:/spec/replicas (6 here, 3 in Git)"
        in later.out
    )


def test_ignore_rules_are_read_from_their_environment_variable(
    harness: Harness, tmp_path: Path
) -> None:
    cases.replicas_scaled_under_an_ignore_rule(harness, tmp_path)

    planned = harness.driftctl("plan", env={"DRIFTCTL_IGNORE": "Deployment:/spec/replicas"})

    assert planned.code == 0, planned.out
    assert KEPT_REPLICAS in planned.out.splitlines()


def test_an_ignore_rule_in_the_webapps_annotation_in_git(harness: Harness) -> None:
    rule = "Deployment:/spec/template/spec/containers/0/env"
    document = webapp("shop", annotations={c.IGNORE_ANNOTATION: rule})
    harness.declare_text(document)
    assert harness.driftctl("apply").code == 0
    harness.kubectl("set", "env", "deployment/shop", "MODE=debug", "-n", harness.namespace)

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 0, planned.out
    assert (
        "    spec.template.spec.containers[name=app].env kept: ignored by "
        f"{rule} in the WebApp's annotation {c.IGNORE_ANNOTATION} "
        '([{"name": "MODE", "value": "debug"}] here, not in Git)'
    ) in planned.out.splitlines()
    assert applied.code == 0, applied.err
    container = (harness.get("deployment", "shop") or {})["spec"]["template"]["spec"]
    assert container["containers"][0]["env"] == [{"name": "MODE", "value": "debug"}]


def test_a_bad_rule_in_the_annotation_is_refused_with_its_file_and_line(
    harness: Harness,
) -> None:
    document = webapp("shop", annotations={c.IGNORE_ANNOTATION: "Pod:/spec"})
    harness.declare_text(document)

    planned = harness.driftctl("plan")

    assert planned.code == 3
    assert (
        f"apps/webapps.yaml:6:34: WebApp/{harness.namespace}/shop: metadata.annotations"
        f"[{c.IGNORE_ANNOTATION}] has an ignore rule 'Pod:/spec' names kind 'Pod'"
    ) in planned.err


def test_a_field_of_an_ignored_manager_is_kept_and_a_git_change_applied(
    harness: Harness, tmp_path: Path
) -> None:
    flags = cases.image_set_by_an_ignored_manager(harness, tmp_path)

    kept = harness.driftctl("plan", *flags)
    harness.declare({"shop": ("nginx:1.28", 2)})
    changed = harness.driftctl("plan", *flags)
    applied = harness.driftctl("apply", *flags)

    image = "spec.template.spec.containers[name=app].image"
    assert kept.code == 0, kept.out
    assert (
        f"    {image} kept: set by ops-bot, ignored by --ignore-manager ops-bot "
        '("nginx:1.99" here, "nginx:1.27" in Git)'
    ) in kept.out.splitlines()
    assert changed.code == 1
    assert (
        f'    {image}: "nginx:1.99" -> "nginx:1.28" (set by ops-bot, ignored by '
        "--ignore-manager ops-bot; applied because Git changed it)"
    ) in changed.out.splitlines()
    assert applied.code == 0, applied.err
    deployment = harness.get("deployment", "shop") or {}
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert json.loads(harness.driftctl("plan", "-o", "json", *flags).out)["summary"]["update"] == 0
