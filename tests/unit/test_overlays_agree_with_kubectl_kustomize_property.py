"""Generated overlays of the supported subset (a base, perhaps a component, and an overlay
with any of namespace, prefix, suffix, labels, annotations, patches, images and replicas,
with or without the WebApp configuration) render to the same objects with `kubectl
kustomize` and with driftctl, or both refuse them. Bounded: each example runs kubectl."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftctl.core.source.kustomize.configuration import WEBAPP_CONFIGURATION
from tests.support.gitrepos import Repo
from tests.support.overlays import driftctl_render, kubectl_kustomize

NAMES = ("shop", "blog", "api")
IMAGES = ("nginx", "redis", "registry.example.com/team/app")
word = st.sampled_from(("a", "b", "prod", "web", "x1"))
pairs = st.dictionaries(st.sampled_from(("env", "team", "tier")), word, min_size=1, max_size=2)


@st.composite
def base(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    apps = []
    for name in names:
        metadata: dict[str, Any] = {"name": name}
        if draw(st.booleans()):
            metadata["namespace"] = draw(st.sampled_from(("default", "other")))
        if draw(st.booleans()):
            metadata["labels"] = draw(pairs)
        image = draw(st.sampled_from(IMAGES)) + draw(st.sampled_from(("", ":1", "@sha256:ab")))
        spec = {"image": image, "replicas": draw(st.integers(0, 5))}
        apps.append(
            {"apiVersion": "example.com/v1", "kind": "WebApp", "metadata": metadata, "spec": spec}
        )
    return apps


# The base may rename and move its WebApps: the overlay's patches and replicas still name
# them by the names the base's files gave them.
base_fields = st.fixed_dictionaries(
    {},
    optional={"namePrefix": st.just("b-"), "namespace": st.sampled_from(("base", "default"))},
)


@st.composite
def image_rule(draw: st.DrawFn) -> dict[str, str]:
    rule = {"name": draw(st.sampled_from(IMAGES))}
    for key, values in (
        ("newName", ("my/app", "nginx")),
        ("newTag", ("2", "latest")),
        ("digest", ("sha256:cd",)),
    ):
        if draw(st.booleans()):
            rule[key] = draw(st.sampled_from(values))
    return rule


@st.composite
def overlay(draw: st.DrawFn, names: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {"resources": ["../base"]}
    optional = {
        "namespace": st.sampled_from(("prod", "staging")),
        "namePrefix": st.sampled_from(("p-", "eu-")),
        "nameSuffix": st.sampled_from(("-x", "-v2")),
        "commonLabels": pairs,
        "labels": st.lists(st.fixed_dictionaries({"pairs": pairs}), min_size=1, max_size=2),
        "commonAnnotations": pairs,
        "images": st.lists(image_rule(), min_size=1, max_size=2),
        "replicas": st.lists(
            st.fixed_dictionaries({"name": st.sampled_from(names), "count": st.integers(0, 9)}),
            min_size=1,
            max_size=2,
            unique_by=lambda rule: rule["name"],
        ),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            fields[key] = draw(strategy)
    if draw(st.booleans()):
        fields["configurations"] = ["webapp.yaml"]
    patches: list[dict[str, Any]] = []
    if draw(st.booleans()):
        patched = draw(st.sampled_from(names))
        patch: dict[str, Any] = {"apiVersion": "example.com/v1", "kind": "WebApp"}
        patch["metadata"] = {"name": patched}
        patch["spec"] = {"replicas": draw(st.integers(0, 9))}
        patches.append({"patch": json.dumps(patch)})
    if draw(st.booleans()):
        operation = {"op": "replace", "path": "/spec/image", "value": "nginx:9"}
        target = {"kind": "WebApp", "name": draw(st.sampled_from(names))}
        patches.append({"patch": json.dumps([operation]), "target": target})
    if patches:
        fields["patches"] = patches
    if draw(st.booleans()):
        fields["components"] = ["../component"]
    return fields


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, str]:
    apps = draw(base())
    names = [app["metadata"]["name"] for app in apps]
    return {
        "base/apps.yaml": "---\n".join(json.dumps(app) + "\n" for app in apps),
        "base/kustomization.yaml": json.dumps({"resources": ["apps.yaml"], **draw(base_fields)}),
        "prod/kustomization.yaml": json.dumps(draw(overlay(names))),
        "prod/webapp.yaml": WEBAPP_CONFIGURATION,
        "component/kustomization.yaml": json.dumps(
            {
                "apiVersion": "kustomize.config.k8s.io/v1alpha1",
                "kind": "Component",
                "commonAnnotations": draw(pairs),
            }
        ),
    }


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    made = Repo(tmp_path_factory.mktemp("property") / "repo").write({"README": "overlays\n"})
    made.commit("empty")
    return made


COUNTER = itertools.count()


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(files=layouts())
def test_generated_overlays_render_as_kubectl_kustomize_renders_them(
    repo: Repo, files: dict[str, str]
) -> None:
    folder = f"example-{next(COUNTER)}"
    repo.write({f"{folder}/{name}": text for name, text in files.items()})
    expected = kubectl_kustomize(Path(repo.path / folder / "prod"))
    rendered = driftctl_render(repo.path, f"{folder}/prod")
    if expected.error is not None:
        assert rendered.error is not None, (
            f"kubectl refused it ({expected.error}); driftctl did not"
        )
    else:
        assert rendered.error is None, f"kubectl rendered it; driftctl: {rendered.error}"
        assert rendered.objects == expected.objects
