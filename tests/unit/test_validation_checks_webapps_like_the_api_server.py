"""Each WebApp is checked against the CRD's schema, Kubernetes naming rules and duplicates;
all problems come back together, sorted, each at its place."""

from __future__ import annotations

import pytest

from driftctl.core.source.documents import Document, Loaded, load_file
from driftctl.core.source.model import Origin, WebApp, WebAppSpec
from driftctl.core.source.validate import Validated, validate
from driftctl.errors import InvalidDesiredState, Problem
from driftctl.settings import Source

HEAD = "apiVersion: example.com/v1\nkind: WebApp\n"


def run(*files: tuple[str, str], options: Source | None = None) -> Validated:
    documents: list[Document] = []
    problems: list[Problem] = []
    for name, text in files:
        loaded = load_file(name, text.encode())
        documents += loaded.documents
        problems += loaded.problems
    return validate(Loaded(tuple(documents), tuple(problems)), options or Source())


def problems(*files: tuple[str, str], options: Source | None = None) -> list[str]:
    with pytest.raises(InvalidDesiredState) as invalid:
        run(*files, options=options)
    return [str(problem) for problem in invalid.value.problems]


def one(body: str) -> list[str]:
    return problems(("w.yaml", HEAD + body))


def test_a_valid_webapp_becomes_the_model_with_its_origin() -> None:
    text = HEAD + "metadata:\n  name: web\n  labels: {team: a}\nspec: {image: nginx, replicas: 0}\n"
    validated = run(("apps/w.yaml", "---\n" + text))
    assert validated.webapps == (
        WebApp("web", "default", WebAppSpec("nginx", 0), labels={"team": "a"}),
    )
    assert validated.webapps[0].origin == Origin("apps/w.yaml", 2)


def test_a_missing_namespace_takes_the_default_namespace_option() -> None:
    text = HEAD + "metadata: {name: web}\nspec: {image: nginx, replicas: 1}\n"
    validated = run(("w.yaml", text), options=Source(namespace="shop"))
    assert validated.webapps[0].place == ("shop", "web")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            "spec: {image: '', replicas: 1}",
            "w.yaml:4:15: WebApp/default/web: spec.image must not be empty",
            id="empty-image",
        ),
        pytest.param(
            "spec: {image: a, replicas: -1}",
            "w.yaml:4:28: WebApp/default/web: spec.replicas must be greater than"
            " or equal to 0, got -1",
            id="negative-replicas",
        ),
        pytest.param(
            "spec: {image: a, replicas: 2147483648}",
            "w.yaml:4:28: WebApp/default/web: spec.replicas must be less than or equal to"
            " 2147483647, got 2147483648",
            id="replicas-over-int32",
        ),
        pytest.param(
            "spec: {image: a, replicas: '3'}",
            "w.yaml:4:28: WebApp/default/web: spec.replicas must be an integer, got a string",
            id="replicas-string",
        ),
        pytest.param(
            "spec: {image: a, replicas: 1.5}",
            "w.yaml:4:28: WebApp/default/web: spec.replicas must be an integer, got a number (1.5)",
            id="replicas-float",
        ),
        pytest.param(
            "spec: {image: a, replicas: true}",
            "w.yaml:4:28: WebApp/default/web: spec.replicas must be an integer,"
            " got a boolean (true)",
            id="replicas-boolean",
        ),
        pytest.param(
            "spec: {image: 42, replicas: 1}",
            "w.yaml:4:15: WebApp/default/web: spec.image must be a string, got an integer (42)",
            id="image-number",
        ),
        pytest.param(
            "spec: {replicas: 1}",
            "w.yaml:4:7: WebApp/default/web: spec.image is required",
            id="image-missing",
        ),
        pytest.param(
            "spec: {image: a, replicas: ~}",
            "w.yaml:4:28: WebApp/default/web: spec.replicas is required",
            id="replicas-null-is-absent",
        ),
        pytest.param(
            "spec: {image: a, replicas: 1, port: 80}",
            "w.yaml:4:37: WebApp/default/web: spec.port is not a known field"
            " (known: image, replicas)",
            id="unknown-field",
        ),
        pytest.param(
            "spec: [a]",
            "w.yaml:4:7: WebApp/default/web: spec must be a mapping, got a list",
            id="spec-not-mapping",
        ),
        pytest.param(
            "other: 1",
            "w.yaml:1:1: WebApp/default/web: spec is required",
            id="spec-missing",
        ),
    ],
)
def test_spec_is_checked_against_the_crd_schema(spec: str, expected: str) -> None:
    found = one(f"metadata: {{name: web}}\n{spec}\n")
    assert expected in found


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        pytest.param(
            "{name: Web}",
            "w.yaml:3:18: WebApp/default/Web: metadata.name must be a lowercase RFC 1123 subdomain"
            " (a-z, 0-9, '-' and '.', starting and ending with a letter or digit), got 'Web'",
            id="uppercase-name",
        ),
        pytest.param(
            "{name: " + "a" * 64 + "}",
            "must be at most 63 characters (it is the Deployment's name label), got 64",
            id="name-too-long-for-a-label",
        ),
        pytest.param(
            "{namespace: shop}", "w.yaml:3:11: WebApp: metadata.name is required", id="no-name"
        ),
        pytest.param(
            "{name: web, namespace: Shop_1}",
            "metadata.namespace must be a lowercase RFC 1123 label (a-z, 0-9 and '-', starting"
            " and ending with a letter or digit), got 'Shop_1'",
            id="bad-namespace",
        ),
        pytest.param(
            "{name: web, labels: {version: 1.0}}",
            "metadata.labels.version must be a string, got a number (1.0); quote it",
            id="label-not-string",
        ),
        pytest.param(
            "{name: web, labels: {team: 'a b'}}",
            "metadata.labels.team must be at most 63 letters, digits, '-', '_' or '.',"
            " starting and ending with a letter or digit, got 'a b'",
            id="bad-label-value",
        ),
        pytest.param(
            "{name: web, labels: {'-x': a}}",
            "metadata.labels.-x has an invalid key: the name '-x' must be 1 to 63 letters",
            id="bad-label-key",
        ),
        pytest.param(
            "{name: web, annotations: {'Example.com/x': a}}",
            "has an invalid key: the prefix 'Example.com' must be a lowercase DNS subdomain",
            id="bad-annotation-prefix",
        ),
        pytest.param(
            "{name: web, annotations: {note: 5}}",
            "metadata.annotations.note must be a string, got an integer (5); quote it",
            id="annotation-not-string",
        ),
        pytest.param(
            "{name: web, labels: {app.kubernetes.io/managed-by: helm}}",
            "metadata.labels[app.kubernetes.io/managed-by] is set by driftctl; remove it from Git",
            id="reserved-label",
        ),
        pytest.param(
            "{name: web, annotations: {driftctl.example.com/revision: abc}}",
            "metadata.annotations[driftctl.example.com/revision] is set by driftctl",
            id="reserved-annotation",
        ),
        pytest.param(
            "{name: web, uid: x}",
            "metadata.uid is not supported in Git (only name, namespace, labels, annotations)",
            id="cluster-field",
        ),
    ],
)
def test_metadata_follows_kubernetes_naming_rules(metadata: str, expected: str) -> None:
    found = one(f"metadata: {metadata}\nspec: {{image: a, replicas: 1}}\n")
    assert any(expected in problem for problem in found), found


