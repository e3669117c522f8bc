"""Which shard a WebApp belongs to: a stable hash of its namespace/name. Pure.

The key is `namespace/name` (neither may contain a `/`, so no two objects share a key),
hashed with SHA-256 and read as a 64-bit number (the first 8 bytes, big-endian), then
placed in a shard by jump consistent hash (Lamping and Veach, "A Fast, Minimal Memory,
Consistent Hash Algorithm", 2014), in integer arithmetic only.

Why it is stable: SHA-256 is a fixed function of the key's UTF-8 bytes (FIPS 180-4), and
the jump hash below uses only integer operations with explicit 64-bit wrap-around, so
every process, Python version and machine computes the same shard. Python's own `hash()`
is not stable: str hashes are salted per process (PYTHONHASHSEED) since Python 3.3.

Why jump hash rather than `hash % count`: when the shard count grows from N to N+1, only
the WebApps that land in the new shard move (about 1/(N+1) of them); modulo would move
nearly all. A move is free anyway (a WebApp's objects do not record their shard, so the
new shard finds them unchanged), but fewer moves mean fewer objects whose two owners could
overlap while an old and a new run happen at once.

A Deployment belongs to the shard of its name: driftctl builds each one with its
WebApp's namespace and name, so a WebApp and its Deployment are always in one shard.
"""

from __future__ import annotations

import hashlib

from driftctl.settings import Shard

_MASK = (1 << 64) - 1
_LCG = 2862933555777941757  # the 64-bit linear congruential step of the jump hash paper


def shard_key(namespace: str, name: str) -> int:
    """The 64-bit number an object is placed by: SHA-256 of `namespace/name`, first 8 bytes."""
    digest = hashlib.sha256(f"{namespace}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def jump_hash(key: int, buckets: int) -> int:
    """The bucket in [0, buckets) of a 64-bit key; a key only ever moves to a new bucket."""
    if buckets < 1:
        raise ValueError(f"buckets must be at least 1, got {buckets}")
    bucket, jump = -1, 0
    while jump < buckets:
        bucket = jump
        key = (key * _LCG + 1) & _MASK
        jump = ((bucket + 1) << 31) // ((key >> 33) + 1)
    return bucket


def shard_of(namespace: str, name: str, count: int) -> int:
    """The index of the shard, out of `count`, that the object namespace/name belongs to."""
    return jump_hash(shard_key(namespace, name), count)


def owns(shard: Shard, namespace: str, name: str) -> bool:
    """Whether the object namespace/name is this shard's to plan, apply and prune."""
    return not shard.sharded or shard_of(namespace, name, shard.count) == shard.index
