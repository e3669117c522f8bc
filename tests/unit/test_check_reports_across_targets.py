"""`check --target ...`: one report across clusters, without a cluster here.

How a target is written (a flag, a `--config` list) and refused (with its column, or its
file's line and column, exit 2); the Markdown of 3 targets of 500 WebApps inside the comment
budget, the room shared fairly; a target whose cluster cannot be read is a line of the
report (exit 0), unless --fail-on unreachable (exit 4) or it is the only target (exit 4).
tests/integration/test_check_across_clusters.py runs it against two control planes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from driftctl.core.planning.targets import TargetCheck, TargetsReport
from driftctl.errors import UsageError
from driftctl.render.check import targets_markdown
from driftctl.render.check.budget import shares
from driftctl.settings import DEFAULT_MAX_BYTES, Check, Target
from driftctl.settings.declare import from_written
from tests.support.builders import app, webapps_yaml
from tests.support.check_reports import pull_request_report
from tests.support.clirun import run_driftctl
from tests.support.gitrepos import Repo
from tests.support.markdown import well_formed
from tests.support.signing import Keys, commit, made_keys

ENVS = ("staging", "prod")


@pytest.mark.parametrize(
    ("written", "target"),
    [
        pytest.param(
            "name=prod,context=prod,path=overlays/prod,instance=blue",
            Target("prod", "prod", None, "overlays/prod", "blue"),
            id="every-key",
        ),
        pytest.param(
            "name=lab, kubeconfig=/k/lab.yaml", Target("lab", kubeconfig="/k/lab.yaml"), id="file"
        ),
    ],
)
def test_a_target_is_written_as_key_value_pairs(written: str, target: Target) -> None:
    check = from_written(Check, targets=[written])

    assert check.targets == (target,)
    assert from_written(Check, targets=[str(target)]).targets == (target,)


@pytest.mark.parametrize(
    ("written", "error"),
    [
        pytest.param(
            "name=prod,contxt=prod",
            "--target 'name=prod,contxt=prod':11: unknown key 'contxt' (did you mean 'context'?)",
            id="unknown-key",
        ),
        pytest.param(
            "name=prod,context",
            "--target 'name=prod,context':11: 'context' is not key=value",
            id="no-equals",
        ),
        pytest.param(
            "name=prod,context=a,name=b",
            "--target 'name=prod,context=a,name=b':21: names name twice",
            id="twice",
        ),
        pytest.param(
            "name=Prod_1,context=a",
            "--target 'name=Prod_1,context=a':1: name 'Prod_1' ",
            id="name-not-a-label",
        ),
        pytest.param(
            "name=prod,context=",
            "--target 'name=prod,context=':11: context is empty",
            id="empty-value",
        ),
        pytest.param("context=a", "--target 'context=a': has no name=", id="no-name"),
        pytest.param(
            "name=prod,path=overlays/prod",
            "--target 'name=prod,path=overlays/prod': target 'prod' names no cluster",
            id="no-cluster",
        ),
    ],
)
def test_a_bad_target_is_refused_naming_its_column(written: str, error: str) -> None:
    with pytest.raises(UsageError) as refused:
        from_written(Check, targets=[written])

    assert refused.value.message.startswith(error), refused.value.message
    assert "name=NAME,context=CONTEXT" in str(refused.value.hint)


def test_two_targets_of_one_name_are_refused() -> None:
    with pytest.raises(UsageError, match="--target names 'prod' more than once"):
        from_written(Check, targets=["name=prod,context=a", "name=prod,context=b"])


@pytest.mark.parametrize(
    ("third", "error"),
    [
        pytest.param(
            "  - name: prod\n    contxt: prod\n",
            "5:13: target: unknown key 'contxt' (did you mean 'context'?)",
            id="unknown-key",
        ),
        pytest.param(
            "  - name: lab\n    path: lab\n",
            "4:5: target: target 'lab' names no cluster",
            id="no-cluster",
        ),
        pytest.param(
            "  - name: lab\n    context: [a]\n",
            "5:14: target: context must be a string",
            id="a-list",
        ),
        pytest.param(
            "  - [prod]\n", "4:5: target must be a mapping of name, context", id="not-a-mapping"
        ),
        pytest.param(
            "  - name: staging\n    context: other\n",
            "target names 'staging' more than once",
            id="twice",
        ),
    ],
)
def test_a_bad_target_in_a_config_file_is_refused_with_its_line_and_column(
    third: str,
    error: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "check.yaml"
    config.write_text("target:\n  - name: staging\n    context: staging\n" + third)

    ran = run_driftctl(["check", "--base", "main", "--config", str(config)], capsys, monkeypatch)

    assert ran.code == 2
    assert error in ran.err
    assert "Traceback" not in ran.err


@pytest.mark.parametrize(
    ("wanted", "room", "given"),
    [
        pytest.param([10, 10, 10], 60, [10, 10, 10], id="room-for-all"),
        pytest.param([100, 100, 100], 90, [30, 30, 30], id="equal-shares"),
        pytest.param([5, 100, 100], 95, [5, 45, 45], id="a-small-part-leaves-its-rest"),
        pytest.param([100, 5, 30, 100], 100, [32, 5, 30, 33], id="water-filling"),
        pytest.param([0, 0], 10, [0, 0], id="nothing-wanted"),
    ],
)
def test_the_room_is_shared_fairly(wanted: list[int], room: int, given: list[int]) -> None:
    assert shares(wanted, room) == given
    assert sum(given) <= room


def fleet(sizes: dict[str, int]) -> TargetsReport:
    """A pull request that changes the image of every WebApp, on one cluster per entry."""
    targets = []
    for name, size in sizes.items():
        base = [app(f"app-{i:03d}", namespace=name) for i in range(size)]
        head = [app(f"app-{i:03d}", "nginx:1.28", namespace=name) for i in range(size)]
        report = pull_request_report(base, head, source=f"https://git.example.org/apps.git#{name}")
        targets.append(TargetCheck(Target(name, context=name), name, "default", report))
    return TargetsReport(tuple(targets), frozenset({"invalid"}))


def sections(markdown: str) -> dict[str, str]:
    """Each target's part of the Markdown, by name."""
    found = re.split(r"^#### `([a-z-]+)`", markdown, flags=re.MULTILINE)
    return dict(zip(found[1::2], found[2::2], strict=True))


