"""Property, fuzzed: any bytes a commit may hold go into the loader (core.source.documents)
and the validation after it, and come out as documents or as the documented input errors:
Problems with file, line, column and a one-line reason (InvalidDesiredState, exit 3) —
never another exception. Inputs are bounded (a few KiB here; the loader itself refuses
files over MAX_FILE_BYTES, aliases and deep nesting, which bound its memory).

Three shapes of input: YAML-looking token soup (anchors, aliases, merge keys, tags, flow
and block collections, document markers, tabs), plain data dumped as YAML (WebApp-shaped
or not), and arbitrary bytes.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from driftctl.core.source.documents import Loaded, load_file
from driftctl.core.source.validate import validate
from driftctl.errors import InvalidDesiredState, Problem
from driftctl.settings import Source

FILE = "apps/fuzzed.yaml"
SOURCE = Source(namespace="web")
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOKENS = (
    *("apiVersion: example.com/v1", "kind: WebApp", "metadata:", "  name: shop", "spec:"),
    *("  image: nginx:1.27", "  replicas: 2", "  labels:", "  annotations:", "namespace: web"),
    *("&a", "*a", "<<: *a", "!!python/object:os.system", "!custom", "!!binary", "!!str"),
    *("---", "...", "%YAML 1.1", "%TAG ! tag:x,2000:", "{", "}", "[", "]", ",", ":", "? "),
    *("- ", "  ", "\t", "|", ">-", "'", '"', "#", "\n", "\r\n", "~", "null", "1e3", "0x1F"),
    *("2001-12-14", "yes", "key: value", "key: value", "\ufeff", "\x00", "\u2028"),
)
soup = st.lists(st.sampled_from(TOKENS) | st.text(max_size=6), max_size=80).map("".join)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
data = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.integers(), inner, max_size=4)
    ),
    max_leaves=20,
)
webapp_like = st.fixed_dictionaries(
    {"apiVersion": st.sampled_from(("example.com/v1", "v1")), "kind": st.just("WebApp")},
    optional={
        "metadata": st.fixed_dictionaries(
            {"name": st.text(max_size=12) | scalars},
            optional={"namespace": scalars, "labels": data, "annotations": data},
        ),
        "spec": st.fixed_dictionaries(
            {}, optional={"image": scalars, "replicas": scalars, "extra": data}
        ),
    },
)
dumped = st.lists(webapp_like | data, min_size=1, max_size=3).map(
    lambda documents: yaml.safe_dump_all(documents, allow_unicode=True)
)


def checked(problems: tuple[Problem, ...] | list[Problem]) -> None:
    """Each problem is a documented input error: in the file, at a place, one line."""
    for problem in problems:
        assert problem.file == FILE
        assert min(problem.line, problem.column) >= 1, problem
        assert problem.reason.strip(), problem
        assert "\n" not in problem.reason, problem


def loaded_and_validated(raw: bytes) -> Loaded:
    loaded = load_file(FILE, raw)
    checked(loaded.problems)
    for document in loaded.documents:
        assert isinstance(document.body, dict)
        assert document.line >= 1
    refused: list[Problem] = []
    try:
        checked(list(validate(loaded, SOURCE).warnings))
    except InvalidDesiredState as invalid:
        refused = invalid.problems
    checked(refused)
    assert bool(refused) >= bool(loaded.problems)  # a loader's refusal is never lost
    return loaded


@FUZZ
@given(text=soup)
@example(text="a: &a [*a, *a]\nb: *a\n")  # an alias: refused before anything expands
@example(text="a: 1\na: 2\n")
@example(text="[" * 200)
def test_yaml_looking_soup_is_loaded_or_refused_with_a_located_reason(text: str) -> None:
    loaded_and_validated(text.encode("utf-8", "surrogatepass"))


@FUZZ
@given(text=dumped)
# Found by the fuzzer: a name, and an annotation key, holding new lines (shown escaped)
@example(text="apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n  name: '\n\n    '\n")
@example(
    text="apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n  annotations:\n"
    "    ? '\n\n      '\n    : null\n  name: null\n  namespace: null\n"
)
# ...and the same name declared twice (the duplicate's problem printed it across two lines)
@example(
    text="apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n  name: '\n\n    '\n---\n"
    "apiVersion: example.com/v1\nkind: WebApp\nmetadata:\n  name: '\n\n    '\n"
)
def test_plain_data_dumped_as_yaml_loads_back_as_it_was(text: str) -> None:
    loaded = loaded_and_validated(text.encode())
    expected: list[Any] = [d for d in yaml.safe_load_all(text) if d is not None]
    if not loaded.problems:  # refusals here: keys that are not plain scalars, and the like
        assert [d.body for d in loaded.documents] == [d for d in expected if isinstance(d, dict)]


@FUZZ
@given(raw=st.binary(max_size=2048))
def test_arbitrary_bytes_are_loaded_or_refused_with_a_located_reason(raw: bytes) -> None:
    loaded_and_validated(raw)
