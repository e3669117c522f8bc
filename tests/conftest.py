"""Fixtures shared by every test: the repository root and the integration marker."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/integration needs the control plane: mark it so."""
    for item in items:
        if "integration" in item.path.parts:
            item.add_marker(pytest.mark.integration)