def test_three_targets_of_500_webapps_fit_the_comment_budget_each_with_a_fair_share() -> None:
    report = fleet({"staging": 500, "prod": 500, "eu": 500})

    markdown = targets_markdown(report, DEFAULT_MAX_BYTES)

    assert len(markdown.encode()) <= DEFAULT_MAX_BYTES
    assert well_formed(markdown)
    for row in ("| `staging` | 0 | 1000 | 0 | 0 | 0 |", "| `prod` | 0 | 1000 | 0 | 0 | 0 |"):
        assert row in markdown
    parts = sections(markdown)
    assert list(parts) == ["staging", "prod", "eu"]
    kept = {name: part.count("<details>") for name, part in parts.items()}
    for name, part in parts.items():
        assert f"The details of {1000 - kept[name]} more objects were cut here" in part
        assert "**Rollouts**: merging starts 500 rollouts: " in part
        assert "`Deployment/" + name + "/app-009` and 490 more." in part
    sizes = {name: len(part.encode()) for name, part in parts.items()}
    largest = max(len(block.encode()) for block in markdown.split("<details>")[1:])
    assert max(sizes.values()) - min(sizes.values()) < 2 * largest, "equal shares, in bytes"
    assert min(kept.values()) >= 50, "the budget is used, not left empty"


def test_a_small_target_keeps_every_detail_and_the_others_share_what_it_leaves() -> None:
    alone = sections(targets_markdown(fleet({"staging": 500, "prod": 500}), DEFAULT_MAX_BYTES))
    report = fleet({"staging": 500, "lab": 2, "prod": 500})

    markdown = targets_markdown(report, DEFAULT_MAX_BYTES)

    assert len(markdown.encode()) <= DEFAULT_MAX_BYTES
    parts = sections(markdown)
    assert parts["lab"].count("<details>") == 4
    assert ":scissors:" not in parts["lab"]
    for name in ("staging", "prod"):
        shared = parts[name].count("<details>")
        assert shared >= alone[name].count("<details>") - 3, "the small part costs little"


