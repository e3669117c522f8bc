"""A WebApp's shard is a stable hash of namespace/name: the same in every process, every
Python, every run; balanced; and a change of the shard count moves few WebApps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from driftctl.core.planning.shards import jump_hash, owns, shard_key, shard_of
from driftctl.errors import UsageError
from driftctl.settings import MAX_SHARDS, Shard
from tests.support.paths import ROOT

NAMES = [f"app-{number}" for number in range(3000)]


def test_the_shard_of_a_webapp_is_pinned() -> None:
    # Changing the hash would move most WebApps between shards on upgrade: it must be a
    # deliberate decision that updates these values, never an accident.
    assert shard_key("demo", "shop") == 5371282323561147254
    assert [shard_of("demo", "shop", count) for count in (1, 2, 3, 4, 5, 8)] == [0, 1, 1, 3, 4, 5]
    assert [shard_of("demo", "blog", count) for count in (1, 2, 3, 4, 5, 8)] == [0, 0, 0, 0, 4, 4]


def _in_a_process(seed: str) -> tuple[int, list[int]]:
    """Python's own hash of one key, and the shards of 300 names, in a fresh process."""
    script = (
        "import json; from driftctl.core.planning.shards import shard_of; "
        f"print(json.dumps([hash('web/app-0'), [shard_of('web', n, 7) for n in {NAMES[:300]!r}]]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, check=True
    )
    python_hash, shards = json.loads(done.stdout)
    return python_hash, shards


def test_every_process_computes_the_same_shards_whatever_its_hash_seed() -> None:
    (first_hash, first), (second_hash, second) = _in_a_process("1"), _in_a_process("4242")

    assert first_hash != second_hash  # hash() would have split the WebApps differently
    assert first == second == [shard_of("web", name, 7) for name in NAMES[:300]]


def _jump_hash_of_the_paper(key: int, buckets: int) -> int:
    """Lamping and Veach's reference, in floating point, as published."""
    bucket, jump = -1, 0
    while jump < buckets:
        bucket = jump
        key = (key * 2862933555777941757 + 1) & 0xFFFFFFFFFFFFFFFF
        jump = int((bucket + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return bucket


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=1, max_value=2000))
def test_the_integer_jump_hash_agrees_with_the_published_algorithm(key: int, buckets: int) -> None:
    assert jump_hash(key, buckets) == _jump_hash_of_the_paper(key, buckets)


def test_shards_are_balanced() -> None:
    counts = Counter(shard_of("web", name, 3) for name in NAMES)

    assert sorted(counts) == [0, 1, 2]
    assert all(900 <= count <= 1100 for count in counts.values()), counts


@pytest.mark.parametrize("count", [1, 2, 3, 5, 10])
def test_one_more_shard_moves_only_the_webapps_of_the_new_shard(count: int) -> None:
    moved = [
        name for name in NAMES if shard_of("web", name, count) != shard_of("web", name, count + 1)
    ]

    assert all(shard_of("web", name, count + 1) == count for name in moved)
    share = len(moved) / len(NAMES)
    assert 0.6 / (count + 1) < share < 1.4 / (count + 1), share


def test_the_namespace_is_part_of_the_key() -> None:
    assert shard_key("a", "b") != shard_key("b", "a")
    assert [shard_of("team-a", n, 4) for n in NAMES[:50]] != [
        shard_of("team-b", n, 4) for n in NAMES[:50]
    ]


def test_an_unsharded_run_owns_everything_and_each_object_has_exactly_one_shard() -> None:
    assert all(owns(Shard(), "web", name) for name in NAMES[:100])
    for name in NAMES[:100]:
        assert sum(owns(Shard(index=index, count=4), "web", name) for index in range(4)) == 1


@pytest.mark.parametrize(
    ("index", "count", "reason"),
    [
        pytest.param(3, 3, "--shard-index must be 0 to 2 for --shard-count 3, got 3", id="index"),
        pytest.param(0, 0, "--shard-count must be 1 to 1000, got 0", id="no-shard"),
        pytest.param(0, MAX_SHARDS + 1, "--shard-count must be 1 to 1000", id="too-many"),
        pytest.param(-1, 2, "--shard-index must be 0 to 1", id="negative"),
    ],
)
def test_a_shard_outside_the_count_is_a_usage_error(index: int, count: int, reason: str) -> None:
    with pytest.raises(UsageError, match=reason):
        Shard(index=index, count=count)


def test_jump_hash_needs_a_bucket() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        jump_hash(1, 0)
