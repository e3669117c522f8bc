"""What an overlay cannot do is refused at the line and column of the field or entry that asks
for it, and a hostile overlay is refused without anything outside the repository read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from driftctl.core.source.kustomize.fields import KINDS
from driftctl.core.source.kustomize.gather import MAX_CHAIN, MAX_KUSTOMIZATIONS, render_at
from driftctl.shell import git_repo
from driftctl.shell.git_env import git_environment
from driftctl.shell.git_files import CommitFiles, WorktreeFiles
from driftctl.shell.git_source import _blobs_of_any_name
from tests.support.clirun import Ran, run_driftctl
from tests.support.gitrepos import Repo
from tests.support.overlays import Recording, driftctl_render, webapp

BASE = {"base/apps.yaml": webapp("shop"), "base/kustomization.yaml": "resources:\n- apps.yaml\n"}
PLUGIN = "plugins are refused: a plugin runs a program the repository names"
GENERATED = "generators are refused"


def _overlay(tmp_path: Path, text: str, **files: str) -> Repo:
    repo = Repo(tmp_path / "repo").write({**BASE, "prod/kustomization.yaml": text, **files})
    repo.commit("overlay")
    return repo


REFUSED = [
    pytest.param("bases:\n- ../base\n", "1:1: bases is refused", id="bases"),
    pytest.param(
        "configMapGenerator:\n- name: c\n  literals: [a=b]\n",
        f"1:1: {GENERATED}",
        id="configMapGenerator",
    ),
    pytest.param("secretGenerator:\n- name: s\n", f"1:1: {GENERATED}", id="secretGenerator"),
    pytest.param(
        "generatorOptions:\n  disableNameSuffixHash: true\n",
        f"1:1: {GENERATED}",
        id="generatorOptions",
    ),
    pytest.param("generators:\n- gen.yaml\n", f"1:1: generator {PLUGIN}", id="generators"),
    pytest.param("transformers:\n- t.yaml\n", f"1:1: transformer {PLUGIN}", id="transformers"),
    pytest.param("validators:\n- v.yaml\n", f"1:1: validator {PLUGIN}", id="validators"),
    pytest.param("helmCharts:\n- name: x\n", "1:1: helm is refused", id="helmCharts"),
    pytest.param("helmGlobals:\n  chartHome: x\n", "1:1: helm is refused", id="helmGlobals"),
    pytest.param(
        "patchesStrategicMerge:\n- p.yaml\n",
        "1:1: patchesStrategicMerge is refused",
        id="patchesStrategicMerge",
    ),
    pytest.param(
        "patchesJson6902:\n- path: p.yaml\n",
        "1:1: patchesJson6902 is refused",
        id="patchesJson6902",
    ),
    pytest.param("openapi:\n  path: s.json\n", "1:1: openapi is refused", id="openapi"),
    pytest.param("crds:\n- crd.json\n", "1:1: crds is refused", id="crds"),
    pytest.param(
        "replacements:\n- path: r.yaml\n", "1:1: replacements is not supported", id="replacements"
    ),
    pytest.param("vars:\n- name: v\n", "1:1: vars is not supported", id="vars"),
    pytest.param("kind: Pod\n", "1:7: kind 'Pod' is not Kustomization or Component", id="kind"),
    pytest.param(
        "resources:\n- ../base\nlabels:\n- pairs: {a: b}\n  fields: [{path: x}]\n",
        "5:3: labels[0].fields is not supported",
        id="labels fields",
    ),
    pytest.param(
        "resources:\n- ../base\npatches:\n- path: p.yaml\n  options: {allowNameChange: true}\n",
        "5:3: patches[0].options is not supported",
        id="patch options",
    ),
    pytest.param(
        "resources:\n- ../base\npatches:\n- path: p.yaml\n  target:\n    labelSelector: a=b\n",
        "6:5: patches[0].target.labelSelector is not supported",
        id="patch label selector",
    ),
    pytest.param(
        "resources:\n- ../base\nimages:\n- name: nginx\n  tagSuffix: -x\n",
        "5:3: images[0].tagSuffix is not supported",
        id="images tagSuffix",
    ),
    pytest.param(
        "resources:\n- ../base\nreplicas:\n- name: shop\n  count: -1\n",
        "5:10: replicas[0].count must be a whole number",
        id="replicas count",
    ),
    pytest.param(
        "resources:\n- ../base\ncommonLabels:\n  env: 1\n",
        "4:8: commonLabels.env must be a string",
        id="label value",
    ),
    pytest.param("namespace: [a]\n", "1:12: namespace must be a string", id="namespace"),
    pytest.param(
        "resources:\n- ../base\npatches:\n- patch: |-\n"
        "    kind: WebApp\n    metadata: {name: shop}\n    $patch: delete\n",
        "7:13: $patch is refused",
        id="a strategic merge directive",
    ),
    pytest.param(
        "resources:\n- ../base\npatches:\n- patch: |-\n    - op: remove\n      path: /spec\n",
        "4:3: a JSON 6902 patch needs a target",
        id="a JSON patch without a target",
    ),
    pytest.param(
        "resources:\n- ../base\npatches:\n- patch: |-\n"
        "    kind: WebApp\n    metadata: {name: nobody}\n",
        "6:22: the patch matches no resource",
        id="a patch that matches nothing",
    ),
    pytest.param(
        "resources:\n- https://github.com/x/y//base?ref=v1\n",
        "2:3: https://github.com/x/y//base?ref=v1: remote bases are refused",
        id="a remote base",
    ),
    pytest.param(
        "resources:\n- github.com/x/y/base\n",
        "2:3: github.com/x/y/base: remote bases are refused",
        id="a remote base without a scheme",
    ),
    pytest.param(
        "resources:\n- ../../etc\n",
        "2:3: ../../etc: the path leads out of the repository",
        id="out of the repository",
    ),
    pytest.param(
        "resources:\n- /etc/passwd\n",
        "2:3: /etc/passwd: an absolute path is refused",
        id="an absolute path",
    ),
    pytest.param(
        "resources:\n- ../base/apps.yaml\n",
        "2:3: ../base/apps.yaml: a file outside prod is refused",
        id="a file outside the folder",
    ),
    pytest.param(
        "resources:\n- ../.git/config\n- .hidden/a.yaml\n",
        "2:3: ../.git/config: a hidden path is refused",
        id="a hidden path",
    ),
    pytest.param(
        "resources:\n- missing.yaml\n",
        "2:3: missing.yaml: prod/missing.yaml does not exist",
        id="a missing file",
    ),
    pytest.param(
        "resources:\n- ../plain\n",
        "2:3: plain has no kustomization file",
        id="a folder without a kustomization",
    ),
    pytest.param(
        "resources:\n- ../comp\n",
        "2:3: ../comp is a Component: list it under components",
        id="a component as a resource",
    ),
    pytest.param(
        "components:\n- ../base\n",
        "2:3: ../base is a Kustomization: list it under resources",
        id="a base as a component",
    ),
    pytest.param(
        "configurations:\n- ../base/apps.yaml\n",
        "2:3: ../base/apps.yaml: a file outside prod is refused",
        id="a configuration outside the folder",
    ),
    pytest.param(
        "resources:\n- ../base\nconfigurations:\n- c.yaml\n",
        "c.yaml:1:1: nameReference is not supported in a configuration",
        id="a configuration section",
    ),
]


@pytest.mark.parametrize(("text", "told"), REFUSED)
def test_a_refused_field_is_told_at_its_line_and_column(
    tmp_path: Path, text: str, told: str
) -> None:
    files = {
        "plain/a.yaml": webapp("a"),
        "comp/kustomization.yaml": f"apiVersion: {KINDS['Component']}\nkind: Component\n",
        "prod/c.yaml": "nameReference:\n- kind: WebApp\n",
    }
    repo = _overlay(tmp_path, text, **files)
    for ref in (None, "HEAD"):
        rendered = driftctl_render(repo.path, "prod", ref)
        assert rendered.error is not None
        expected = (
            f"prod/{told}" if told.startswith("c.yaml") else f"prod/kustomization.yaml:{told}"
        )
        assert any(line.startswith(expected) for line in rendered.error.splitlines()), (
            rendered.error
        )


def test_a_refused_overlay_exits_3_with_the_place_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _overlay(tmp_path, "resources:\n- ../base\nhelmCharts:\n- name: x\n")
    for command in ("validate", "render", "plan"):
        ran: Ran = run_driftctl(
            [command, "--repo", str(repo.path), "--path", "prod"], capsys, monkeypatch
        )
        assert ran.code == 3, (command, ran.err)
        assert "prod/kustomization.yaml:3:1: helm is refused" in ran.err
        assert "Traceback" not in ran.err


def test_a_kustomization_below_a_plain_path_is_refused_with_the_path_to_give(
    tmp_path: Path,
) -> None:
    repo = _overlay(tmp_path, "resources:\n- ../base\n")
    rendered = driftctl_render(repo.path, "")
    assert rendered.error is not None
    assert "base/kustomization.yaml:1:1: a kustomization below --path is refused" in rendered.error
    assert "give --path prod to render it" in rendered.error


Readers = Callable[[Repo], Recording]


def _worktree(repo: Repo) -> Recording:
    return Recording(WorktreeFiles(repo.path))


@pytest.fixture(params=["worktree", "commit"])
def reading(request: pytest.FixtureRequest) -> Callable[[Repo, str], tuple[str, list[str]]]:
    """Render `folder` of a repository through a recording reader: the problems, and what
    the reader was asked for."""

    def render(repo: Repo, folder: str) -> tuple[str, list[str]]:
        if request.param == "worktree":
            recording = Recording(WorktreeFiles(repo.path))
            found = render_at(recording, folder)
        else:
            with git_repo.opened(repo.path, git_environment({})) as opened:
                sha = opened.head.commit.hexsha
                recording = Recording(CommitFiles(opened, sha, _blobs_of_any_name))
                found = render_at(recording, folder)
        assert found is not None
        return "\n".join(str(problem) for problem in found[0].problems), recording.asked

    return render


def _outside(path: str) -> bool:
    return path.startswith(("/", "..")) or "/../" in path


def test_a_path_out_of_the_repository_is_refused_unread(
    tmp_path: Path, reading: Callable[[Repo, str], tuple[str, list[str]]]
) -> None:
    repo = _overlay(
        tmp_path,
        "resources:\n- ../../etc\n- ../base/../../../etc/passwd\n- /etc/passwd\n- https://example.com/x.yaml\n",
    )
    problems, asked = reading(repo, "prod")
    assert (
        "prod/kustomization.yaml:2:3: ../../etc: the path leads out of the repository" in problems
    )
    assert (
        "prod/kustomization.yaml:3:3: ../base/../../../etc/passwd: the path leads out" in problems
    )
    assert "prod/kustomization.yaml:4:3: /etc/passwd: an absolute path is refused" in problems
    assert (
        "prod/kustomization.yaml:5:3: https://example.com/x.yaml: remote bases are refused"
        in problems
    )
    assert not [path for path in asked if _outside(path) or "://" in path]


def test_a_symlink_out_of_the_repository_is_refused_unread(
    tmp_path: Path, reading: Callable[[Repo, str], tuple[str, list[str]]]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kustomization.yaml").write_text("resources:\n- secret.yaml\n")
    (outside / "secret.yaml").write_text(webapp("stolen"))
    repo = Repo(tmp_path / "repo").write(
        {**BASE, "prod/kustomization.yaml": "resources:\n- ../linked\n- ../base\n"}
    )
    repo.symlink("linked", str(outside))
    repo.commit("a link out")
    problems, asked = reading(repo, "prod")
    assert (
        "prod/kustomization.yaml:2:3: ../linked: linked is a symlink, or lies under one: refused"
        in problems
    )
    assert [path for path in asked if path.startswith("linked")] == ["linked"]


def test_a_chain_10000_deep_is_refused_after_the_bound(
    tmp_path: Path, reading: Callable[[Repo, str], tuple[str, list[str]]]
) -> None:
    files = {f"c/{n}/kustomization.yaml": f"resources:\n- ../{n + 1}\n" for n in range(10_000)}
    repo = Repo(tmp_path / "repo").write(files)
    repo.commit("a long chain")
    problems, asked = reading(repo, "c/0")
    assert (
        f"c/{MAX_CHAIN - 1}/kustomization.yaml:2:3: ../{MAX_CHAIN}: "
        f"kustomizations nested more than {MAX_CHAIN} deep at c/{MAX_CHAIN}" in problems
    )
    assert len(asked) <= 4 * (MAX_CHAIN + 1)


def test_a_cycle_is_refused_where_it_closes(
    tmp_path: Path, reading: Callable[[Repo, str], tuple[str, list[str]]]
) -> None:
    repo = Repo(tmp_path / "repo").write(
        {
            "a/kustomization.yaml": "resources:\n- ../b\n",
            "b/kustomization.yaml": "resources:\n- ../c\n",
            "c/kustomization.yaml": "resources:\n- ../a\n",
        }
    )
    repo.commit("a cycle")
    problems, _asked = reading(repo, "a")
    assert problems == "c/kustomization.yaml:2:3: ../a: a cycle of kustomizations: a → b → c → a"


def test_a_base_listed_twice_at_every_level_is_refused_at_the_bound(
    tmp_path: Path, reading: Callable[[Repo, str], tuple[str, list[str]]]
) -> None:
    levels = 16  # 2**16 gatherings without the bound
    files = {
        f"l/{n}/kustomization.yaml": f"resources:\n- ../{n + 1}\n- ../{n + 1}/\n"
        for n in range(levels)
    }
    files[f"l/{levels}/kustomization.yaml"] = "resources: []\n"
    repo = Repo(tmp_path / "repo").write(files)
    repo.commit("a fan-out")
    problems, asked = reading(repo, "l/0")
    assert f"more than {MAX_KUSTOMIZATIONS} kustomizations in one overlay" in problems
    assert len(asked) <= 10 * MAX_KUSTOMIZATIONS


@pytest.mark.parametrize(
    ("files", "told"),
    [
        pytest.param(
            {"base/apps.yaml": webapp("shop", replicas=-1)},
            "base/apps.yaml:7:13: WebApp/default/p-shop: spec.replicas must be",
            id="from the base",
        ),
        pytest.param(
            {
                "prod/kustomization.yaml": "resources:\n- ../base\nnamePrefix: p-\npatches:\n"
                "- path: ops.yaml\n  target: {kind: WebApp}\n",
                "prod/ops.yaml": "- op: add\n  path: /spec/paused\n  value: true\n",
            },
            "prod/ops.yaml:3:10: WebApp/default/p-shop: spec.paused is not a known field",
            id="from a JSON patch file",
        ),
        pytest.param(
            {
                "prod/kustomization.yaml": "resources:\n- ../base\nnamePrefix: p-\npatches:\n"
                '- patch: \'{"kind": "WebApp", "metadata": {"name": "shop"}, '
                '"spec": {"image": ""}}\'\n'
            },
            "prod/kustomization.yaml:5:",
            id="from a one-line inline patch, at its line",
        ),
        pytest.param(
            {"prod/kustomization.yaml": "resources:\n- ../base\nnamePrefix: P-\n"},
            "prod/kustomization.yaml:3:13: WebApp/default/P-shop: metadata.name",
            id="from the name prefix",
        ),
        pytest.param(
            {
                "prod/kustomization.yaml": "resources:\n- ../base\nnamePrefix: p-\n"
                "commonLabels:\n  env: 'no spaces'\n"
            },
            "prod/kustomization.yaml:5:8: WebApp/default/p-shop: metadata.labels.env",
            id="from a label",
        ),
    ],
)
def test_a_problem_in_a_rendered_webapp_is_told_where_its_value_was_written(
    tmp_path: Path, files: dict[str, str], told: str
) -> None:
    overlay = {"prod/kustomization.yaml": "resources:\n- ../base\nnamePrefix: p-\n", **files}
    repo = Repo(tmp_path / "repo").write({**BASE, **overlay})
    repo.commit("an overlay")
    rendered = driftctl_render(repo.path, "prod")
    assert rendered.error is not None
    assert any(line.startswith(told) for line in rendered.error.splitlines()), rendered.error
