"""An object the API server refuses fails the run (exit 5); the others are applied."""

from __future__ import annotations

from tests.gitrepos import WEBAPP
from tests.integration.harness import Harness, webapps_yaml


def test_a_webapp_in_a_missing_namespace_fails_and_the_others_apply(harness: Harness) -> None:
    elsewhere = WEBAPP.format(name="lost", image="nginx:1.27", replicas=1).replace(
        "metadata:\n", "metadata:\n  namespace: no-such-namespace\n"
    )
    harness.repo.write(
        {
            "apps/webapps.yaml": webapps_yaml({"shop": ("nginx:1.27", 1)}),
            "apps/lost.yaml": elsewhere,
        }
    )
    harness.repo.commit()

    planned = harness.driftctl("plan")
    applied = harness.driftctl("apply")

    assert planned.code == 1
    assert (
        "! WebApp/no-such-namespace/lost: skip (the API server refused the dry-run: 404 NotFound"
        in planned.out
    )
    assert "! Deployment/no-such-namespace/lost: skip (its WebApp cannot be applied" in planned.out
    assert applied.code == 5, applied.out + applied.err
    assert (
        "failed WebApp/no-such-namespace/lost: the API server refused the dry-run: 404 NotFound"
        in applied.out
    )
    assert applied.out.splitlines()[-1] == (
        "Apply: 2 created, 0 configured, 0 deleted, 0 unchanged, 1 skipped, 1 failed"
    )
    assert harness.names("webapps") == ["shop"]