@pytest.fixture
def two_folders(tmp_path: Path) -> Repo:
    """main declares shop in staging/ and prod/; `feature` scales staging's and moves
    prod's image."""
    repo = Repo(tmp_path / "repo")
    repo.write({"staging/apps.yaml": webapps_yaml({"shop": ("nginx:1.27", 2)})})
    repo.write({"prod/apps.yaml": webapps_yaml({"shop": ("nginx:1.27", 2)})})
    repo.commit("main")
    repo.git("checkout", "--quiet", "-b", "feature")
    repo.write({"staging/apps.yaml": webapps_yaml({"shop": ("nginx:1.27", 3)})})
    repo.write({"prod/apps.yaml": webapps_yaml({"shop": ("nginx:1.28", 2)})})
    repo.commit("feature")
    return repo


def across(repo: Repo, tmp_path: Path, *targets: str) -> list[str]:
    argv = ["check", "--repo", str(repo.path), "--base", "main", "--head", "feature"]
    for name in targets:
        argv += ["--target", f"name={name},kubeconfig={tmp_path / name}.kubeconfig,path={name}"]
    return argv


def test_targets_out_of_reach_are_lines_of_the_report_not_a_failure(
    two_folders: Repo,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = across(two_folders, tmp_path, "staging", "prod")

    ran = run_driftctl([*argv, "-o", "json"], capsys, monkeypatch)
    failing = run_driftctl([*argv, "--fail-on", "unreachable"], capsys, monkeypatch)

    assert ran.code == 0, ran.err
    document = json.loads(ran.out)
    assert [(t["name"], t["path"], t["summary"]) for t in document["targets"]] == [
        ("staging", "staging", None),
        ("prod", "prod", None),
    ]
    assert all("does not exist" in t["unreachable"] for t in document["targets"])
    [staging, prod] = [t["check"]["git"]["objects"] for t in document["targets"]]
    assert staging[0]["fields"][0]["path"] == "spec.replicas"
    assert prod[0]["fields"][0]["path"] == "spec.image"
    assert document["found"] == ["change", "unreachable"]
    assert document["exitCode"] == 0
    assert failing.code == 4
    assert "Fails on: unreachable (--fail-on unreachable)" in failing.out


def test_a_single_target_out_of_reach_fails_as_a_check_of_one_cluster_does(
    two_folders: Repo,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran = run_driftctl(across(two_folders, tmp_path, "prod"), capsys, monkeypatch)

    assert ran.code == 4
    assert "prod    unreachable: kubeconfig" in ran.out


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Keys]:
    with made_keys(tmp_path_factory.mktemp("keys")) as made:
        yield made


def test_the_commits_are_judged_once_and_fail_the_report_for_every_target(
    tmp_path: Path,
    keys: Keys,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write({f"{env}/apps.yaml": webapps_yaml({"shop": ("nginx:1.27", 2)}) for env in ENVS})
    commit(repo, keys.alice, "main")
    repo.git("checkout", "--quiet", "-b", "feature")
    repo.write({"prod/apps.yaml": webapps_yaml({"shop": ("nginx:1.28", 2)})})
    unsigned = commit(repo, None, "unsigned")
    argv = [*across(repo, tmp_path, *ENVS), "--verify", "all"]
    argv += ["--trusted-keys", str(keys.trusted_keys), "--fail-on", "unsigned"]

    text = run_driftctl(argv, capsys, monkeypatch)
    document = json.loads(run_driftctl([*argv, "-o", "json"], capsys, monkeypatch).out)
    markdown = run_driftctl([*argv, "-o", "markdown"], capsys, monkeypatch).out

    assert text.code == 1, text.err
    told = f"[unsigned] commit {unsigned[:12]}: it carries no signature"
    assert text.out.count(told) == 1, "told once, not per target"
    assert text.out.rstrip().endswith("Fails on: unsigned (--fail-on unsigned)")
    for target in document["targets"]:
        assert [c["countsAs"] for c in target["check"]["commits"]] == ["unsigned"]
    assert document["failedOn"] == ["unsigned"]
    assert markdown.count(told) == 1
    assert markdown.index(told) < markdown.index("| target |"), "above the targets"
