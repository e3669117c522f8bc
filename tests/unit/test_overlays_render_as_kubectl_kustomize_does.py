"""Every field of the supported subset, rendered by the project's kubectl (`kubectl kustomize`)
and by driftctl, from the working tree and from a commit: the same objects, or both refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftctl.core.source.kustomize.configuration import WEBAPP_CONFIGURATION
from tests.support.gitrepos import Repo
from tests.support.overlays import driftctl_render, kubectl_kustomize, webapp

BASE = {
    "base/apps.yaml": webapp("shop", labels={"team": "a"})
    + "---\n"
    + webapp("blog", "registry.example.com:5000/blog:1", 1, namespace="other"),
    "base/kustomization.yaml": "resources:\n- apps.yaml\n",
}
CONFIG = {"prod/webapp.yaml": WEBAPP_CONFIGURATION}
SMP = """\
apiVersion: example.com/v1
kind: WebApp
metadata:
  name: shop
spec:
  replicas: 7
"""
JSON6902 = "- op: replace\n  path: /spec/image\n  value: nginx:1.29\n"


def overlay(text: str, **files: str) -> dict[str, str]:
    return {**BASE, "prod/kustomization.yaml": "resources:\n- ../base\n" + text, **files}


CASES = [
    pytest.param(overlay(""), id="a base folder"),
    pytest.param(
        {
            **BASE,
            "prod/kustomization.yaml": "resources:\n- one.yaml\n",
            "prod/one.yaml": webapp("one"),
        },
        id="a file in the folder",
    ),
    pytest.param(
        {
            "base/apps.yaml": BASE["base/apps.yaml"],
            "base/kustomization.yml": "resources:\n- apps.yaml\n",
            "prod/Kustomization": "resources:\n- ../base\n",
        },
        id="kustomization.yml and Kustomization",
    ),
    pytest.param(
        {**overlay(""), "base/Kustomization": "resources:\n- apps.yaml\n"},
        id="two kustomization files in one folder",
    ),
    pytest.param(overlay("namespace: prod\n"), id="namespace"),
    pytest.param(overlay("namePrefix: p-\nnameSuffix: -x\n"), id="namePrefix and nameSuffix"),
    pytest.param(overlay("commonLabels:\n  env: prod\n"), id="commonLabels"),
    pytest.param(
        overlay("labels:\n- pairs:\n    env: prod\n  includeSelectors: true\n- pairs:\n    t: w\n"),
        id="labels",
    ),
    pytest.param(overlay("commonAnnotations:\n  owner: me\n"), id="commonAnnotations"),
    pytest.param(
        overlay("patches:\n- patch: |-\n" + "".join(f"    {line}\n" for line in SMP.splitlines())),
        id="an inline strategic merge patch",
    ),
    pytest.param(
        overlay(
            "patches:\n- path: smp.yaml\n",
            **{"prod/smp.yaml": SMP.replace("replicas: 7", "image: x:1\n  extra: null")},
        ),
        id="a strategic merge patch file",
    ),
    pytest.param(
        overlay(
            "patches:\n- target:\n    kind: WebApp\n    name: shop\n  patch: |-\n"
            + "".join(f"    {line}\n" for line in JSON6902.splitlines())
        ),
        id="an inline JSON 6902 patch",
    ),
    pytest.param(
        overlay(
            "patches:\n- path: ops.yaml\n  target:\n    kind: WebApp\n    name: b.*\n",
            **{"prod/ops.yaml": "- op: add\n  path: /metadata/labels\n  value: {a: b}\n"},
        ),
        id="a JSON 6902 patch file with a name pattern",
    ),
    pytest.param(
        overlay(
            "patches:\n- target:\n    kind: WebApp\n  patch: |-\n    kind: WebApp\n"
            "    metadata:\n      name: any\n      annotations:\n        patched: 'yes'\n"
        ),
        id="a strategic merge patch with a target, on every WebApp",
    ),
    pytest.param(
        overlay("images:\n- name: nginx\n  newTag: '1.28'\n"), id="images without a configuration"
    ),
    pytest.param(
        overlay(
            "configurations:\n- webapp.yaml\nimages:\n- name: nginx\n  newName: my/nginx\n"
            "  newTag: '1.28'\n- name: registry.example.com:5000/blog\n  digest: sha256:ab\n",
            **CONFIG,
        ),
        id="images with the configuration",
    ),
    pytest.param(
        overlay(
            "configurations:\n- webapp.yaml\nimages:\n- name: nginx\n  newTag: '2'\n"
            "  digest: sha256:cd\n",
            **CONFIG,
        ),
        id="images with a tag and a digest",
    ),
    pytest.param(
        overlay("replicas:\n- name: shop\n  count: 3\n"), id="replicas without a configuration"
    ),
    pytest.param(
        overlay("configurations:\n- webapp.yaml\nreplicas:\n- name: shop\n  count: 3\n", **CONFIG),
        id="replicas with the configuration",
    ),
    pytest.param(
        overlay(
            "configurations:\n- webapp.yaml\nreplicas:\n- name: nothing\n  count: 3\n", **CONFIG
        ),
        id="replicas naming nothing",
    ),
    pytest.param(
        {
            **overlay("components:\n- ../comp\nnamespace: prod\n"),
            "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\n"
            "kind: Component\nresources:\n- extra.yaml\ncommonAnnotations:\n  from: comp\n",
            "comp/extra.yaml": webapp("extra"),
        },
        id="a component",
    ),
    pytest.param(
        {
            **overlay("components:\n- ../outer\n"),
            "outer/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\n"
            "kind: Component\ncomponents:\n- ../inner\nnamePrefix: o-\n",
            "inner/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\n"
            "kind: Component\nresources:\n- extra.yaml\ncommonLabels:\n  inner: 'yes'\n",
            "inner/extra.yaml": webapp("extra"),
        },
        id="a component of a component",
    ),
    pytest.param(
        {
            **BASE,
            "mid/kustomization.yaml": "resources:\n- ../base\nnamePrefix: m-\n",
            "prod/kustomization.yaml": "resources:\n- ../mid\nnamePrefix: p-\npatches:\n"
            "- patch: |-\n" + "".join(f"    {line}\n" for line in SMP.splitlines()),
        },
        id="a chain, patched by the base's name",
    ),
    pytest.param(
        {
            **BASE,
            "mid/kustomization.yaml": "resources:\n- ../base\nnamePrefix: q-\nnamespace: ns1\n",
            "prod/kustomization.yaml": "resources:\n- ../mid\nconfigurations:\n- webapp.yaml\n"
            "replicas:\n- name: shop\n  count: 4\npatches:\n- target:\n    kind: WebApp\n"
            "    name: shop\n  patch: |-\n    - op: replace\n      path: /spec/image\n"
            "      value: t:1\n- patch: |-\n    kind: WebApp\n    apiVersion: example.com/v1\n"
            "    metadata: {name: blog, namespace: other}\n    spec: {replicas: 8}\n",
            **CONFIG,
        },
        id="patches and replicas by the base's names, across a prefix and a namespace",
    ),
    pytest.param(
        {
            **BASE,
            "prod/kustomization.yaml": "resources:\n- ../base\npatches:\n- patch: |-\n"
            "    kind: WebApp\n    apiVersion: example.com/v1\n    metadata: {name: blog}\n"
            "    spec: {replicas: 8}\n",
        },
        id="a patch missing the namespace its WebApp has",
    ),
]


def _write(tmp_path: Path, files: dict[str, str]) -> Repo:
    repo = Repo(tmp_path / "repo").write(files)
    repo.commit("overlays")
    return repo


@pytest.mark.parametrize("files", CASES)
def test_driftctl_renders_what_kubectl_kustomize_renders(
    tmp_path: Path, files: dict[str, str]
) -> None:
    repo = _write(tmp_path, files)
    expected = kubectl_kustomize(repo.path / "prod")
    for ref in (None, "HEAD"):
        rendered = driftctl_render(repo.path, "prod", ref)
        if expected.error is None:
            assert rendered.error is None, f"kubectl rendered it; driftctl: {rendered.error}"
            assert expected.objects, "kubectl rendered no object"
            assert rendered.objects == expected.objects
        else:
            assert rendered.error is not None, f"kubectl refused it: {expected.error}"


def test_replicas_without_the_configuration_is_refused_with_kubectls_reason(tmp_path: Path) -> None:
    repo = _write(tmp_path, overlay("replicas:\n- name: shop\n  count: 3\n"))
    expected = kubectl_kustomize(repo.path / "prod")
    rendered = driftctl_render(repo.path, "prod")
    assert expected.error is not None
    assert rendered.error is not None
    kubectls = expected.error.removeprefix("error: ")
    assert rendered.error.startswith(f"prod/kustomization.yaml:4:3: replicas: {kubectls}")
