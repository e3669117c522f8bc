"""The pre-merge check's report: categories against the plan at base, masking, the Markdown
budget, and a golden file of the Markdown for one fixed pull request.

The plans are made by the pure core against tests/support/ssa_model.py (a model of
server-side apply); tests/integration/test_check_separates_the_change_from_drift.py runs
the same on the real control plane. Set DRIFTCTL_UPDATE_GOLDEN=1 to rewrite the golden
file after an intended change, and read its diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from driftctl import conventions as c
from driftctl.core.planning.built_changes import deployment_changes, webapp_changes
from driftctl.core.planning.check import (
    Category,
    CheckReport,
    ClusterCheck,
    Side,
    categorize,
    shared_answers,
)
from driftctl.core.planning.commit_diff import diff_commits
from driftctl.core.planning.live import LiveState
from driftctl.core.planning.manifests import Stamp
from driftctl.core.planning.objects import ObjectKey
from driftctl.core.planning.plan import finish
from driftctl.core.planning.preparation import prepare
from driftctl.core.planning.redaction import MASK, masked
from driftctl.core.source.desired_state import Revision
from driftctl.core.source.model import WebApp
from driftctl.errors import ExitCode, UsageError
from driftctl.render.check import check_markdown
from driftctl.settings import Check
from driftctl.settings.declare import from_written
from tests.support.builders import app, webapp
from tests.support.clirun import run_driftctl
from tests.support.gitrepos import Repo
from tests.support.markdown import well_formed
from tests.support.model_runs import earlier_run
from tests.support.ssa_model import ModelCluster

GOLDEN = Path(__file__).parent / "golden" / "check-pull-request.md"
SOURCE = "https://git.example.org/team/apps.git#apps"
BASE_SHA, HEAD_SHA = (
    "a43d5ea2f1063604e1cf3465b622e99f988532a5",
    "4864ac796b2cf2ffcec4467e797e3501cec293bb",
)


BASE = [
    app("shop", replicas=2, namespace="demo"),
    app("blog", namespace="demo"),
    app("docs", namespace="demo"),
]
HEAD = [
    app("shop", "nginx:1.28", 3, namespace="demo"),
    app("blog", namespace="demo"),
    app(
        "cart",
        annotations={"example.com/api-token": "s3cr3t", "example.com/team": "payments"},
        namespace="demo",
    ),
]


def revision(sha: str) -> Revision:
    return Revision(sha, False, SOURCE, sha, 1)


def checked(base: list[WebApp], head: list[WebApp], cluster: ModelCluster) -> ClusterCheck:
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    at_head = prepare(head, live, Stamp("default", HEAD_SHA, SOURCE))
    at_base = prepare(base, live, Stamp("default", BASE_SHA, SOURCE))
    answers = {
        k.key: cluster.apply(k.manifest, c.FIELD_MANAGER, dry_run=True) for k in at_head.candidates
    }
    reused, remaining = shared_answers(at_base.candidates, at_head.candidates, answers)
    reused |= {k.key: cluster.apply(k.manifest, c.FIELD_MANAGER, dry_run=True) for k in remaining}
    return categorize(finish(at_head, answers), finish(at_base, reused))


def pull_request(fail_on: frozenset[str] = frozenset({"invalid"})) -> CheckReport:
    """main applied; a person scaled blog's Deployment; the pull request changes shop,
    removes docs and adds cart (with a token in an annotation)."""
    cluster = earlier_run(ModelCluster(), BASE, Stamp("default", BASE_SHA, SOURCE))
    cluster.update(
        ObjectKey("Deployment", "demo", "blog"), "kubectl-scale", ("f:spec", "f:replicas"), 4
    )
    diff = diff_commits(BASE, HEAD)
    return CheckReport(
        Side("main", revision(BASE_SHA)),
        Side("feature", revision(HEAD_SHA)),
        "default",
        fail_on,
        diff=diff,
        webapps=webapp_changes(diff),
        deployments=deployment_changes(diff, "default"),
        cluster=checked(BASE, HEAD, cluster),
    )


def test_the_markdown_of_a_fixed_pull_request_matches_its_golden_file() -> None:
    markdown = check_markdown(pull_request(frozenset({"invalid", "prune"})), 65_536)

    if os.environ.get("DRIFTCTL_UPDATE_GOLDEN"):
        GOLDEN.write_text(markdown)
    assert markdown == GOLDEN.read_text()


def test_each_object_gets_its_category_against_the_plan_at_base() -> None:
    report = pull_request()

    assert report.cluster is not None
    got = {item.key.display: (item.category, item.introduced) for item in report.cluster.objects}
    assert got == {
        "WebApp/demo/docs": (Category.PRUNE, True),
        "WebApp/demo/shop": (Category.CHANGE, True),
        "Deployment/demo/shop": (Category.CHANGE, True),
        "Deployment/demo/blog": (Category.DRIFT, False),
        "WebApp/demo/cart": (Category.CHANGE, True),
        "Deployment/demo/cart": (Category.CHANGE, True),
    }
    assert report.found == ("prune", "drift", "change")


def test_a_field_both_sides_change_alike_is_drift_inside_a_change() -> None:
    cluster = earlier_run(ModelCluster(), BASE, Stamp("default", BASE_SHA, SOURCE))
    shop = ObjectKey("Deployment", "demo", "shop")
    cluster.update(shop, "kubectl-scale", ("f:spec", "f:replicas"), 9)
    head = [
        app("shop", "nginx:1.28", 2, namespace="demo"),
        app("blog", namespace="demo"),
        app("docs", namespace="demo"),
    ]

    result = checked(BASE, head, cluster)

    [deployment] = [item for item in result.objects if item.key == shop]
    fields = {field.change.path: field.drift for field in deployment.fields}
    assert deployment.category is Category.CHANGE
    assert fields == {"spec.replicas": True, "spec.template.spec.containers[name=app].image": False}


def test_the_base_reuses_the_heads_dry_run_when_it_would_ask_the_same() -> None:
    cluster = earlier_run(ModelCluster(), BASE, Stamp("default", BASE_SHA, SOURCE))
    cluster.update(
        ObjectKey("Deployment", "demo", "blog"), "kubectl-scale", ("f:spec", "f:replicas"), 4
    )
    live = LiveState.of(cluster.listed(c.KIND), cluster.listed(c.DEPLOYMENT_KIND))
    at_head = prepare(HEAD, live, Stamp("default", HEAD_SHA, SOURCE))
    at_base = prepare(BASE, live, Stamp("default", BASE_SHA, SOURCE))
    answers = {
        k.key: cluster.apply(k.manifest, c.FIELD_MANAGER, dry_run=True) for k in at_head.candidates
    }

    reused, remaining = shared_answers(at_base.candidates, at_head.candidates, answers)

    assert list(reused) == [ObjectKey("Deployment", "demo", "blog")]
    assert remaining == ()


@pytest.mark.parametrize(
    ("value", "name", "expected"),
    [
        pytest.param("s3cr3t", "metadata.annotations.example.com/api-token", MASK, id="token-key"),
        pytest.param("hunter2", "env[name=DB_PASSWORD].value", MASK, id="password-env"),
        pytest.param("a.b", "metadata.labels.author", "a.b", id="author-is-not-auth"),
        pytest.param("https://u:p@git.example.org/x", "x", MASK, id="url-with-password"),
        pytest.param("https://git.example.org/x", "x", "https://git.example.org/x", id="plain-url"),
        pytest.param("ghp_" + "a" * 36, "note", MASK, id="github-token"),
        pytest.param("-----BEGIN RSA PRIVATE KEY-----\nx", "key", MASK, id="pem"),
        pytest.param("nginx@sha256:" + "0" * 64, "image", "nginx@sha256:" + "0" * 64, id="digest"),
        pytest.param(
            {"team": "a", "x-secret": "b"}, "annotations", {"team": "a", "x-secret": MASK}, id="map"
        ),
    ],
)
def test_secret_like_values_are_masked(value: object, name: str, expected: object) -> None:
    assert masked(value, name) == expected


def test_the_masked_token_never_reaches_the_markdown() -> None:
    markdown = check_markdown(pull_request(), 65_536)

    assert "s3cr3t" not in markdown
    assert '+ metadata.annotations.example.com/api-token: "(masked)"' in markdown
    assert '+ metadata.annotations.example.com/team: "payments"' in markdown


def big_pull_request() -> CheckReport:
    base = [app(f"app-{i:03d}", namespace="demo") for i in range(120)] + [
        app("old-1", namespace="demo"),
        app("old-2", namespace="demo"),
    ]
    head = [app(f"app-{i:03d}", "nginx:1.28", namespace="demo") for i in range(120)]
    cluster = earlier_run(ModelCluster(), base, Stamp("default", BASE_SHA, SOURCE))
    diff = diff_commits(base, head)
    return CheckReport(
        Side("main", revision(BASE_SHA)),
        Side("feature", revision(HEAD_SHA)),
        "default",
        frozenset({"invalid"}),
        diff=diff,
        webapps=webapp_changes(diff),
        deployments=deployment_changes(diff, "default"),
        cluster=checked(base, head, cluster),
    )


def test_a_report_over_budget_keeps_its_summary_and_prunes_and_stays_well_formed() -> None:
    report = big_pull_request()
    whole = check_markdown(report, 10_000_000)

    cut = check_markdown(report, 8_192)

    assert len(whole.encode()) > 8_192 >= len(cut.encode())
    assert well_formed(whole)
    assert well_formed(cut)
    assert cut.splitlines()[0] == whole.splitlines()[0]
    assert "| **prune**: prunes | 2 |" in cut
    for pruned in ("old-1", "old-2"):
        assert f"<summary><code>WebApp/demo/{pruned}</code>: <b>prune</b>" in cut
    [note] = [line for line in cut.splitlines() if ":scissors:" in line]
    kept = cut.count("<details>")
    assert f"The details of {242 - kept} more objects were cut here" in note
    first, last = "WebApp/demo/app-000</code>", "Deployment/demo/app-119</code>"
    assert first in cut, "cut from the middle: both ends are kept"
    assert last in cut
    assert cut.index(first) < cut.index(note) < cut.index(last)


def test_nothing_to_report_is_one_line() -> None:
    cluster = earlier_run(ModelCluster(), BASE, Stamp("default", BASE_SHA, SOURCE))
    diff = diff_commits(BASE, BASE)
    report = CheckReport(
        Side("main", revision(BASE_SHA)),
        Side("main", revision(BASE_SHA)),
        "default",
        frozenset({"invalid"}),
        diff=diff,
        cluster=checked(BASE, BASE, cluster),
    )

    markdown = check_markdown(report, 65_536)

    assert markdown.count("\n") == 1
    assert markdown.startswith("<!-- driftctl-check instance=default path=apps --> ")
    assert "no changes" in markdown
    assert report.exit_code is ExitCode.OK


@pytest.mark.parametrize(
    ("fail_on", "max_bytes"),
    [
        pytest.param("prune,everything", 65_536, id="unknown-name"),
        pytest.param("prune", 100, id="budget-too-small"),
    ],
)
def test_bad_check_flags_are_usage_errors(fail_on: str, max_bytes: int) -> None:
    with pytest.raises(UsageError):
        from_written(Check, fail_on=fail_on, max_bytes=max_bytes, offline=False)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo").write({"apps/web.yaml": webapp("web")})
    repo.commit("base")
    repo.git("checkout", "--quiet", "-b", "feature")
    repo.write({"apps/web.yaml": webapp("web", replicas=-1), "apps/x.yaml": "a: &x 1\n"})
    repo.commit("broken")
    return repo


def test_an_invalid_head_is_reported_with_every_problem_and_exit_3(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["check", "--repo", str(repo.path), "--base", "main", "--head", "feature"]

    failing = run_driftctl([*args, "-o", "markdown"], capsys, monkeypatch)
    allowed = run_driftctl([*args, "--fail-on", "prune"], capsys, monkeypatch)

    assert failing.code == 3
    assert "**The head is invalid** (2 problems):" in failing.out
    assert "apps/x.yaml:1:4: anchors are refused (&x): write the value out" in failing.out
    assert "**Cluster**: not checked (the head is invalid)." in failing.out
    assert allowed.code == 0, "--fail-on without invalid passes an invalid head"


def test_an_invalid_base_is_an_error_naming_the_side(
    repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["check", "--repo", str(repo.path), "--base", "feature", "--head", "main"]

    ran = run_driftctl(args, capsys, monkeypatch)

    assert ran.code == 3
    assert ran.err.startswith("error: base: invalid desired state (2 problems)")
    assert ran.out == ""


def test_what_a_control_holds_is_shown_blocked_and_counts_as_what_it_holds() -> None:
    cluster = earlier_run(ModelCluster(), BASE, Stamp("default", BASE_SHA, SOURCE))
    hold = {c.CHANGE_POLICY_ANNOTATION: "hold"}
    head = [app("shop", "nginx:1.28", 2, namespace="demo", annotations=hold), *BASE[1:]]

    report = checked(BASE, head, cluster)

    got = {item.key.display: (item.verb, item.category, item.counts_as) for item in report.objects}
    assert got["Deployment/demo/shop"] == ("hold", Category.BLOCKED, "change")
    [shop] = [item for item in report.objects if item.key.display == "Deployment/demo/shop"]
    assert shop.reason.startswith("Git's changes are held")
