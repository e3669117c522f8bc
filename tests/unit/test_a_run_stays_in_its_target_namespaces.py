"""With --target-namespaces, a WebApp that Git declares in any other namespace is refused
at its file and line, like every other problem of the desired state (exit 3, nothing
written); without it, every namespace is in scope."""

from __future__ import annotations

from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.model import Origin, WebApp, WebAppSpec
from driftctl.errors import Problem

SPEC = WebAppSpec(image="nginx:1.27", replicas=1)
SHOP = WebApp("shop", "shop", SPEC, origin=Origin("apps/shop.yaml", 1))
BLOG = WebApp("blog", "blog", SPEC, origin=Origin("apps/blog.yaml", 9))


def test_a_webapp_outside_the_target_namespaces_is_a_problem_at_its_place() -> None:
    problems = list(out_of_scope([SHOP, BLOG], ("shop", "docs")))

    assert problems == [
        Problem(
            "apps/blog.yaml",
            9,
            1,
            "WebApp/blog/blog: namespace 'blog' is not one of --target-namespaces (shop, docs)",
        )
    ]


def test_without_target_namespaces_every_namespace_is_in_scope() -> None:
    assert list(out_of_scope([SHOP, BLOG], ())) == []
