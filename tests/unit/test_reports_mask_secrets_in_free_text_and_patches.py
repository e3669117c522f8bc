"""A server's message and a plan's JSON Patch are masked like field values: what looks
like a credential is `(masked)`, the rest is kept so the reader still sees what happened."""

from __future__ import annotations

from typing import Any

from driftctl.core.planning.redaction import MASK, masked_patch, masked_text


def test_a_credential_in_free_text_is_masked_and_the_rest_kept() -> None:
    token = "ghp_" + "a1" * 18
    assert masked_text(f"webhook said no: {token} is not allowed") == (
        f"webhook said no: {MASK} is not allowed"
    )
    pem = "-----BEGIN PRIVATE KEY-----\nMIIEv\nQ==\n-----END PRIVATE KEY-----"
    assert masked_text(f"bad value {pem} here") == f"bad value {MASK} here"
    assert masked_text("replicas: Invalid value: -1") == "replicas: Invalid value: -1"


def test_a_patch_masks_values_by_their_name_and_by_their_look() -> None:
    patch: list[dict[str, Any]] = [
        {"op": "add", "path": "/metadata/annotations/example.com~1api-token", "value": "x"},
        {"op": "add", "path": "/metadata", "value": {"annotations": {"note": "https://u:p@h/"}}},
        {"op": "replace", "path": "/spec/replicas", "value": 3},
        {"op": "remove", "path": "/spec/paused"},
    ]
    assert masked_patch(patch) == [
        {"op": "add", "path": "/metadata/annotations/example.com~1api-token", "value": MASK},
        {"op": "add", "path": "/metadata", "value": {"annotations": {"note": MASK}}},
        {"op": "replace", "path": "/spec/replicas", "value": 3},
        {"op": "remove", "path": "/spec/paused"},
    ]
