"""Manifests are read from real commits with a safe loader; every unsafe construct is refused
with file:line:column and a one-line reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from driftctl.core.source.documents import load_documents, load_file
from driftctl.core.source.tree import MAX_FILE_BYTES
from driftctl.errors import Problem
from driftctl.settings import Source
from driftctl.shell.git_source import read_snapshot
from tests.support.builders import webapp
from tests.support.gitrepos import Repo


def problems_at_commit(tmp_path: Path, name: str, content: bytes) -> list[str]:
    repo = Repo(tmp_path / "repo").write({name: content})
    repo.commit()
    snapshot = read_snapshot(Source(repo=str(repo.path), ref="main"), os.environ)
    return [str(problem) for problem in load_documents(snapshot.entries).problems]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(
            b"a: [1\n",
            "apps.yaml:2:1: invalid YAML: did not find expected ',' or ']'"
            " (while parsing a flow sequence)",
            id="invalid-yaml",
        ),
        pytest.param(
            b"a: 1\nb: &x {c: 1}\n",
            "apps.yaml:2:4: anchors are refused (&x): write the value out",
            id="anchor",
        ),
        pytest.param(
            b"a: 1\n*x : 2\n",
            "apps.yaml:2:1: aliases are refused (*x): write the value out",
            id="alias",
        ),
        pytest.param(
            b"a: &a [1, 1]\nb: &b [*a, *a]\nc: [*b, *b]\n",
            "apps.yaml:1:4: anchors are refused (&a): write the value out",
            id="alias-bomb",
        ),
        pytest.param(
            b"spec:\n  image: a\n  replicas: 1\n  image: b\n",
            "apps.yaml:4:3: duplicate key 'image' (first at line 2)",
            id="duplicate-key-nested",
        ),
        pytest.param(
            b"a: 1\n<<: {b: 2}\n",
            "apps.yaml:2:1: merge keys (<<) are refused: write keys out",
            id="merge-key",
        ),
        pytest.param(
            b"a: !!python/object/apply:os.system [id]\n",
            "apps.yaml:1:4: tag !!python/object/apply:os.system is refused:"
            " only plain data (strings, numbers, booleans, null)",
            id="python-tag",
        ),
        pytest.param(
            b"a: !secret x\n",
            "apps.yaml:1:4: tag !secret is refused: only plain data (strings,"
            " numbers, booleans, null)",
            id="custom-tag",
        ),
        pytest.param(
            b"a: !!set {x}\n",
            "apps.yaml:1:4: tag !!set is refused: only plain data (strings,"
            " numbers, booleans, null)",
            id="set-tag",
        ),
        pytest.param(
            b"a: 1\nb: caf\xe9\n",
            "apps.yaml:2:7: not UTF-8: byte 0xe9 cannot be decoded",
            id="latin-1",
        ),
        pytest.param(
            b"a: x\x00y\n",
            "apps.yaml:1:5: invalid YAML: control characters are not allowed",
            id="control-character",
        ),
        pytest.param(
            b"- a\n- b\n",
            "apps.yaml:1:1: a document must be a mapping (a Kubernetes object), got a list",
            id="list-document",
        ),
        pytest.param(
            b"a: 1\n---\njust text\n",
            "apps.yaml:3:1: a document must be a mapping (a Kubernetes object), got a string",
            id="scalar-document",
        ),
        pytest.param(
            b"? [a, b]\n: 1\n",
            "apps.yaml:1:3: mapping keys must be plain scalars",
            id="complex-key",
        ),
        pytest.param(
            b"a: " + b"[" * 80 + b"]" * 80 + b"\n",
            "apps.yaml:1:68: nested deeper than 64 levels",
            id="deep-nesting",
        ),
    ],
)
def test_unsafe_yaml_is_refused_at_its_place(tmp_path: Path, content: bytes, expected: str) -> None:
    assert problems_at_commit(tmp_path, "apps.yaml", content) == [expected]


def test_a_file_over_the_size_bound_is_refused_without_being_parsed(tmp_path: Path) -> None:
    content = b"# padding\n" * (MAX_FILE_BYTES // 10 + 1)
    expected = (
        f"big.yaml:1:1: file is {len(content)} bytes, over the limit of {MAX_FILE_BYTES} bytes"
    )
    assert problems_at_commit(tmp_path, "big.yaml", content) == [expected]


def test_refusal_stops_one_document_and_the_next_documents_are_still_read() -> None:
    loaded = load_file("a.yaml", b"a: &x 1\n---\nb: 2\n---\nc: 3\nc: 4\n---\nd: 5\n")
    assert [dict(document.body) for document in loaded.documents] == [{"b": 2}, {"d": 5}]
    assert [problem.line for problem in loaded.problems] == [1, 6]


def test_empty_documents_and_comment_only_documents_are_skipped() -> None:
    loaded = load_file("a.yaml", b"---\n---\n# only a comment\n---\na: 1\n---\n")
    assert loaded.problems == ()
    assert [(document.line, dict(document.body)) for document in loaded.documents] == [
        (5, {"a": 1})
    ]


def test_every_value_remembers_its_line_and_column() -> None:
    document = load_file("w.yaml", webapp("web").encode()).documents[0]
    assert document.position(("spec", "replicas")) == (7, 13)
    assert document.position(("metadata", "name")) == (4, 9)
    assert document.position(("spec", "missing")) == (6, 3)


def test_a_byte_order_mark_is_accepted() -> None:
    loaded = load_file("bom.yaml", "\ufeffa: 1\n".encode())
    assert loaded.problems == ()


def test_yaml_scalars_are_typed_as_yaml_1_1_says() -> None:
    body = load_file("t.yaml", b"a: yes\nb: 0x10\nc: '3'\nd: ~\n").documents[0].body
    assert dict(body) == {"a": True, "b": 16, "c": "3", "d": None}


def test_problems_sort_by_file_line_and_column() -> None:
    problems = [
        Problem("b.yaml", 1, 1, "x"),
        Problem("a.yaml", 9, 2, "y"),
        Problem("a.yaml", 9, 1, "z"),
    ]
    assert [str(p) for p in sorted(problems)] == ["a.yaml:9:1: z", "a.yaml:9:2: y", "b.yaml:1:1: x"]


def test_a_scalar_means_the_same_each_time_it_is_written() -> None:
    """Each plain scalar's type is looked up once and kept: written again, plain or quoted,
    it reads as YAML 1.1 reads it, and an implicit merge key is still refused."""
    text = b'a: true\nb: "true"\nc: true\nd: 010\ne: "010"\nf: 010\ng: null\nh: ~\n'
    loaded = load_file("apps.yaml", text)
    again = load_file("other.yaml", text)
    for each in (loaded, again):
        assert each.problems == ()
        [document] = each.documents
        assert document.body == {
            "a": True,
            "b": "true",
            "c": True,
            "d": 8,
            "e": "010",
            "f": 8,
            "g": None,
            "h": None,
        }
    merged = load_file("merge.yaml", b"a: 1\n<<: {b: 2}\n")
    assert [str(problem) for problem in merged.problems] == [
        "merge.yaml:2:1: merge keys (<<) are refused: write keys out"
    ]