def test_status_in_git_is_refused() -> None:
    found = one("metadata: {name: web}\nspec: {image: a, replicas: 1}\nstatus: {ready: true}\n")
    assert found == ["w.yaml:5:9: WebApp/default/web: status is written by driftctl, not by Git"]


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        pytest.param(
            "apiVersion: apps/v1\nkind: Deployment\n",
            "w.yaml:2:7: apps/v1 Deployment is not a WebApp (example.com/v1);"
            " move it out of --path or pass --skip-unknown-kinds",
            id="other-kind",
        ),
        pytest.param(
            "apiVersion: example.com/v2\nkind: WebApp\n",
            "w.yaml:1:13: apiVersion example.com/v2 is not served for WebApp; use example.com/v1",
            id="wrong-version",
        ),
        pytest.param("kind: WebApp\n", "w.yaml:1:1: apiVersion is required", id="no-api-version"),
        pytest.param("apiVersion: example.com/v1\n", "w.yaml:1:1: kind is required", id="no-kind"),
    ],
)
def test_only_example_com_v1_webapps_are_read(head: str, expected: str) -> None:
    assert problems(("w.yaml", head + "metadata: {name: x}\n")) == [expected]


def test_other_kinds_are_skipped_with_a_warning_when_asked() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n" + HEAD
    text += "metadata: {name: web}\nspec: {image: a, replicas: 1}\n"
    validated = run(("w.yaml", text), options=Source(skip_unknown_kinds=True))
    assert [app.name for app in validated.webapps] == ["web"]
    assert [str(w) for w in validated.warnings] == [
        "w.yaml:1:1: skipped v1 ConfigMap: not a WebApp"
    ]


def test_the_same_webapp_twice_across_files_names_both_places() -> None:
    app = HEAD + "metadata: {name: web, namespace: shop}\nspec: {image: a, replicas: 1}\n"
    found = problems(("a.yaml", app), ("b.yaml", "x: 1\n---\n" + app))
    assert "b.yaml:5:18: WebApp/shop/web is declared twice: also at a.yaml:1" in found


def test_the_default_namespace_counts_when_finding_duplicates_in_one_file() -> None:
    first = HEAD + "metadata: {name: web}\nspec: {image: a, replicas: 1}\n"
    second = HEAD + "metadata: {name: web, namespace: default}\nspec: {image: b, replicas: 1}\n"
    found = problems(("a.yaml", first + "---\n" + second))
    assert found == ["a.yaml:8:18: WebApp/default/web is declared twice: also at a.yaml:1"]


