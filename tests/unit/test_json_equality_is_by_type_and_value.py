"""normalize.equal is JSON's equality: two values are equal exactly when they serialise the
same with their keys sorted (`true` is not `1`, `1` is not `1.0`), however deep they nest."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from driftctl.core.planning.normalize import equal

# Few values and keys, so that generated pairs are often equal or equal to Python only.
SCALARS = st.sampled_from([True, False, 1, 0, 1.0, 0.0, "1", "a", None])
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner),
    max_leaves=8,
)


def serialised(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@settings(max_examples=600)
@given(VALUES, VALUES)
def test_equal_is_equality_of_the_json(left: Any, right: Any) -> None:
    assert equal(left, right) == (serialised(left) == serialised(right))


@given(VALUES)
def test_a_value_equals_its_copy(value: Any) -> None:
    assert equal(value, json.loads(serialised(value)))


def test_python_equal_values_of_other_json_types_differ() -> None:
    assert not equal({"a": [True]}, {"a": [1]})
    assert not equal({"a": {"b": 1}}, {"a": {"b": 1.0}})
    assert not equal([0], [False])
    assert equal({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
