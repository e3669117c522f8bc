"""With --target-namespaces, a WebApp that Git declares in any other namespace is refused
at its file and line, like every other problem of the desired state (exit 3, nothing
written), and the pre-merge check reports such a head invalid; without the flag, every
namespace is in scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftctl.core.planning.scope import out_of_scope
from driftctl.core.source.model import Origin, WebApp, WebAppSpec
from driftctl.errors import Problem
from tests.support.builders import webapp
from tests.support.clirun import run_driftctl
from tests.support.gitrepos import Repo

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


def test_the_pre_merge_check_finds_a_head_out_of_scope_invalid_as_apply_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Repo(tmp_path / "repo").write({"apps/web.yaml": webapp("web")})
    repo.commit("base")
    repo.git("checkout", "--quiet", "-b", "feature")
    elsewhere = webapp("api").replace("  name: api\n", "  name: api\n  namespace: elsewhere\n")
    repo.write({"apps/api.yaml": elsewhere})
    repo.commit("api, in another namespace")
    args = ["check", "--repo", str(repo.path), "--base", "main", "--head", "feature"]

    ran = run_driftctl([*args, "--target-namespaces", "default", "--offline"], capsys, monkeypatch)

    assert ran.code == 3
    assert (
        "**The head is invalid** (1 problem):"
        in run_driftctl(
            [*args, "--target-namespaces", "default", "--offline", "-o", "markdown"],
            capsys,
            monkeypatch,
        ).out
    )
    assert (
        "apps/api.yaml:1:1: WebApp/elsewhere/api: namespace 'elsewhere' is not one of "
        "--target-namespaces (default)"
    ) in ran.out
    assert run_driftctl([*args, "--offline"], capsys, monkeypatch).code == 0