def test_all_problems_of_all_files_come_back_together_sorted() -> None:
    bad = HEAD + "metadata: {name: web}\nspec: {image: '', replicas: -1}\n"
    found = problems(("b.yaml", bad), ("a.yaml", "a: &x 1\n"), ("c.yaml", "- 1\n"))
    assert [problem.split(":")[0] for problem in found] == ["a.yaml", "b.yaml", "b.yaml", "c.yaml"]
    assert found == sorted(found, key=lambda text: (text.split(":")[0], int(text.split(":")[1])))


def test_webapps_come_back_sorted_by_namespace_and_name() -> None:
    texts = [
        HEAD + f"metadata: {{name: {name}, namespace: {ns}}}\nspec: {{image: a, replicas: 1}}\n"
        for ns, name in (("b", "x"), ("a", "z"), ("a", "y"))
    ]
    validated = run(("w.yaml", "---\n".join(texts)))
    assert [app.place for app in validated.webapps] == [("a", "y"), ("a", "z"), ("b", "x")]


def test_ignore_rules_in_the_annotation_are_read_into_the_model() -> None:
    text = HEAD + (
        "metadata:\n  name: web\n  annotations:\n    driftctl.example.com/ignore: |\n"
        "      Deployment:/spec/replicas\n      Deployment:/metadata/labels/team\n"
        "spec: {image: nginx, replicas: 1}\n"
    )

    [app] = run(("w.yaml", text)).webapps

    assert [str(rule) for rule in app.ignore] == [
        "Deployment:/spec/replicas",
        "Deployment:/metadata/labels/team",
    ]
    assert app.ignore[0].origin == "the WebApp's annotation driftctl.example.com/ignore"


def test_a_bad_ignore_rule_in_the_annotation_is_refused_at_its_line() -> None:
    text = (
        "metadata:\n  name: web\n  annotations:\n"
        '    driftctl.example.com/ignore: "Deployment:/spec/replicas, WebApp:/spec/image"\n'
        "spec: {image: nginx, replicas: 1}\n"
    )

    [problem] = one(text)

    assert problem.startswith(
        "w.yaml:6:34: WebApp/default/web: metadata.annotations[driftctl.example.com/ignore] "
        "has an ignore rule 'WebApp:/spec/image' is the WebApp's declaration in Git"
    )


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        pytest.param(
            "driftctl.example.com/change-policy: freeze",
            "w.yaml:6:41: WebApp/default/web: metadata.annotations"
            "[driftctl.example.com/change-policy] must be one of apply | hold, got 'freeze'",
            id="change-policy",
        ),
        pytest.param(
            "driftctl.example.com/drift-policy: ignore",
            "w.yaml:6:40: WebApp/default/web: metadata.annotations"
            "[driftctl.example.com/drift-policy] must be one of correct | warn | off, got 'ignore'",
            id="drift-policy",
        ),
        pytest.param(
            "driftctl.example.com/prune-policy: keep",
            "w.yaml:6:40: WebApp/default/web: metadata.annotations"
            "[driftctl.example.com/prune-policy] must be one of delete | orphan | confirm | "
            "quarantine, got 'keep'",
            id="prune-policy",
        ),
        pytest.param(
            "driftctl.example.com/suspend: incident 4711",
            "w.yaml:6:35: WebApp/default/web: metadata.annotations[driftctl.example.com/suspend] "
            "is set on the live WebApp with kubectl annotate, not in Git (to hold Git's changes "
            "from Git, use driftctl.example.com/change-policy: hold)",
            id="suspend-is-live-only",
        ),
        pytest.param(
            "driftctl.example.com/removed-in: abc",
            "w.yaml:6:38: WebApp/default/web: metadata.annotations"
            "[driftctl.example.com/removed-in] is written by driftctl on the live WebApp; "
            "remove it from Git",
            id="driftctl-s-own",
        ),
    ],
)
def test_a_control_annotation_in_git_is_checked_at_its_line(annotation: str, expected: str) -> None:
    text = f"metadata:\n  name: web\n  annotations:\n    {annotation}\n"
    text += "spec: {image: x, replicas: 1}\n"

    assert one(text) == [expected]


def test_policy_annotations_in_git_are_kept_on_the_model() -> None:
    text = HEAD + (
        "metadata:\n  name: web\n  annotations:\n"
        "    driftctl.example.com/change-policy: hold\n"
        "    driftctl.example.com/drift-policy: warn\n"
        "    driftctl.example.com/prune-policy: quarantine\n"
        "spec: {image: nginx, replicas: 1}\n"
    )

    [app] = run(("w.yaml", text)).webapps

    assert app.annotations == {
        "driftctl.example.com/change-policy": "hold",
        "driftctl.example.com/drift-policy": "warn",
        "driftctl.example.com/prune-policy": "quarantine",
    }
