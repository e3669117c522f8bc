"""An object the API server refuses fails the run (exit 5); the others are applied.

apply sends no dry-run for an object it creates: the create's own answer is the check, and
it refuses with the same message plan's dry-run got, so plan and apply agree.
"""

from __future__ import annotations

from tests.support.builders import webapp, webapps_yaml
from tests.support.harness import Harness


def test_a_webapp_in_a_missing_namespace_fails_and_the_others_apply(harness: Harness) -> None:
    elsewhere = webapp("lost", replicas=1, namespace="no-such-namespace")
    harness.repo.write(
        {
            "apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", 1)}),
            "apps/lost.yaml": elsewhere,
        }
    )
    harness.repo.commit()

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 5  # what apply gives: the plan says it fails that WebApp
    assert (
        "! WebApp/no-such-namespace/lost: skip (the API server refused the dry-run: 404 NotFound"
        in planned.out
    )
    assert "! Deployment/no-such-namespace/lost: skip (its WebApp cannot be applied" in planned.out
    assert applied.code == 5, applied.out + applied.err
    refused = (
        'the API server refused the {}: 404 NotFound: namespaces "no-such-namespace" not found'
    )
    assert f"! WebApp/no-such-namespace/lost: skip ({refused.format('dry-run')})" in planned.out
    assert f"failed WebApp/no-such-namespace/lost: {refused.format('create')}" in applied.out
    skipped = (
        "Deployment/no-such-namespace/lost: skip (its WebApp cannot be applied "
        "(WebApp/no-such-namespace/lost was refused))"
    )
    assert f"! {skipped}" in planned.out
    assert "skipped " + skipped.replace(": skip (", ": ")[:-1] in applied.out
    assert applied.out.splitlines()[-1] == (
        "Apply: 2 created, 0 configured, 0 deleted, 0 unchanged, 1 skipped, 1 failed"
    )
    assert harness.names("webapps") == ["shop"]
