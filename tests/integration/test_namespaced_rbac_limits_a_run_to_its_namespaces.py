"""The namespace-scoped RBAC variant (cronjob/namespaced/) with --target-namespaces: driftctl
LISTs, applies and prunes in the granted namespace only, and says the same in `plan` as
`apply` does. Without the flag its cluster-wide LIST is refused (exit 4, the permission
named); a WebApp that Git declares in another namespace is refused before anything is
written (exit 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.harness import Harness

APPS = {"shop": ("nginx:1.27", 2), "blog": ("nginx:1.28", 1)}
OUTCOME_OF = {"create": "created", "update": "configured", "prune": "deleted"}


def keyed(document: dict[str, Any], field: str) -> dict[str, str]:
    return {f"{o['kind']}/{o['name']}": o[field] for o in document["objects"]}


def plan_then_apply(harness: Harness, kubeconfig: Path) -> tuple[dict[str, str], dict[str, str]]:
    """What `plan` says for each object, as outcomes, and what `apply` then did."""
    scope = ("--target-namespaces", harness.namespace)
    planned = harness.driftctl("plan", *scope, "-o", "json", kubeconfig=kubeconfig)
    applied = harness.driftctl("apply", *scope, "-o", "json", kubeconfig=kubeconfig)
    assert planned.code in (0, 1), planned.err
    assert applied.code == 0, applied.err
    actions = keyed(json.loads(planned.out), "action")
    return {k: OUTCOME_OF.get(a, a) for k, a in actions.items()}, keyed(
        json.loads(applied.out), "outcome"
    )


def test_each_plan_is_what_apply_then_does_in_the_granted_namespace(
    harness: Harness, scoped_kubeconfig: Path
) -> None:
    harness.declare(APPS)
    planned, applied = plan_then_apply(harness, scoped_kubeconfig)
    assert planned == applied
    assert set(applied.values()) == {"created"}

    harness.kubectl("scale", "deployment/blog", "--replicas=3", "-n", harness.namespace)
    harness.declare({"blog": APPS["blog"]}, "shop leaves Git")
    planned, applied = plan_then_apply(harness, scoped_kubeconfig)

    assert planned == applied
    assert applied == {
        "WebApp/shop": "deleted",
        "WebApp/blog": "unchanged",
        "Deployment/blog": "configured",
    }
    assert harness.names("webapps") == ["blog"]
    assert harness.names("deployments") == ["blog"]


def test_without_target_namespaces_the_cluster_wide_list_is_refused_naming_it(
    harness: Harness, scoped_kubeconfig: Path
) -> None:
    harness.declare(APPS)

    ran = harness.driftctl("apply", kubeconfig=scoped_kubeconfig)

    account = f"driftctl-scoped-{harness.namespace}"
    assert (ran.code, ran.out) == (4, "")
    assert ran.err.splitlines() == [
        "error: list webapps: 403 Forbidden: webapps.example.com is forbidden: User "
        f'"system:serviceaccount:driftctl-system:{account}" cannot list resource "webapps" '
        'in API group "example.com" at the cluster scope'
    ]


def test_a_webapp_declared_in_another_namespace_is_refused_before_any_write(
    harness: Harness, scoped_kubeconfig: Path
) -> None:
    harness.repo.write(
        {
            "apps/shop.yaml": "apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n"
            "  name: shop\nspec:\n  image: nginx:1.27\n  replicas: 1\n",
            "apps/other.yaml": "apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n"
            "  name: web\n  namespace: elsewhere\nspec:\n  image: nginx:1.27\n  replicas: 1\n",
        }
    )
    harness.repo.commit()
    scope = ("--target-namespaces", harness.namespace)

    for command in ("plan", "apply"):
        ran = harness.driftctl(command, *scope, kubeconfig=scoped_kubeconfig)

        assert ran.code == 3, ran.err
        assert (
            "  apps/other.yaml:1:1: WebApp/elsewhere/web: namespace 'elsewhere' is not one of "
            f"--target-namespaces ({harness.namespace})"
        ) in ran.err.splitlines()
    assert harness.names("webapps") == []
